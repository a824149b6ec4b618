import Foundation
import Testing

extension ReliabilityTests {
    @Suite("Reliability: the embedding consumer killed mid-run (quick)", .serialized)
    struct EmbeddingCrashTests {
        @Test("SIGKILL in embedding updates and rebuilds leaves vectors that catch up to equal the store")
        func quickSuitePasses() throws {
            let model = ProcessInfo.processInfo.environment["SPOTLITE_MODEL_DIR"]
                ?? FileManager.default.currentDirectoryPath + "/Index/models/all-MiniLM-L6-v2"
            try #require(FileManager.default.fileExists(atPath: model + "/model.safetensors"),
                         "the embedding model is not installed at \(model): run `make deps`")
            let output = try ReliabilityRunner.run(["embedding-crash", "--seed", "1", "--model", model])
            let summary = try #require(output.summary("embedding-crash"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(summary.passed >= 2 + 3 * 6, "the first run and three checks for each of 6 trials")
            #expect(output.status == 0)
            #expect(output.numbers(in: "trials") == [6])
            let killed = try #require(output.numbers(in: "killed mid-run").first)
            #expect(killed >= 2, "most kills land while the child runs: \(output.stdout)")
        }
    }
}

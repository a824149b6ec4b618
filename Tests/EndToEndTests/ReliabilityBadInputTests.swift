import Foundation
import Testing

extension ReliabilityTests {
    @Suite("Reliability: bad input (quick)", .serialized)
    struct BadInputTests {
        @Test("fuzzed queries, malformed configurations and imports, injection, a damaged index, bad directories, a full disk")
        func quickSuitePasses() throws {
            let output = try ReliabilityRunner.run(["bad-input", "--seed", "1"])
            let summary = try #require(output.summary("bad-input"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(output.status == 0)
            #expect(summary.passed >= 90)
            let fuzzing = output.numbers(in: "API fuzzing")
            #expect(fuzzing.count >= 4 && fuzzing[0] == 400 && fuzzing[3] == 0, "400 searches, none unclear: \(output.figure("API fuzzing") ?? "")")
            let corpus = output.numbers(in: "configuration corpus")
            #expect(corpus.count == 2 && corpus[0] >= 30 && corpus[0] == corpus[1], "\(output.figure("configuration corpus") ?? "")")
            let damaged = output.numbers(in: "damaged indexes")
            #expect(damaged.count == 2 && damaged[0] == damaged[1], "every damaged index detected and rebuilt")
        }
    }
}

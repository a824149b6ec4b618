import Foundation
import Testing

extension ReliabilityTests {
    @Suite("Reliability: no silent wrong answers (quick)", .serialized)
    struct CorrectnessTests {
        @Test("one seeded trial of every class, each followed by the byte-for-byte differential check")
        func quickSuitePasses() throws {
            let output = try ReliabilityRunner.run(["correctness", "--seed", "1"])
            let summary = try #require(output.summary("correctness"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(output.status == 0)
            #expect(summary.passed == 15)
            let classes = output.numbers(in: "classes")
            #expect(classes.first == 15, "\(output.figure("classes") ?? "")")
            let checked = output.numbers(in: "differential check")
            #expect((checked.first ?? 0) > 0, "\(output.figure("differential check") ?? "")")
        }
    }
}

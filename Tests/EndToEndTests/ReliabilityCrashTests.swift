import Foundation
import Testing

extension ReliabilityTests {
    @Suite("Reliability: crash consistency (quick)", .serialized)
    struct CrashTests {
        @Test("SIGKILL at random moments of update, rebuild, watch, import and writers never breaks the invariant")
        func quickSuitePasses() throws {
            let output = try ReliabilityRunner.run(["crash", "--seed", "1"])
            let summary = try #require(output.summary("crash"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(summary.passed >= 13, "the set-up and 12 trials")
            #expect(output.status == 0)
            #expect(output.numbers(in: "trials") == [12])
            let killed = try #require(output.numbers(in: "killed mid-run").first)
            #expect(killed >= 3, "most kills land while the child runs: \(output.stdout)")
            #expect(output.figure("rows checked") != nil)
        }

        @Test("the kind and the kill point of each trial follow from the seed")
        func trialsAreReproducible() throws {
            func trials(_ seed: Int) throws -> [String] {
                let output = try ReliabilityRunner.run(["crash", "--seed", String(seed), "--trials", "4", "--verbose"])
                #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
                // Time-based kills end with the delay measured in this run; kills after a shard commit are exact.
                return output.stderr.split(separator: "\n").compactMap { line in
                    guard let start = line.range(of: "trial "), line.contains(": kill ") else { return nil }
                    let end = line.range(of: " of its usual run")?.lowerBound ?? line.endIndex
                    return String(line[start.lowerBound..<end])
                }
            }
            let first = try trials(7)
            #expect(first.count == 4)
            #expect(try trials(7) == first)
            #expect(try trials(8) != first, "another seed, other choices")
        }
    }
}

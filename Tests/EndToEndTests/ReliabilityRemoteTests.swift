import Foundation
import Testing

extension ReliabilityTests {
    /// The quick run of the remote suite: one trial of each kind (a shard server killed right after a shard commit,
    /// one killed at a seeded moment of an update, the indexer killed during a rebuild in place). The scenarios
    /// themselves are also tested in process by `RemoteShardTests` and `RemoteShardRebuildTests`; this keeps the
    /// harness that `make stress` runs many times working.
    @Suite("Reliability: remote shards (quick)", .serialized)
    struct RemoteTests {
        @Test("shard servers and the indexer killed with SIGKILL: one-line errors naming HOST:PORT, no position past the shards, catch-up equal to a local index")
        func quickSuitePasses() throws {
            let output = try ReliabilityRunner.run(["remote", "--seed", "1"])
            let summary = try #require(output.summary("remote"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(summary.passed == 4, "the set-up and 3 trials")
            #expect(output.status == 0)
            #expect(output.numbers(in: "trials") == [3])
            let errors = try #require(output.numbers(in: "error lines").first)
            #expect(errors >= 4, "at least the search and the status with each killed server down: \(output.stdout)")
            let compared = try #require(output.numbers(in: "local comparison").first)
            #expect(compared == 80, "20 queries after the set-up and after each trial: \(output.stdout)")
        }
    }
}

import ArgumentParser
import Dispatch
import Foundation
import Spotlite
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process of the crash and remote suites: runs an index update (or rebuild) and kills itself with SIGKILL
/// right after the Nth shard commit, which is `kill -9` landing between the commits of two shards of one batch, where a
/// time-based kill rarely lands. With `--kill-process-group`, it kills that process group instead (a shard server's
/// session) and carries on, printing the update's error as JSON (`{"error": …}`, exit status 1) when it fails.
struct ShardCrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update-killed-between-shard-commits",
        abstract: "(used by the suites) Update the index and SIGKILL this process right after the Nth shard commit.")

    @Option(help: "The configuration file.") var config: String
    @Option(help: "Die right after this many shard commits (1 or more).") var afterCommits: Int
    @Flag(help: "Rebuild instead of updating.") var rebuild = false
    @Option(help: "SIGKILL this process group (a shard server's session) instead of this process, and carry on.")
    var killProcessGroup: Int32?

    private final class Outcome: Sendable {
        let result = Mutex<Result<IndexUpdateSummary, any Error>?>(nil)
    }

    func run() throws {
        let configuration = try SpotliteConfiguration(contentsOf: config)
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        let commits = Atomic<Int>(0)
        let target = max(1, afterCommits)
        let rebuild = rebuild
        let victim = killProcessGroup
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        Task {
            await indexer.setShardCommitHook { _, _ in
                guard commits.add(1, ordering: .sequentiallyConsistent).newValue == target else { return }
                if let victim { kill(-victim, SIGKILL) } else { kill(getpid(), SIGKILL) }
            }
            let result: Result<IndexUpdateSummary, any Error>
            do {
                result = .success(rebuild ? try await indexer.rebuild(reason: "crash trial") : try await indexer.update())
            } catch {
                result = .failure(error)
            }
            outcome.result.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        let result = outcome.result.withLock { $0! }
        let summary: IndexUpdateSummary
        switch result {
        case let .success(value):
            summary = value
        case let .failure(error):
            guard victim != nil else { throw error }
            let object: [String: Any] = ["survived": true, "error": "\(error)",
                                         "shard_commits": commits.load(ordering: .sequentiallyConsistent)]
            print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
            throw ExitCode.failure
        }
        print("{\"survived\": true, \"shard_commits\": \(commits.load(ordering: .sequentiallyConsistent)), \"token\": \(summary.token?.rawValue ?? 0)}")
    }
}

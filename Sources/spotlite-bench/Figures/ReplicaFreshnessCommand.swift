import ArgumentParser
import Foundation
import GRDB
import Spotlite
import SpotliteTooling
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `spotlite-bench replica-freshness`: the time from an index commit on the master to a read replica answering with
/// it, over loopback, for each follow interval asked (p50, p99 over N commits, side by side in one run).
///
/// The master is a store and index built here; `ReplicationServer` serves it (`xapian-replicate-server`), and for
/// each interval a `ReplicaFollower` keeps a new replica current on a thread of its own (what
/// `spotlite index replicate follow --interval S` does). Each commit writes one record with a probe word, applies it
/// with `SpotliteIndexer.update()`, and stamps the moment the update returned; the replica is then searched (a new
/// `IndexSearcher` per check, as `spotlite search --index` opens one) until the probe is found. A random pause
/// between commits keeps them out of step with the follower's rounds.
struct ReplicaFreshnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replica-freshness",
        abstract: "Measure how soon a read replica answers with an index commit (needs xapian-tools).")

    @Option(help: "Commits measured per interval.") var commits = 50
    @Option(help: "Records in the index before measuring.") var records = 5000
    @Option(help: "Follow intervals in seconds, comma-separated (each measured with its own replica).")
    var intervals = "1,0.1"
    @Option(help: "A port on 127.0.0.1 for the replication server (default: a free one).") var port: Int?
    @Option(help: "Write the measurements as JSON to this file.") var jsonOutput: String?
    @Flag(help: "Keep the scratch directory.") var keep = false

    struct Row: Codable {
        var interval: Double
        var commits: Int
        var found: Int
        var latency: LatencySummary
        /// One follower round (layout and every shard, no change to copy), p50.
        var roundP50: Double
        var fullCopiesAfterFirst: Int
    }

    struct Report: Codable {
        var machine: MachineDescription
        var records: Int
        var shards: Int
        var rows: [Row]
    }

    func run() async throws {
        let intervalList = intervals.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard commits >= 1, records >= 1, !intervalList.isEmpty, intervalList.allSatisfy({ $0 >= 0.05 }) else {
            throw BenchError("--commits and --records must be at least 1, --intervals a list of seconds of at least 0.05")
        }
        // SIGINT or SIGTERM stops the replication server (and anything else listed in SpawnedProcesses) and removes
        // the scratch directory (or names it, with --keep).
        HarnessInterruption.install(program: "spotlite-bench")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-replica-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        HarnessInterruption.enter(workspace: scratch, keep: keep, noun: "scratch directory")
        defer {
            HarnessInterruption.holdIfInterrupted()
            HarnessInterruption.leave()
            if !keep { try? FileManager.default.removeItem(atPath: scratch) }
        }
        let configurationPath = scratch + "/spotlite.toml"
        try Data("""
            store = "store.sqlite"
            index = "search"

            [entities.Note]
            key = "id"

            [entities.Note.fields]
            title = { type = "text", weight = 3, store = true }
            body  = { type = "text" }

            """.utf8).write(to: URL(fileURLWithPath: configurationPath))
        let configuration = try SpotliteConfiguration(contentsOf: configurationPath, baseDirectory: scratch)
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        let words = ["replica", "master", "xapian", "changeset", "shard", "generation", "search", "index", "commit",
                     "copy", "follow", "serve", "loopback", "latency", "record", "history", "token", "switch"]
        try store.write(author: "bench", context: "load") { db in
            for number in 0..<records {
                let title = (0..<4).map { words[(number &* 7 &+ $0 &* 13) % words.count] }.joined(separator: " ")
                let body = (0..<30).map { words[(number &* 31 &+ $0 &* 5) % words.count] }.joined(separator: " ")
                try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES (?, ?, ?)", arguments: ["n\(number)", title, body])
            }
        }
        // The first build, then the server (which marks the index as served), then the indexer that is measured:
        // it opens its writers with changesets on, as `spotlite index update` does for a served index.
        _ = try await SpotliteIndexer(store: store, configuration: configuration).update()
        let port = try self.port ?? Self.freePort()
        let server = ReplicationServer(indexPath: configuration.indexPath, address: ReplicationAddress(host: "127.0.0.1", port: port))
        let session = try server.startListed()
        defer { server.stopListed(session: session) }
        // Names the session, so that a harness (or a person) can check that none outlives the run.
        FileHandle.standardError.write(Data("replication server started: \(server.address) (session \(session))\n".utf8))
        ReplicationServer.enableChangesets(forIndexAt: configuration.indexPath)
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        let shards = server.published?.shards ?? 1
        let machine = MachineDescription.current()
        print("Replica freshness: \(records) records, \(shards) shards, \(commits) commits per interval, loopback")
        print(machine.summary)

        var rows: [Row] = []
        var probe = 0
        for interval in intervalList {
            let replicaPath = scratch + "/replica-\(interval)"
            let follower = try ReplicaFollower(source: server.address, replicaPath: replicaPath)
            _ = try follower.followOnce()
            let log = FollowerLog()
            let done = DispatchSemaphore(value: 0)
            Thread {
                while !log.stop.load(ordering: .relaxed) {
                    // Interrupted: parked here, so that the clean-up's removal of the scratch directory holds.
                    HarnessInterruption.holdIfInterrupted()
                    do {
                        let round = try follower.followOnce()
                        log.rounds.withLock { $0.append(round) }
                    } catch {
                        log.failures.withLock { $0.append("\(error)") }
                    }
                    usleep(useconds_t(interval * 1_000_000))
                }
                done.signal()
            }.start()
            var latencies: [Double] = []
            for _ in 0..<commits {
                HarnessInterruption.holdIfInterrupted()
                probe += 1
                let word = "probe\(probe)x\(UInt32.random(in: 0...UInt32.max))"
                try store.write(author: "bench", context: "probe") { db in
                    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES (?, ?, ?)",
                                   arguments: ["p\(probe)", "probe \(word)", "a probe record"])
                }
                _ = try await indexer.update()
                let committed = Stopwatch.nanoseconds()
                let deadline = committed + 30_000_000_000
                var found = false
                while Stopwatch.nanoseconds() < deadline {
                    HarnessInterruption.holdIfInterrupted()
                    let searcher = try IndexSearcher(configuration: configuration, indexPath: replicaPath)
                    let request = SearchRequest(word, limit: 1, snippet: SnippetOptions(length: 0), correctsSpelling: false)
                    if (try? searcher.search(request).hits.first?.key.description) == "p\(probe)" {
                        found = true
                        break
                    }
                    usleep(2_000)
                }
                if found { latencies.append(Double(Stopwatch.nanoseconds() - committed) / 1e9) }
                usleep(useconds_t.random(in: 0...useconds_t(min(interval, 0.5) * 1_000_000)))
            }
            log.stop.store(true, ordering: .relaxed)
            done.wait()
            let seen = log.rounds.withLock { $0 }
            let quiet = seen.filter { $0.fullCopies == 0 }.map(\.seconds)
            let row = Row(interval: interval, commits: commits, found: latencies.count, latency: LatencySummary(samples: latencies),
                          roundP50: Statistics.percentile(quiet, 50), fullCopiesAfterFirst: seen.map(\.fullCopies).reduce(0, +))
            rows.append(row)
            if let failure = log.failures.withLock({ $0.first }) { print("  follower errors: \(failure)") }
            print(String(format: "  interval %5.2f s: commit → replica answers p50 %7.1f ms, p99 %7.1f ms, max %7.1f ms (%d/%d found); one round p50 %.1f ms; full copies after the first: %d",
                         interval, row.latency.p50 * 1000, row.latency.p99 * 1000, row.latency.max * 1000, row.found, commits,
                         row.roundP50 * 1000, row.fullCopiesAfterFirst))
        }
        if let jsonOutput {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(Report(machine: machine, records: records, shards: shards, rows: rows))
                .write(to: URL(fileURLWithPath: jsonOutput))
        }
    }

    /// What the follower thread reports.
    final class FollowerLog: Sendable {
        let rounds = Mutex<[ReplicaRound]>([])
        let failures = Mutex<[String]>([])
        let stop = Atomic(false)
    }

    static func freePort() throws -> Int {
        do {
            return try LoopbackPort.free()
        } catch {
            throw BenchError("cannot find a free port on 127.0.0.1 (\(error)); pass --port")
        }
    }
}

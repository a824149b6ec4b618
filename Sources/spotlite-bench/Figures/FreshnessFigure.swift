import Foundation
import Spotlite
import SpotliteTooling
import Synchronization

/// Figure 4: freshness in live mode. This process runs a live indexer (``SpotliteIndexer/start()``) and subscribes to
/// its `indexUpdates()`; a child process (`spotlite-bench child-writer`) commits single-row transactions, each with a
/// probe word, at a steady pace, and stamps each commit with the machine's monotonic clock. After every index update
/// this process searches for the next probes; a probe's latency is the moment it is first found minus its commit
/// stamp. Searches go through a long-lived ``IndexSearcher`` (what an app keeps) and, separately, a searcher opened
/// for each check (what a new reader sees). `slowRuns` runs of `freshnessWrites` probes; the statistics are medians
/// over runs, since one run's tail depends on what else the machine is doing.
enum FreshnessFigure {
    /// One run of `writes` probes.
    struct Sample: Codable, Sendable {
        var indexUpdates: Int
        /// Through a searcher opened for each check.
        var latency: LatencySummary
        var found: Int
        /// Through one long-lived searcher, until the other had found every probe.
        var longLivedLatency: LatencySummary
        var longLivedFound: Int
        /// Where the time goes: commit → the store's change notification posted in this process (its `date`, wall
        /// clock); commit → that notification received by a task; commit → the index commit that covers it
        /// (`indexUpdates()`).
        var commitToNotificationSent: LatencySummary
        var commitToNotification: LatencySummary
        var commitToIndexCommit: LatencySummary
    }

    struct Result: FigureResult {
        var runs: Int
        var writes: Int
        var intervalMilliseconds: Int
        /// Statistic by statistic, the median over runs.
        var latency: LatencySummary
        /// The fewest probes found in a run.
        var found: Int
        var longLivedLatency: LatencySummary
        var longLivedFound: Int
        var commitToNotificationSent: LatencySummary
        var commitToNotification: LatencySummary
        var commitToIndexCommit: LatencySummary
        var samples: [Sample]

        static let p50Target = 0.050
        static let p99Target = 0.250

        var rows: [TableRow] {
            let allFound = found == writes
            func pair(_ summary: LatencySummary) -> String {
                "\(Format.milliseconds(summary.p50)) / \(Format.milliseconds(summary.p99))"
            }
            return [
                TableRow("4 freshness", "commit → searchable, \(writes) writes \(intervalMilliseconds) ms apart, p50 (median of \(runs))",
                         Format.milliseconds(latency.p50), target: "≤ 50 ms", met: allFound && latency.p50 <= Self.p50Target),
                TableRow("4 freshness", "p99 (\(found)/\(writes) found in every run)", Format.milliseconds(latency.p99),
                         target: "≤ 250 ms", met: allFound && latency.p99 <= Self.p99Target),
                TableRow("4 freshness", "p50 / p99 of each run", samples.map { pair($0.latency) }.joined(separator: "; ")),
                TableRow("4 freshness", "of which commit → change notification posted, p50 / p99", pair(commitToNotificationSent)),
                TableRow("4 freshness", "commit → change notification received by a task, p50 / p99", pair(commitToNotification)),
                TableRow("4 freshness", "commit → index commit covering it, p50 / p99", pair(commitToIndexCommit)),
                TableRow("4 freshness", "through one long-lived IndexSearcher: probes found",
                         "\(longLivedFound) of \(writes) (p50 \(Format.milliseconds(longLivedLatency.p50)))"),
            ]
        }
    }

    private struct Sightings: Sendable {
        var fresh: [Int: UInt64] = [:]
        var longLived: [Int: UInt64] = [:]
        var updates = 0
        /// Each index commit: the token it reflects and when it was seen.
        var indexCommits: [(token: Int64, seen: UInt64)] = []
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        var samples: [Sample] = []
        for run in 0..<context.settings.slowRuns {
            let sample = try await runOnce(context)
            samples.append(sample)
            Progress.note(String(format: "freshness run %d/%d: %d/%d found, p50 %.1f ms, p99 %.1f ms (notification p50 %.1f ms, p99 %.1f ms); long-lived searcher found %d",
                                 run + 1, context.settings.slowRuns, sample.found, context.settings.freshnessWrites,
                                 sample.latency.p50 * 1000, sample.latency.p99 * 1000,
                                 sample.commitToNotification.p50 * 1000, sample.commitToNotification.p99 * 1000,
                                 sample.longLivedFound))
        }
        return Result(
            runs: samples.count, writes: context.settings.freshnessWrites,
            intervalMilliseconds: context.settings.freshnessIntervalMilliseconds,
            latency: LatencySummary(medianOf: samples.map(\.latency)), found: samples.map(\.found).min() ?? 0,
            longLivedLatency: LatencySummary(medianOf: samples.map(\.longLivedLatency)),
            longLivedFound: samples.map(\.longLivedFound).max() ?? 0,
            commitToNotificationSent: LatencySummary(medianOf: samples.map(\.commitToNotificationSent)),
            commitToNotification: LatencySummary(medianOf: samples.map(\.commitToNotification)),
            commitToIndexCommit: LatencySummary(medianOf: samples.map(\.commitToIndexCommit)), samples: samples)
    }

    private static func runOnce(_ context: BenchContext) async throws -> Sample {
        _ = try context.store()
        let field = try context.descriptiveField
        let writes = context.settings.freshnessWrites
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let indexer = try context.makeIndexer()
        let updates = indexer.indexUpdates()
        let notifications = try context.store().changeNotifications()
        let announcer = Task { () -> [(token: Int64, seen: UInt64, sent: Double)] in
            var seen: [(token: Int64, seen: UInt64, sent: Double)] = []
            for await notification in notifications {
                seen.append((notification.token?.rawValue ?? 0, Stopwatch.nanoseconds(),
                             notification.date.timeIntervalSince1970))
            }
            return seen
        }
        try await indexer.start()
        let configuration = context.configuration
        let indexPath = context.indexPath
        let entity = context.entity.name
        let longLived = try IndexSearcher(configuration: configuration, indexPath: indexPath)

        // The probes are searched on a thread of their own, woken by each index update, so that this measurement
        // never occupies a thread of Swift's cooperative pool, which the live indexer itself runs on.
        let sightings = Mutex(Sightings())
        let wake = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let stop = Mutex(false)
        let forwarder = Task {
            for await update in updates {
                sightings.withLock {
                    $0.updates += 1
                    $0.indexCommits.append((update.token?.rawValue ?? 0, Stopwatch.nanoseconds()))
                }
                wake.signal()
            }
        }
        let searcherThread = Thread {
            var nextFresh = 0
            var nextLongLived = 0
            func visible(_ index: Int, through searcher: IndexSearcher) -> Bool {
                let request = SearchRequest(ChildWriter.word(tag: tag, index: index), entities: [entity], limit: 1,
                                            snippet: SnippetOptions(length: 0), correctsSpelling: false)
                let key = ChildWriter.key(tag: tag, index: index)
                return (try? searcher.search(request).hits.first?.key.description == key) ?? false
            }
            while nextFresh < writes, !stop.withLock({ $0 }) {
                guard wake.wait(timeout: .now() + .milliseconds(100)) == .success else { continue }
                // Several updates may have arrived: one check covers them all.
                while wake.wait(timeout: .now()) == .success {}
                if let fresh = try? IndexSearcher(configuration: configuration, indexPath: indexPath) {
                    while nextFresh < writes, visible(nextFresh, through: fresh) {
                        let now = Stopwatch.nanoseconds()
                        sightings.withLock { $0.fresh[nextFresh] = now }
                        nextFresh += 1
                    }
                }
                while nextLongLived < writes, visible(nextLongLived, through: longLived) {
                    let now = Stopwatch.nanoseconds()
                    sightings.withLock { $0.longLived[nextLongLived] = now }
                    nextLongLived += 1
                }
            }
            finished.signal()
        }
        searcherThread.start()

        let running = try ChildProcess(executable: ChildProcess.currentExecutable, arguments: [
            "child-writer", "--config", context.configurationPath, "--store", context.storePath, "--entity", entity,
            "--field", field, "--count", String(writes), "--interval-ms",
            String(context.settings.freshnessIntervalMilliseconds), "--tag", tag,
        ], output: .pipe)
        // Read and waited for on a thread of its own: both block.
        let outcome = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: running.outcome()) }.start()
        }
        // Give the indexer up to 5 s to apply the last writes; the searcher thread ends once every probe is found.
        let deadline = Stopwatch.nanoseconds() + 5_000_000_000
        while finished.wait(timeout: .now()) != .success {
            if Stopwatch.nanoseconds() > deadline {
                stop.withLock { $0 = true }
                finished.wait()
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        forwarder.cancel()
        announcer.cancel()
        let announcements = await announcer.value
        await indexer.stop()
        let seen = sightings.withLock { $0 }
        guard outcome.status == 0 else {
            throw BenchError("the writer child process failed with status \(outcome.status) (its error is above)")
        }
        var commits: [Int: UInt64] = [:]
        var tokens: [Int: Int64] = [:]
        var walls: [Int: Double] = [:]
        for line in String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 4, let index = Int(parts[0]), let stamp = UInt64(parts[1]), let token = Int64(parts[2]),
               let wall = Double(parts[3]) {
                commits[index] = stamp
                tokens[index] = token
                walls[index] = wall
            }
        }
        guard commits.count == writes else {
            throw BenchError("the writer child reported \(commits.count) commits of \(writes)")
        }
        func latencies(_ seen: [Int: UInt64]) -> [Double] {
            seen.compactMap { index, time in
                commits[index].map { Double(time > $0 ? time - $0 : 0) / 1e9 }
            }
        }
        /// For each commit, the delay until the first event (in arrival order) whose token covers it.
        func delays(_ events: [(token: Int64, seen: UInt64)]) -> [Double] {
            commits.compactMap { index, stamp in
                guard let token = tokens[index], let event = events.first(where: { $0.token >= token }) else { return nil }
                return Double(event.seen > stamp ? event.seen - stamp : 0) / 1e9
            }
        }
        let sentDelays: [Double] = commits.keys.compactMap { index in
            guard let token = tokens[index], let wall = walls[index],
                  let event = announcements.first(where: { $0.token >= token }) else { return nil }
            return max(0, event.sent - wall)
        }
        return Sample(
            indexUpdates: seen.updates, latency: LatencySummary(samples: latencies(seen.fresh)),
            found: seen.fresh.count, longLivedLatency: LatencySummary(samples: latencies(seen.longLived)),
            longLivedFound: seen.longLived.count,
            commitToNotificationSent: LatencySummary(samples: sentDelays),
            commitToNotification: LatencySummary(samples: delays(announcements.map { ($0.token, $0.seen) })),
            commitToIndexCommit: LatencySummary(samples: delays(seen.indexCommits)))
    }
}

import SpotliteTooling
import Foundation
import GRDB
import Spotlite

/// Concurrency under load: two library writers (authors `writer-a`, `writer-b`) and two plain `sqlite3` writers run
/// thousands of transactions each, while `spotlite index watch` follows them, `spotlite history clean` runs in a loop,
/// and a slow second consumer reads history. Then the watcher must have caught up, a final update must leave the
/// invariant true, the consumer must have seen every writer transaction (cleanup never deleted one it had not read),
/// and no writer may have failed on "database is locked" without retrying.
struct ConcurrencySuite {
    struct Settings {
        var transactions: Int
        var records: Int
        var sharedKeys: Int
        /// The library writers' pause between transactions, so that a short run still overlaps with cleanup.
        var writerPauseMilliseconds: Int
        /// The consumer reads this many transactions, then pauses this long: slower than the writers.
        var consumerPage: Int
        var consumerPauseMilliseconds: Int
        /// How long index watch may take to apply the backlog once the writers stop (it commits every batch_size
        /// changes, so under this load it falls behind, then catches up).
        var catchUpLimitSeconds: Double

        static func forMode(long: Bool) -> Settings {
            long ? Settings(transactions: 3000, records: 2000, sharedKeys: 500, writerPauseMilliseconds: 0,
                            consumerPage: 10, consumerPauseMilliseconds: 15, catchUpLimitSeconds: 600)
                : Settings(transactions: 150, records: 200, sharedKeys: 100, writerPauseMilliseconds: 5,
                           consumerPage: 10, consumerPauseMilliseconds: 5, catchUpLimitSeconds: 120)
        }
    }

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    private var random: SeededGenerator
    private let configuration: SpotliteConfiguration

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        random = SeededGenerator(seed: seed)
        try workspace.write(ItemModel.configuration(storePath: workspace.storePath, indexPath: workspace.indexPath,
                                                    batchSize: 100), to: "spotlite.toml")
        configuration = try workspace.loadConfiguration()
    }

    mutating func run() throws {
        try prepare()
        let observer = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                         options: StoreOptions(readOnly: true))
        let watch = try workspace.startSpotlite(["index", "watch", "--json"], label: "watch")
        let stopFile = workspace.path("consumer.stop")
        let consumer = try startChild("consumer", ["consumer", "--config", workspace.configurationPath,
                                                   "--author", ItemModel.slowConsumer, "--page", String(settings.consumerPage),
                                                   "--pause-ms", String(settings.consumerPauseMilliseconds),
                                                   "--stop-file", stopFile])
        guard waitUntil(timeout: 60, { try observer.position(of: ItemModel.slowConsumer) != nil }) else {
            throw HarnessError("the slow consumer did not record its position: \(consumer.stderr)")
        }

        let started = ContinuousClock.now
        var libraryWriters: [(author: String, child: ChildProcess)] = []
        for (author, namespace) in zip(ItemModel.writerAuthors, ["a", "b"]) {
            libraryWriters.append((author, try startChild(author, [
                "writer", "--config", workspace.configurationPath, "--author", author, "--namespace", namespace,
                "--seed", String(random.next()), "--transactions", String(settings.transactions),
                "--shared-keys", String(settings.sharedKeys), "--pause-ms", String(settings.writerPauseMilliseconds)])))
        }
        let shellWriters = ["p", "q"].map { namespace in
            ShellWriter(name: "sqlite3-\(namespace)",
                        script: WriteScript(seed: random.next(), namespace: namespace, sharedKeys: settings.sharedKeys),
                        transactions: settings.transactions)
        }

        let cleaner = CleanerLoop()
        var maximumHistory = 0
        var lastSample = ContinuousClock.now
        func writing() -> Bool {
            libraryWriters.contains { $0.child.poll() == nil } || shellWriters.contains { !$0.isFinished }
        }
        func tick(cleaning: Bool) throws {
            for writer in shellWriters { try writer.poll(in: workspace) }
            try cleaner.poll(in: workspace, keepRunning: cleaning)
            if ContinuousClock.now - lastSample > .milliseconds(500) {
                lastSample = ContinuousClock.now
                maximumHistory = max(maximumHistory, try observer.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_transaction") ?? 0
                })
            }
        }
        while writing() {
            try tick(cleaning: true)
            usleep(10_000)
        }
        let writingSeconds = (ContinuousClock.now - started).seconds
        let deletedWhileWriting = cleaner.deletedTransactions

        // The watcher must catch up on its own: no pending foreign change, its token at the store's.
        let catchUpStart = ContinuousClock.now
        let caughtUp = waitUntil(timeout: settings.catchUpLimitSeconds) {
            try tick(cleaning: true)
            guard try !observer.hasPendingChanges() else { return false }
            let status = try IndexStatus(store: observer, configuration: configuration)
            return status.token == status.storeToken
        }
        let catchUp = (ContinuousClock.now - catchUpStart).seconds
        report.expect(caughtUp, "index watch caught up with every writer on its own",
                      otherwise: "the index was still behind the store \(Int(settings.catchUpLimitSeconds)) s after the last write")

        // Then, with the load gone, one write by the sqlite3 shell must reach the index promptly.
        let before = try observer.read { db in try Int64.fetchOne(db, sql: "SELECT max(token) FROM spotlite_transaction") ?? 0 }
        let probeStart = ContinuousClock.now
        let probe = try workspace.sqlite("INSERT INTO Item (id, title, rev) VALUES ('probe', 'latency probe', 0);")
        let reacted = probe.succeeded && waitUntil(timeout: 5) {
            let status = try IndexStatus(store: observer, configuration: configuration)
            return (status.token?.rawValue ?? 0) > before
        }
        let reaction = (ContinuousClock.now - probeStart).seconds
        report.expect(reacted, "index watch indexes a single foreign write within 5 s",
                      otherwise: "the probe write was not indexed after \(Format.seconds(reaction)) \(probe.errorLine)")

        _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
        // The cleaner keeps running while the consumer catches up, then stops.
        while consumer.poll() == nil && consumer.elapsed < 600 {
            try tick(cleaning: true)
            usleep(10_000)
        }
        let consumerRun = workspace.finish(consumer, timeout: 1)
        while cleaner.isRunning {
            try tick(cleaning: false)
            usleep(10_000)
        }
        watch.kill(SIGTERM)
        let watchRun = workspace.finish(watch, timeout: 120)
        report.expect(watchRun.succeeded, "index watch stops cleanly on SIGTERM",
                      otherwise: "index watch ended with \(watchRun.termination): \(watchRun.errorLine)")
        let watchBatches = watchRun.stdout.split(separator: "\n").count
        let watchErrors = watchRun.stderr.split(separator: "\n").filter { $0.contains("error") }

        let update = try workspace.runSpotlite(["index", "update", "--json"])
        report.expect(update.succeeded, "a final index update succeeds", otherwise: "index update: \(update.errorLine)")
        let outcome = try InvariantChecker(configuration: configuration).check(InvariantChecker.Options(expectCaughtUp: true, ledger: false))
        report.record("invariant after the load: index = rows, history and positions consistent", problems: outcome.problems)

        // Writers: every transaction committed, "database is locked" only ever retried.
        var writerSummaries: [LibraryWriter.Summary] = []
        var busyRetries: [String] = []
        var transactions = 0
        for (author, child) in libraryWriters {
            let run = workspace.finish(child)
            guard run.succeeded, let summary = try? JSONDecoder().decode(LibraryWriter.Summary.self, from: Data(run.stdout.utf8)) else {
                report.record("library writer \(author) ran to the end", problems: ["\(run.termination): \(run.errorLine)"])
                continue
            }
            writerSummaries.append(summary)
            transactions += summary.committed.count
            busyRetries.append("\(author) \(summary.busyRetries)")
            report.record("library writer \(author) committed all \(settings.transactions) transactions",
                          problems: summary.failed.isEmpty ? [] : ["\(summary.failed.count) failed: " + summary.messages.joined(separator: "; ")])
        }
        for writer in shellWriters {
            transactions += writer.committed
            busyRetries.append("\(writer.name) \(writer.busyRetries)")
            report.record("\(writer.name) committed all \(settings.transactions) transactions", problems:
                writer.failures + (writer.committed == settings.transactions ? [] : ["committed \(writer.committed)"]))
        }
        report.record("history clean ran in a loop without error", problems: Array(cleaner.failures.prefix(5)))
        report.expect(cleaner.deletedTransactions > 0, "history clean deleted consumed history",
                      otherwise: "it never deleted anything, so the consumer check proves nothing")

        // The slow consumer saw every library transaction, once, and met no gap.
        if consumerRun.succeeded, let summary = try? JSONDecoder().decode(SlowConsumer.Summary.self, from: Data(consumerRun.stdout.utf8)) {
            var problems = summary.gaps
            for writer in writerSummaries {
                let seen = summary.seen[writer.author] ?? []
                let missing = Set(writer.committed).subtracting(seen)
                if !missing.isEmpty {
                    problems.append("\(missing.count) transactions of \(writer.author) were deleted before the consumer read them (e.g. \(writer.author)#\(missing.min()!))")
                }
                if seen.count != Set(seen).count { problems.append("the consumer saw some \(writer.author) transactions twice") }
                if !Set(seen).subtracting(writer.committed).isEmpty {
                    problems.append("the consumer saw \(writer.author) transactions the writer did not commit")
                }
            }
            report.record("the slow consumer saw every writer transaction, without a gap", problems: problems)
            report.figure("slow consumer", "\(Format.number(summary.transactions)) transactions read, \(summary.gaps.count) gaps")
        } else {
            report.record("the slow consumer ran to the end", problems: ["\(consumerRun.termination): \(consumerRun.errorLine)"])
        }

        report.figure("writers", "2 library + 2 sqlite3, \(Format.number(settings.transactions)) transactions each")
        report.figure("transactions committed", "\(Format.number(transactions)) in \(Format.seconds(writingSeconds)) (\(Format.rate(transactions, per: writingSeconds, unit: "transactions")))")
        report.figure("busy retries", busyRetries.joined(separator: ", ") + " (beyond SQLite's busy timeout)")
        report.figure("history clean", "\(cleaner.runs) runs, \(Format.number(cleaner.deletedTransactions)) transactions deleted (\(Format.number(deletedWhileWriting)) while the writers ran), history peaked at \(Format.number(maximumHistory))")
        report.figure("index watch", "\(watchBatches) batches applied, caught up \(Format.seconds(catchUp)) after the last write, \(watchErrors.count) error lines")
        report.figure("watch latency", "one foreign write indexed \(Format.seconds(reaction)) after its commit, with the load gone")
        report.figure("final update", update.succeeded ? Format.seconds(update.termination.seconds) : "failed")
        report.figure("rows = documents", "\(Format.number(outcome.rows)) rows, \(Format.number(outcome.documents)) documents")
        report.figure("store", "\(Format.megabytes(kilobytes: fileSize(workspace.storePath) / 1024)), WAL \(Format.megabytes(kilobytes: fileSize(workspace.storePath + "-wal") / 1024))")
    }

    private mutating func prepare() throws {
        var records = RecordGenerator(random: random.split())
        var lines = (0..<settings.sharedKeys).map { records.item(id: WriteScript.sharedKey($0)).jsonLine }
        lines += (0..<settings.records).map { records.item(id: "r-\($0)").jsonLine }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: "initial.jsonl")
        let imported = try workspace.runSpotlite(["import", workspace.path("initial.jsonl"), "--entity", "Item", "--batch", "500"])
        guard imported.succeeded else { throw HarnessError("the initial import failed: \(imported.errorLine)") }
        let built = try workspace.runSpotlite(["index", "update", "--json"])
        guard built.succeeded else { throw HarnessError("the first index build failed: \(built.errorLine)") }
    }

    private func startChild(_ label: String, _ arguments: [String]) throws -> ChildProcess {
        let output = workspace.outputPaths(label)
        return try ChildProcess(executable: Binaries.reliability, arguments: arguments, directory: workspace.root,
                                stdoutPath: output.stdout, stderrPath: output.stderr)
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass; errors count as "not yet".
func waitUntil(timeout: Double, _ condition: () throws -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return true }
        usleep(20_000)
    }
    return (try? condition()) == true
}

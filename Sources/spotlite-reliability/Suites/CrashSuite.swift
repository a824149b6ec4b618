import SpotliteTooling
import Foundation
import GRDB
import Spotlite

/// Crash consistency: runs `index update`, `index rebuild`, `index watch`, `import`, a library writer and a plain
/// `sqlite3` writer in child processes, kills each with SIGKILL at a random moment of its run (and an update right
/// after a random shard commit, between the commits of the shards of one batch, also inside one transaction bigger
/// than a batch), then completes an `index update` and checks the invariant (``InvariantChecker``, with the `rev`
/// ledger: no commit without its history), plus: the recovery never needs a rebuild, an import leaves only whole
/// batches, and an update killed inside a large transaction resumes after the last piece every shard committed.
struct CrashSuite {
    struct Settings {
        var trials: Int
        var records: Int
        var sharedKeys: Int
        /// Transactions of a killed writer's run (it is usually killed before the end).
        var writerTransactions: Int
        var importLines: Int
        var importBatch: Int

        static func forMode(long: Bool) -> Settings {
            long ? Settings(trials: 120, records: 2000, sharedKeys: 500, writerTransactions: 300, importLines: 1500, importBatch: 25)
                : Settings(trials: 12, records: 200, sharedKeys: 100, writerTransactions: 60, importLines: 300, importBatch: 20)
        }
    }

    enum Kind: String, CaseIterable {
        case indexUpdate = "index update"
        case indexRebuild = "index rebuild"
        case indexWatch = "index watch"
        case importer = "import"
        case libraryWriter = "library writer"
        case shellWriter = "sqlite3 writer"
        case shardCommits = "update between shard commits"
        case largeTransaction = "update inside a large transaction"
    }

    /// The index's shards: several, whatever the machine's core count, so that kills land between shard commits.
    static let shards = 3
    /// The indexer's batch size: a transaction is applied in pieces of this many changes.
    static let batchSize = 25

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    private let seed: UInt64
    /// Draws the order of the trial kinds only, so that the order never depends on what earlier trials did.
    private var random: SeededGenerator
    /// Draws one trial's choices (kill point, writers' seeds, import contents), seeded by the suite's seed and the
    /// trial's number: trial N makes the same choices in every run with the same seed.
    private var trialRandom: SeededGenerator
    private var configuration: SpotliteConfiguration
    /// How long an uninterrupted run of each kind takes: kills land uniformly over that span (and a bit past it).
    private var durations: [Kind: Double] = [:]
    private var killedMidRun: [Kind: Int] = [:]
    private var finishedFirst: [Kind: Int] = [:]
    private var maximumLeftoverGenerations = 0
    private var recoverySeconds: [Double] = []
    private var checkedRows = 0

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        self.seed = seed
        random = SeededGenerator(seed: seed)
        trialRandom = Self.trialGenerator(seed: seed, trial: 0)
        try workspace.write(ItemModel.configuration(storePath: workspace.storePath, indexPath: workspace.indexPath,
                                                    batchSize: Self.batchSize, shards: Self.shards), to: "spotlite.toml")
        configuration = try workspace.loadConfiguration()
    }

    mutating func run() throws {
        try prepare()
        var cycle: [Kind] = []
        for trial in 1...settings.trials {
            if cycle.isEmpty { cycle = Kind.allCases.shuffled(using: &random) }
            try runTrial(trial, kind: cycle.removeLast())
        }
        let kills = Kind.allCases.map { "\($0.rawValue) \(killedMidRun[$0, default: 0])/\(killedMidRun[$0, default: 0] + finishedFirst[$0, default: 0])" }
        report.figure("trials", settings.trials)
        report.figure("killed mid-run", Format.number(killedMidRun.values.reduce(0, +)) + " (the others finished before the kill)")
        report.figure("kills by kind", kills.joined(separator: ", "))
        report.figure("recovery update", recoverySeconds.isEmpty ? "-" : "median \(Format.seconds(recoverySeconds.sorted()[recoverySeconds.count / 2])), max \(Format.seconds(recoverySeconds.max()!))")
        report.figure("rows checked", Format.number(checkedRows) + " (every trial compares every row with its document)")
        report.figure("leftover generations", "at most \(maximumLeftoverGenerations) beside the live one (killed rebuilds, removed by the next rebuild)")
        report.figure("uninterrupted runs", Kind.allCases.map { "\($0.rawValue) \(Format.seconds(durations[$0] ?? 0))" }.joined(separator: ", "))
    }

    static func trialGenerator(seed: UInt64, trial: Int) -> SeededGenerator {
        var mixer = SeededGenerator(seed: seed ^ (UInt64(trial) &* 0xD1B5_4A32_D192_ED03))
        return mixer.split()
    }

    // MARK: - Set-up

    /// Imports the first records, builds the index, and times one uninterrupted run of each kind.
    private mutating func prepare() throws {
        var records = RecordGenerator(random: random.split())
        var lines = (0..<settings.sharedKeys).map { records.item(id: WriteScript.sharedKey($0)).jsonLine }
        lines += (0..<settings.records).map { records.item(id: "r-\($0)").jsonLine }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: "initial.jsonl")
        let imported = try workspace.runSpotlite(["import", workspace.path("initial.jsonl"), "--entity", "Item", "--batch", "200"])
        guard imported.succeeded else { throw HarnessError("the initial import failed: \(imported.errorLine)") }
        let built = try workspace.runSpotlite(["index", "rebuild", "--json"])
        guard built.succeeded else { throw HarnessError("the first index build failed: \(built.errorLine)") }
        durations[.indexRebuild] = built.termination.seconds
        durations[.indexWatch] = built.termination.seconds

        durations[.libraryWriter] = try runToCompletion(try startLibraryWriter(namespace: "c", seed: trialRandom.next())).seconds
        durations[.shellWriter] = try runToCompletion(try startShellWriter(namespace: "d", seed: trialRandom.next())).seconds
        durations[.importer] = try runToCompletion(try startImport(prefix: "calibration", context: "calibration")).seconds
        let update = try workspace.runSpotlite(["index", "update", "--json"])
        guard update.succeeded else { throw HarnessError("the calibration update failed: \(update.errorLine)") }
        durations[.indexUpdate] = max(update.termination.seconds, 0.05)
        let outcome = try InvariantChecker(configuration: configuration).check()
        report.record("set-up: import, build, one run of each writer, update", problems: outcome.problems)
    }

    private func runToCompletion(_ child: ChildProcess) throws -> ChildProcess.Termination {
        let ended = child.wait()
        guard ended.succeeded else {
            throw HarnessError("\(child.arguments.dropFirst().prefix(3).joined(separator: " ")) failed: \(child.stderr)")
        }
        return ended
    }

    // MARK: - Trials

    private mutating func runTrial(_ trial: Int, kind: Kind) throws {
        var problems: [String] = []
        trialRandom = Self.trialGenerator(seed: seed, trial: trial)
        // The kill lands at a seeded fraction of the kind's usual run (a little past its end, sometimes).
        let fraction = trialRandom.unit() * 1.1
        let delay = fraction * (durations[kind] ?? 1) + 0.002
        var importContext: String?
        var background: ChildProcess?
        var shardCommits: Int?
        var largeRows: Int?
        let child: ChildProcess
        switch kind {
        case .indexUpdate:
            try mutate(trial: trial)
            child = try workspace.startSpotlite(["index", "update", "--json"])
        case .indexRebuild:
            if trialRandom.chance(0.5) { try mutate(trial: trial) }
            child = try workspace.startSpotlite(["index", "rebuild", "--json"])
        case .indexWatch:
            child = try workspace.startSpotlite(["index", "watch", "--json"])
            background = try startShellWriter(namespace: "w\(trial)", seed: trialRandom.next())
        case .importer:
            importContext = "trial-\(trial)"
            child = try startImport(prefix: "i\(trial)", context: importContext!)
        case .libraryWriter:
            child = try startLibraryWriter(namespace: "l\(trial)", seed: trialRandom.next())
        case .shellWriter:
            child = try startShellWriter(namespace: "p\(trial)", seed: trialRandom.next())
        case .shardCommits, .largeTransaction:
            if kind == .shardCommits {
                try mutate(trial: trial)
                // An update of a few batches commits each batch in every shard: it dies right after one of those.
                shardCommits = 1 + trialRandom.int(below: Self.shards * 4)
            } else {
                let rows = try writeLargeTransaction(trial: trial)
                largeRows = rows
                // Every piece of the transaction is committed by every shard: die right after one of those commits.
                let pieces = (rows + Self.batchSize - 1) / Self.batchSize
                shardCommits = 1 + trialRandom.int(below: max(1, pieces * Self.shards))
            }
            let output = workspace.outputPaths("shard-crash-\(trial)")
            child = try ChildProcess(
                executable: Binaries.reliability,
                arguments: ["update-killed-between-shard-commits", "--config", workspace.configurationPath,
                            "--after-commits", String(shardCommits!)],
                directory: workspace.root, stdoutPath: output.stdout, stderrPath: output.stderr)
        }
        if kind == .shardCommits || kind == .largeTransaction {
            // It kills itself; an update with fewer commits than drawn finishes on its own.
            let ended = child.wait()
            if ended.signal == SIGKILL {
                killedMidRun[kind, default: 0] += 1
            } else {
                finishedFirst[kind, default: 0] += 1
                if !ended.succeeded { problems.append("\(kind.rawValue) failed (\(ended)): \(child.stderr.prefix(300))") }
            }
        } else {
            usleep(UInt32(delay * 1_000_000))
            if child.poll() == nil {
                child.kill(SIGKILL)
                let ended = child.wait()
                if ended.signal == SIGKILL { killedMidRun[kind, default: 0] += 1 } else { finishedFirst[kind, default: 0] += 1 }
            } else {
                finishedFirst[kind, default: 0] += 1
                // It ran shorter than expected: aim the next kills of this kind within its real length.
                if let ended = child.termination { durations[kind] = ended.seconds }
                if kind != .indexWatch, let ended = child.termination, !ended.succeeded {
                    problems.append("\(kind.rawValue) failed before the kill (\(ended)): \(child.stderr.prefix(300))")
                }
            }
        }
        if let background {
            let ended = background.wait()
            if !ended.succeeded { problems.append("the writer beside the watcher failed: \(background.stderr.prefix(300))") }
        }
        let (recoveryProblems, recovery) = try recover()
        problems += recoveryProblems
        if let importContext { problems += try checkWholeBatches(context: importContext) }
        if let largeRows, let shardCommits, let recovery {
            // Pieces are committed one after the other, each by every shard before the next is read: after k shard
            // commits, k / shards pieces are in every shard, and the recovery reads only the changes after them. When
            // the kill lands inside a piece, the shard still to count its commit may have committed it already.
            let whole = shardCommits / Self.shards
            let pieces = shardCommits % Self.shards == 0 ? [whole] : [whole, whole + 1]
            let expected = pieces.map { max(0, largeRows - Self.batchSize * $0) }
            let read = recovery["changes"] as? Int ?? -1
            if !expected.contains(read) {
                problems.append("killed after shard commit \(shardCommits) inside a \(largeRows)-change transaction, the recovery read \(read) changes, expected \(expected.map(String.init).joined(separator: " or ")) (resuming after the last piece every shard committed)")
            }
        }
        let description = shardCommits.map {
            largeRows.map { rows in "trial \(trial): kill an update of one \(rows)-change transaction right after shard commit \(shardCommits!)" }
                ?? "trial \(trial): kill an update right after shard commit \($0)"
        }
            ?? "trial \(trial): kill \(kind.rawValue) at \(Int(fraction * 100))% of its usual run (\(Int(delay * 1000)) ms)"
        report.record(description, problems: problems)
    }

    /// Writes a little through one of the writers, so that the next update has history to apply.
    private mutating func mutate(trial: Int) throws {
        let child: ChildProcess
        switch trialRandom.int(below: 3) {
        case 0: child = try startLibraryWriter(namespace: "m\(trial)", seed: trialRandom.next(), transactions: 20)
        case 1: child = try startShellWriter(namespace: "m\(trial)", seed: trialRandom.next(), transactions: 20)
        default: child = try startImport(prefix: "m\(trial)", context: "mutation-\(trial)", lines: settings.importLines / 3)
        }
        _ = try runToCompletion(child)
    }

    /// Brings the index up to date, then updates half of the initial records (which no writer deletes, so the
    /// transaction's size, and with it the trial, follows from the seed) in one transaction with the `sqlite3` shell
    /// (each row's `rev` moves with it); returns how many rows it changed.
    private mutating func writeLargeTransaction(trial: Int) throws -> Int {
        let update = try workspace.runSpotlite(["index", "update", "--json"])
        guard update.succeeded else { throw HarnessError("the update before the large transaction failed: \(update.errorLine)") }
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        let selection = "id LIKE 'r-%' AND CAST(substr(id, 3) AS INTEGER) % 2 = \(trial % 2)"
        let rows = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Item WHERE \(selection)") ?? 0 }
        let written = try workspace.sqlite("UPDATE Item SET body = coalesce(body, '') || ' large\(trial)', rev = rev + 1 WHERE \(selection);\n")
        guard written.succeeded else { throw HarnessError("the large transaction failed: \(written.errorLine)") }
        return rows
    }

    /// Completes an update after the kill and checks everything; returns the problems and the update's summary.
    private mutating func recover() throws -> ([String], [String: Any]?) {
        var problems: [String] = []
        let update = try workspace.runSpotlite(["index", "update", "--json"], timeout: 600)
        guard update.succeeded, let summary = update.jsonObject else {
            return (["the update after the kill failed (\(update.termination)): \(update.errorLine)"], nil)
        }
        recoverySeconds.append(update.termination.seconds)
        if summary["rebuilt"] as? Bool == true {
            problems.append("the update after the kill had to rebuild: \(summary["reason"] as? String ?? "no reason given")")
        }
        let directory = IndexLayout(path: workspace.indexPath)
        maximumLeftoverGenerations = max(maximumLeftoverGenerations, directory.generationCount - 1)
        let outcome = try InvariantChecker(configuration: configuration).check()
        checkedRows += outcome.rows
        return (problems + outcome.problems, summary)
    }

    /// Every history transaction of an import holds exactly one batch (or the final remainder): never half of one.
    private func checkWholeBatches(context: String) throws -> [String] {
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        let sizes = try store.read { db in
            try Int.fetchAll(db, sql: """
                SELECT count(c.id) FROM spotlite_transaction t
                JOIN spotlite_change c ON \(ChangeRanges.changeOfTransaction(rangesKept: try ChangeRanges.areKept(db)))
                WHERE t.context = ? GROUP BY t.token ORDER BY t.token
                """, arguments: [context])
        }
        let batch = settings.importBatch
        let remainder = settings.importLines % batch
        for (index, size) in sizes.enumerated() where size != batch {
            let isLastOfFile = index == settings.importLines / batch && size == remainder
            if !isLastOfFile { return ["import transaction \(index + 1) of \(context) holds \(size) changes, not a whole batch of \(batch)"] }
        }
        return []
    }

    // MARK: - Children

    private mutating func startLibraryWriter(namespace: String, seed: UInt64, transactions: Int? = nil) throws -> ChildProcess {
        let output = workspace.outputPaths("writer-\(namespace)")
        return try ChildProcess(
            executable: Binaries.reliability,
            arguments: ["writer", "--config", workspace.configurationPath, "--author", "writer-a", "--namespace", namespace,
                        "--seed", String(seed), "--transactions", String(transactions ?? settings.writerTransactions),
                        "--shared-keys", String(settings.sharedKeys)],
            directory: workspace.root, stdoutPath: output.stdout, stderrPath: output.stderr)
    }

    private mutating func startShellWriter(namespace: String, seed: UInt64, transactions: Int? = nil) throws -> ChildProcess {
        let script = WriteScript(seed: seed, namespace: namespace, sharedKeys: settings.sharedKeys)
        try workspace.write(script.shellScript(0..<(transactions ?? settings.writerTransactions)), to: "logs/\(namespace).sql")
        let output = workspace.outputPaths("sqlite3-\(namespace)")
        return try ChildProcess(executable: try Binaries.sqlite3(), arguments: [workspace.storePath],
                                stdinPath: workspace.path("logs/\(namespace).sql"),
                                stdoutPath: output.stdout, stderrPath: output.stderr)
    }

    private mutating func startImport(prefix: String, context: String, lines: Int? = nil) throws -> ChildProcess {
        let generator = ImportFileGenerator(configuration: configuration)
        let content = try generator.lines(lines ?? settings.importLines, prefix: prefix, random: &trialRandom)
        try workspace.write(content.joined(separator: "\n") + "\n", to: "logs/\(prefix).jsonl")
        return try workspace.startSpotlite(["import", workspace.path("logs/\(prefix).jsonl"), "--entity", "Item",
                                            "--batch", String(settings.importBatch), "--context", context])
    }
}

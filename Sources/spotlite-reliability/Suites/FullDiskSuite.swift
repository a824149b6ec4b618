import SpotliteTooling
import Foundation
import Glibc
import Spotlite

/// Full and read-only disks: the store and the index on a small tmpfs (mounted by the suite, which needs root: it
/// skips with a message otherwise). Each trial builds a store and an index, fills the disk to a few kilobytes with a
/// ballast file, and runs `import`, a `sqlite3` update, `index update`, `index rebuild`, `index watch` beside an
/// import, `history clean` and `search` in a seeded order; then the same on a read-only disk; after each step no process aborted, `xapian-check` passes on every shard, and no
/// failed generation is left behind. Once space returns, one `index update` makes the index equal the store.
struct FullDiskSuite {
    struct Settings {
        var trials: Int
        /// Size of the tmpfs in megabytes: room for the first import and index, before the ballast fills it.
        var megabytes: Int
        /// Kilobytes the ballast leaves free, drawn per round: from nothing to a few batches' worth.
        var leftKilobytes: [Int]
        /// Lines of the first import of a trial.
        var records: Int

        static func forMode(long: Bool) -> Settings {
            long ? Settings(trials: 30, megabytes: 96, leftKilobytes: [0, 16, 64, 256, 1024, 3072, 8192], records: 8000)
                : Settings(trials: 2, megabytes: 48, leftKilobytes: [0, 256, 1024], records: 2000)
        }
    }

    /// What a step may answer on a full or read-only disk: success, or a clean failure.
    enum Step: String, CaseIterable {
        case importer = "import"
        case foreignWrite = "sqlite3 update"
        case update = "index update"
        case rebuild = "index rebuild"
        case watch = "index watch"
        case clean = "history clean"
        case search = "search"
    }

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    private let seed: UInt64
    private var random: SeededGenerator
    private var steps = 0
    private var failedCleanly: [Step: Int] = [:]
    private var succeeded: [Step: Int] = [:]
    private var shardChecks = 0
    private var catchUpSeconds: [Double] = []

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        self.seed = seed
        random = SeededGenerator(seed: seed)
    }

    mutating func run() throws {
        if let reason = SmallFileSystem.unavailableReason {
            report.log("skipped: \(reason)")
            report.figure("full disk", "skipped: \(reason)")
            return
        }
        for trial in 1...settings.trials {
            try runTrial(trial)
        }
        report.figure("trials", settings.trials)
        report.figure("steps", "\(Format.number(steps)) run, \(shardChecks) shard checks by xapian-check")
        report.figure("clean failures", Step.allCases.map { "\($0.rawValue) \(failedCleanly[$0, default: 0])/\(failedCleanly[$0, default: 0] + succeeded[$0, default: 0])" }.joined(separator: ", "))
        if !catchUpSeconds.isEmpty {
            report.figure("catch-up update", "median \(Format.seconds(catchUpSeconds.sorted()[catchUpSeconds.count / 2])), max \(Format.seconds(catchUpSeconds.max()!))")
        }
    }

    // MARK: - One trial

    private mutating func runTrial(_ trial: Int) throws {
        var trialRandom = CrashSuite.trialGenerator(seed: seed, trial: trial)
        let shards = trialRandom.int(in: 1...3)
        let disk = try SmallFileSystem(megabytes: settings.megabytes, at: workspace.path("disk-\(trial)"))
        defer { disk.unmount() }
        let storePath = disk.path + "/store.sqlite", indexPath = disk.path + "/search"
        let name = "trial-\(trial)"
        try FileManager.default.createDirectory(atPath: workspace.path(name), withIntermediateDirectories: true)
        try workspace.write(ItemModel.configuration(storePath: storePath, indexPath: indexPath, batchSize: 200,
                                                    shards: shards), to: name + "/spotlite.toml")
        let configurationPath = workspace.path(name + "/spotlite.toml")
        let configuration = try SpotliteConfiguration(contentsOf: configurationPath)
        var problems: [String] = []
        var context = TrialContext(configurationPath: configurationPath, indexPath: indexPath,
                                   label: "trial \(trial) (\(shards) shard\(shards == 1 ? "" : "s"))")

        // Room first: a store and an index to keep safe.
        var records = RecordGenerator(random: trialRandom.split())
        let lines = (0..<settings.records).map { index -> String in
            var item = records.item(id: "t\(trial)-\(index)")
            item.body = records.text(words: 60 + records.int(in: 0...120))
            return item.jsonLine
        }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: name + "/initial.jsonl")
        let first = try workspace.runSpotlite(["import", workspace.path(name + "/initial.jsonl"), "--entity", "Item", "--batch", "500"],
                                              configuration: configurationPath)
        let built = try workspace.runSpotlite(["index", "update"], configuration: configurationPath)
        guard first.succeeded, built.succeeded else {
            throw HarnessError("\(context.label): the first import and update did not fit in \(settings.megabytes) MB: \(first.errorLine) \(built.errorLine)")
        }

        // Full by a ballast file leaving a seeded few kilobytes, then each step in a seeded order.
        for round in 0..<2 {
            let left = trialRandom.pick(settings.leftKilobytes)
            context.label = "trial \(trial) (\(shards) shard\(shards == 1 ? "" : "s"), round \(round + 1), \(left) KB left)"
            let generator = ImportFileGenerator(configuration: configuration)
            var more = try generator.lines(400, prefix: "t\(trial)-r\(round)", random: &trialRandom)
            more += (0..<600).map { index in
                var item = records.item(id: "t\(trial)-r\(round)-big-\(index)")
                item.body = records.text(words: 200)
                return item.jsonLine
            }
            try workspace.write(more.joined(separator: "\n") + "\n", to: name + "/more-\(round).jsonl")
            try disk.fill(leaving: left)
            for kind in [Step.importer, .foreignWrite, .update, .rebuild, .watch, .clean, .search].shuffled(using: &trialRandom) {
                switch kind {
                case .importer:
                    try step(.importer, ["import", workspace.path(name + "/more-\(round).jsonl"), "--entity", "Item", "--batch", "100"],
                             &context, &problems)
                case .foreignWrite:
                    let run = try workspace.sqlite("UPDATE Item SET body = body || ' ' || title, rev = rev + 1 WHERE n % 3 = \(round);",
                                                   database: storePath)
                    steps += 1
                    if run.succeeded { succeeded[.foreignWrite, default: 0] += 1 } else { failedCleanly[.foreignWrite, default: 0] += 1 }
                case .update: try step(.update, ["index", "update"], &context, &problems)
                case .rebuild: try step(.rebuild, ["index", "rebuild"], &context, &problems)
                case .watch: try watchStep(beside: name + "/more-\(round).jsonl", &context, &problems)
                case .clean: try step(.clean, ["history", "clean"], &context, &problems)
                case .search: try step(.search, ["search", "--json", "--limit", "3", records.word()], &context, &problems)
                }
            }
            disk.release()
        }
        context.label = "trial \(trial) (\(shards) shard\(shards == 1 ? "" : "s"))"

        // Read-only: every step fails cleanly or answers (searches do).
        try disk.setReadOnly(true)
        context.readOnly = true
        for (kind, arguments) in [(Step.update, ["index", "update"]), (.rebuild, ["index", "rebuild"]),
                                  (.importer, ["import", workspace.path(name + "/more-0.jsonl"), "--entity", "Item"]),
                                  (.clean, ["history", "clean"]), (.search, ["search", "--json", records.word()])] {
            try step(kind, arguments, &context, &problems)
        }
        try disk.setReadOnly(false)
        context.readOnly = false
        problems += try checkShards(&context)

        // Space returns: one update catches up, and the index equals the store.
        disk.release()
        try disk.resize(megabytes: 512)
        let catchUp = try workspace.runSpotlite(["index", "update", "--json"], configuration: configurationPath)
        steps += 1
        if !catchUp.succeeded {
            problems.append("\(context.label): the update once space returned failed (\(catchUp.termination)): \(catchUp.errorLine)")
        } else {
            catchUpSeconds.append(catchUp.termination.seconds)
        }
        problems += try checkShards(&context)
        do {
            let outcome = try InvariantChecker(configuration: configuration)
                .check(InvariantChecker.Options(expectCaughtUp: true, ledger: false, keyLookups: 100))
            problems += outcome.problems.map { "\(context.label), once space returned: \($0)" }
        } catch {
            problems.append("\(context.label): the invariant check could not run: \(error)")
        }
        report.record("\(context.label): import, update, rebuild, watch, clean and search on a full and a read-only disk; caught up once space returned",
                      problems: problems)
        try? FileManager.default.removeItem(atPath: workspace.path(name))
    }

    private struct TrialContext {
        var configurationPath: String
        var indexPath: String
        var label: String
        /// xapian-check opens the tables for writing: on a read-only disk the shards are checked once it is writable.
        var readOnly = false
    }

    /// Runs one step, then checks what a full disk must never do: abort, say nothing, damage a shard, leave a
    /// failed generation behind.
    private mutating func step(_ kind: Step, _ arguments: [String], _ context: inout TrialContext,
                               _ problems: inout [String]) throws {
        let run = try workspace.runSpotlite(arguments, configuration: context.configurationPath, timeout: 600)
        problems += judge(kind, run, context)
        problems += try checkShards(&context)
    }

    /// `index watch` beside an import of the same disk, stopped with SIGTERM after a moment.
    private mutating func watchStep(beside importFile: String, _ context: inout TrialContext,
                                    _ problems: inout [String]) throws {
        let watcher = try workspace.startSpotlite(["index", "watch"], configuration: context.configurationPath)
        let writer = try workspace.runSpotlite(["import", workspace.path(importFile), "--entity", "Item", "--batch", "50"],
                                               configuration: context.configurationPath, timeout: 600)
        problems += judge(.importer, writer, context)
        usleep(1_500_000)
        watcher.kill(SIGTERM)
        let watched = workspace.finish(watcher, timeout: 60)
        problems += judge(.watch, watched, context)
        problems += try checkShards(&context)
    }

    private mutating func judge(_ kind: Step, _ run: Workspace.Run, _ context: TrialContext) -> [String] {
        steps += 1
        var problems: [String] = []
        let name = "\(context.label): \(kind.rawValue)"
        if let signal = run.termination.signal, !(kind == .watch && signal == SIGTERM) {
            problems.append("\(name) ended by signal \(signal): \(run.stderr.suffix(400))")
        } else if run.termination.exitStatus == 134 || run.stderr.contains("terminate called") {
            problems.append("\(name) aborted: \(run.stderr.suffix(400))")
        } else if run.termination.timedOut {
            problems.append("\(name) hung")
        } else if run.succeeded || (kind == .watch && (run.termination.exitStatus == 0 || run.termination.signal == SIGTERM)) {
            succeeded[kind, default: 0] += 1
        } else {
            failedCleanly[kind, default: 0] += 1
            if run.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problems.append("\(name) failed (\(run.termination)) without a word")
            }
        }
        return problems
    }

    /// `xapian-check` on every shard of the live generation, and no generation beside it.
    private mutating func checkShards(_ context: inout TrialContext) throws -> [String] {
        let layout = IndexLayout(path: context.indexPath)
        var problems: [String] = []
        if context.readOnly { return problems }
        if layout.generationCount > 1 {
            problems.append("\(context.label): \(layout.generationCount) generations on disk (\(layout.generationNames.joined(separator: ", "))): a failed one was left behind")
        }
        for shard in layout.liveDatabasePaths {
            shardChecks += 1
            let ended = try workspace.run("/usr/bin/xapian-check", [shard], label: "xapian-check", timeout: 300)
            if !ended.termination.succeeded {
                problems.append("\(context.label): xapian-check \(shard) failed: \(ended.stdout.suffix(400)) \(ended.stderr.suffix(200))")
            }
        }
        return problems
    }
}

import ArgumentParser
import Foundation
import Spotlite
import SpotliteTooling

/// The suite: prepares the corpus, runs the chosen figures in order, prints the table, writes the JSON.
struct SuiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the benchmark suite (the default).")

    @Option(help: "The corpus: JSON Lines, optionally .xz-compressed.")
    var corpus = "../shared/corpus/debian-packages.jsonl.xz"
    @Option(help: "The Spotlite configuration whose entity and fields are indexed.")
    var config = "config/spotlite.toml"
    @Option(help: "The entity the corpus holds (default: the configuration's first).")
    var entity: String?
    @Option(help: "Write every measurement as JSON to this file.")
    var jsonOutput: String?
    @Option(help: "Use only the first N records of the corpus.")
    var limit: Int?
    @Option(help: "Repetitions of the quick figures (capture overhead).")
    var runs = 5
    @Option(help: "Repetitions of the slow figures (rebuilds, incremental updates, query passes).")
    var slowRuns = 3
    @Option(help: "Ad-hoc queries for the latency figures.")
    var queries = 1000
    @Option(help: "Known-item queries for the relevance figure.")
    var knownItems = 500
    @Option(help: "Single-row writes of the freshness figure.")
    var freshnessWrites = 500
    @Option(help: "Milliseconds between two writes of the freshness figure.")
    var freshnessIntervalMs = 20
    @Option(help: "Probe records of the serve figure, each searched through the server until found.")
    var serveProbes = 100
    @Flag(help: "Serve figure: also measure a commit searchable by meaning (needs [embeddings]; embeds every record first).")
    var serveSemantic = false
    @Option(help: "Single-row transactions of the incremental figure.")
    var singleRowTransactions = 1000
    @Option(help: "Rows of the batch transaction of the incremental figure.")
    var batchRows = 10_000
    @Option(help: "Records of the raw engine-lever builds of the rebuild figure.")
    var leverRecords = 12_000
    @Option(help: "Rows of the one transaction of the large-transaction figure (run with --scale).")
    var largeTransactionRows = 1_000_000
    @Flag(help: "Also run the scale and large-transaction figures (slow).")
    var scale = false
    @Option(help: "Records of the scale figure.")
    var scaleRecords = 1_000_000
    @Option(help: "Layouts of the remote figure: loopback shard servers of each, comma-separated.")
    var remoteShards = "1,2,3,6"
    @Option(help: "Run only these figures, comma-separated: \(FigureID.allCases.map(\.rawValue).joined(separator: ",")).")
    var figures: String?
    @Option(help: "Work in this directory (default: a new temporary one, removed at the end).")
    var workDirectory: String?

    func validate() throws {
        for (name, value, minimum) in [("--runs", runs, 1), ("--slow-runs", slowRuns, 1), ("--queries", queries, 1),
                                       ("--known-items", knownItems, 1), ("--freshness-writes", freshnessWrites, 1),
                                       ("--freshness-interval-ms", freshnessIntervalMs, 0),
                                       ("--serve-probes", serveProbes, 1),
                                       ("--single-row-transactions", singleRowTransactions, 1),
                                       ("--batch-rows", batchRows, 1), ("--lever-records", leverRecords, 1),
                                       ("--scale-records", scaleRecords, 1),
                                       ("--large-transaction-rows", largeTransactionRows, 1)]
        where value < minimum {
            throw ValidationError("\(name) must be at least \(minimum), got \(value)")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, got \(limit)") }
        _ = try remoteShardCounts()
        _ = try selectedFigures()
    }

    func remoteShardCounts() throws -> [Int] {
        let counts = remoteShards.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 64 }) else {
            throw ValidationError("--remote-shards must list shard counts from 1 to 64, comma-separated (e.g. 1,2,3,6), got \"\(remoteShards)\"")
        }
        return counts.compactMap { $0 }
    }

    func selectedFigures() throws -> [FigureID] {
        guard let figures else { return FigureID.allCases.filter { ($0 != .scale && $0 != .transaction) || scale } }
        var chosen = Set<FigureID>()
        for name in figures.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let figure = FigureID(rawValue: name) else {
                throw ValidationError("unknown figure \"\(name)\" in --figures; choose among \(FigureID.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            chosen.insert(figure)
        }
        if scale { chosen.insert(.scale) }
        return FigureID.allCases.filter(chosen.contains)
    }

    func run() async throws {
        // SIGINT or SIGTERM stops every process the figures started (shard servers, children) and removes the
        // temporary work directory (a --work-directory is kept and named).
        HarnessInterruption.install(program: "spotlite-bench")
        let started = Stopwatch.nanoseconds()
        let currentDirectory = FileManager.default.currentDirectoryPath
        let configurationPath = SpotliteConfiguration.resolvePath(config, against: currentDirectory)
        let configuration = try SpotliteConfiguration(contentsOf: configurationPath, baseDirectory: currentDirectory)
        guard let entity = entity.map({ configuration.entity(named: $0) }) ?? configuration.entities.first else {
            throw BenchError(entity.map { "the configuration \(config) has no entity \($0); entities: \(configuration.entities.map(\.name).joined(separator: ", "))" }
                ?? "the configuration \(config) describes no entity; pass --config with one that does")
        }
        let work = workDirectory.map { SpotliteConfiguration.resolvePath($0, against: currentDirectory) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-bench-\(UUID().uuidString)").path
        let removeWork = workDirectory == nil
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create the work directory \(work): \(error.localizedDescription); pass a writable --work-directory")
        }
        HarnessInterruption.enter(workspace: work, keep: !removeWork, noun: "work directory")
        defer {
            HarnessInterruption.holdIfInterrupted()
            HarnessInterruption.leave()
            if removeWork { try? FileManager.default.removeItem(atPath: work) }
        }

        let settings = RunSettings(
            runs: runs, slowRuns: slowRuns, queries: queries, knownItems: knownItems, freshnessWrites: freshnessWrites,
            freshnessIntervalMilliseconds: freshnessIntervalMs, singleRowTransactions: singleRowTransactions,
            batchRows: batchRows, leverRecords: leverRecords, scale: scale, largeTransactionRows: largeTransactionRows,
            scaleRecords: scaleRecords, remoteShardCounts: try remoteShardCounts(), serveProbes: serveProbes,
            serveSemantic: serveSemantic)
        let corpusPath = SpotliteConfiguration.resolvePath(corpus, against: currentDirectory)
        Progress.note("reading \(corpusPath)")
        let prepared = try Corpus.prepare(source: corpusPath, limit: limit, key: entity.key,
                                          destination: work + "/corpus.jsonl")
        let context = BenchContext(settings: settings, configuration: configuration,
                                   configurationPath: configurationPath, entity: entity, corpus: prepared,
                                   workDirectory: work)
        var report = BenchReport(
            machine: .current(), command: CommandLine.arguments.joined(separator: " "),
            corpus: .init(path: corpusPath, records: prepared.records.count, entity: entity.name), settings: settings)
        for figure in try selectedFigures() {
            Progress.note("figure \(figure.rawValue)")
            let rows: [TableRow]
            switch figure {
            case .capture:
                let result = try CaptureOverheadFigure.run(context)
                report.capture = result
                rows = result.rows
            case .rebuild:
                let result = try RebuildFigure.run(context)
                report.rebuild = result
                rows = result.rows
            case .shards:
                let result = try ShardFigure.run(context)
                report.shards = result
                rows = result.rows
            case .remote:
                let result = try await RemoteShardFigure.run(context)
                report.remote = result
                rows = result.rows
            case .size:
                let result = try await IndexSizeFigure.run(context)
                report.size = result
                rows = result.rows
            case .query:
                let result = try await QueryLatencyFigure.run(context)
                report.query = result
                rows = result.rows
            case .cli:
                let result = try await CommandLineQueryFigure.run(context)
                report.cli = result
                rows = result.rows
            case .relevance:
                let result = try await RelevanceFigure.run(context)
                report.relevance = result
                rows = result.rows
            case .memory:
                let result = try MemoryFigure.run(context, rebuild: report.rebuild)
                report.memory = result
                rows = result.rows
            case .serve:
                let result = try await ServeFigure.run(context)
                report.serve = result
                rows = result.rows
            case .incremental:
                let result = try await IncrementalUpdateFigure.run(context)
                report.incremental = result
                rows = result.rows
            case .freshness:
                let result = try await FreshnessFigure.run(context)
                report.freshness = result
                rows = result.rows
            case .large:
                let result = try await LargeUpdateFigure.run(context)
                report.largeUpdate = result
                rows = result.rows
            case .transaction:
                let result = try LargeTransactionFigure.run(context)
                report.largeTransaction = result
                rows = result.rows
            case .scale:
                let result = try ScaleFigure.run(context)
                report.scale = result
                rows = result.rows
            }
            report.table += rows
        }
        report.totalSeconds = Double(Stopwatch.nanoseconds() - started) / 1e9
        print("Spotlite benchmarks — \(report.machine.summary)")
        print("Corpus: \(corpusPath) (\(prepared.records.count) records, entity \(entity.name)); total \(Format.seconds(report.totalSeconds))")
        print("")
        print(ResultTable.render(report.table))
        if let jsonOutput {
            try report.write(to: SpotliteConfiguration.resolvePath(jsonOutput, against: currentDirectory))
        }
    }
}

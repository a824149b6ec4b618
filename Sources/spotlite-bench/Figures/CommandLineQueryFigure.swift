import Foundation
import Spotlite
import SpotliteTooling

/// Figure 11: the command line's batch queries. The built `spotlite` binary (beside `spotlite-bench`) answers the
/// 1,000 two- and three-word queries of figure 5 from a file, `spotlite search --queries FILE`, as JSON and printed
/// for humans, top 10 with snippets cut from the store: one process per run and format, so process start is
/// included and amortised over the queries. For attribution, the JSON run again with the proximity boost off
/// (`[search] proximity = false`). Formats alternate in order from run to run; ratios are taken within a run.
enum CommandLineQueryFigure {
    struct Result: FigureResult {
        var runs: Int
        var queries: Int
        /// Whole-process wall time per query (median over runs), JSON and human output.
        var jsonMeanPerQuery: Double
        var humanMeanPerQuery: Double
        /// Whole-process CPU time per query (median over runs).
        var jsonCPUPerQuery: Double
        var humanCPUPerQuery: Double
        /// JSON time / human time, median of the per-run ratios (wall and CPU).
        var jsonToHuman: Double
        var jsonToHumanCPU: Double
        /// The JSON run with the proximity boost off: wall and CPU per query; nil when the configuration sets
        /// `[search]` itself.
        var withoutProximityMeanPerQuery: Double?
        var withoutProximityCPUPerQuery: Double?

        static let meanTarget = 0.001
        static let ratioTarget = 1.2

        var rows: [TableRow] {
            var rows = [
                TableRow("11 cli", "search --queries FILE --json, \(queries) queries, snippets (median of \(runs)): per query",
                         "\(Format.milliseconds(jsonMeanPerQuery)) (CPU \(Format.milliseconds(jsonCPUPerQuery)))",
                         target: "≤ 1 ms", met: jsonMeanPerQuery <= Self.meanTarget),
                TableRow("11 cli", "same, printed for humans: per query",
                         "\(Format.milliseconds(humanMeanPerQuery)) (CPU \(Format.milliseconds(humanCPUPerQuery)))"),
                TableRow("11 cli", "JSON / human output (wall; CPU \(Format.ratio(jsonToHumanCPU)))", Format.ratio(jsonToHuman),
                         target: "≤ 1.2×", met: jsonToHuman <= Self.ratioTarget),
            ]
            if let withoutProximityMeanPerQuery, let withoutProximityCPUPerQuery {
                rows.append(TableRow("11 cli", "JSON with [search] proximity = false, for attribution: per query",
                                     "\(Format.milliseconds(withoutProximityMeanPerQuery)) (CPU \(Format.milliseconds(withoutProximityCPUPerQuery)))"))
            }
            return rows
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        let binary = URL(fileURLWithPath: ChildProcess.currentExecutable).deletingLastPathComponent()
            .appendingPathComponent("spotlite").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no spotlite binary at \(binary); build it beside the bench with `swift build -c release --product spotlite` (make bench does)")
        }
        let queries = QueryWorkload.adHoc(records: context.corpus.records, textFields: context.textFields,
                                          count: context.settings.queries)
        guard !queries.isEmpty else {
            throw BenchError("no queries could be drawn from the corpus: its text fields hold too few words")
        }
        let queryFile = context.path("cli-queries.txt")
        try Data((queries.map(\.text).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: queryFile))

        // The proximity variant needs a [search] table of its own, which a configuration that has one already
        // cannot take twice.
        var withoutProximityConfiguration: String?
        let configurationText = try String(contentsOfFile: context.configurationPath, encoding: .utf8)
        if !configurationText.contains("[search]") {
            let path = context.path("cli-no-proximity.toml")
            try Data((configurationText + "\n[search]\nproximity = false\n").utf8).write(to: URL(fileURLWithPath: path))
            withoutProximityConfiguration = path
        }

        func search(json: Bool, configuration: String) throws -> ChildProcess.Outcome {
            let arguments = ["search", "--queries", queryFile, "--config", configuration, "--store", context.storePath,
                             "--index", context.indexPath, "--color", "never"] + (json ? ["--json"] : [])
            let outcome = try ChildProcess.run(binary, arguments)
            // 1: no query found anything, which the workload's queries (drawn from records) never do.
            guard outcome.status == 0 else {
                throw BenchError("`spotlite \(arguments.joined(separator: " "))` exited with status \(outcome.status) (its error is above)")
            }
            return outcome
        }

        var json: [ChildProcess.Outcome] = [], human: [ChildProcess.Outcome] = [], plain: [ChildProcess.Outcome] = []
        for run in 0..<context.settings.slowRuns {
            if run % 2 == 0 {
                json.append(try search(json: true, configuration: context.configurationPath))
                human.append(try search(json: false, configuration: context.configurationPath))
            } else {
                human.append(try search(json: false, configuration: context.configurationPath))
                json.append(try search(json: true, configuration: context.configurationPath))
            }
            if let withoutProximityConfiguration {
                plain.append(try search(json: true, configuration: withoutProximityConfiguration))
            }
            Progress.note(String(format: "cli run %d/%d: JSON %.3f ms a query, human %.3f ms", run + 1,
                                 context.settings.slowRuns, json.last!.seconds * 1000 / Double(queries.count),
                                 human.last!.seconds * 1000 / Double(queries.count)))
        }
        let count = Double(queries.count)
        func perQuery(_ outcomes: [ChildProcess.Outcome], _ value: (ChildProcess.Outcome) -> Double) -> Double {
            Statistics.median(outcomes.map { value($0) / count })
        }
        return Result(
            runs: json.count, queries: queries.count,
            jsonMeanPerQuery: perQuery(json, \.seconds), humanMeanPerQuery: perQuery(human, \.seconds),
            jsonCPUPerQuery: perQuery(json, \.cpuSeconds), humanCPUPerQuery: perQuery(human, \.cpuSeconds),
            jsonToHuman: Statistics.median(zip(json, human).map { $0.seconds / $1.seconds }),
            jsonToHumanCPU: Statistics.median(zip(json, human).map { $0.cpuSeconds / $1.cpuSeconds }),
            withoutProximityMeanPerQuery: plain.isEmpty ? nil : perQuery(plain, \.seconds),
            withoutProximityCPUPerQuery: plain.isEmpty ? nil : perQuery(plain, \.cpuSeconds))
    }
}

import Foundation
import SpotliteTooling

/// What `spotlite-bench relevance` prints and writes as JSON.
struct RelevanceReportOutput: Codable {
    var collection: String
    var documents: Int
    var queries: Int
    var depth: Int
    var machine: String
    var command: String
    var runs: [RelevanceRun]
    var bestPeer: String
    var comparison: QueryComparison
    var timing: ExpansionTiming
    var knownItems: Int
    var spotliteKnownItemMRR: Double?
    var levers: [RelevanceLever]
    var spelling: [SpellingEvaluation] = []
    /// `--mode` with semantic or hybrid: the modes side by side.
    var modes: SearchModeEvaluation?

    var rendered: String {
        func row(_ label: String, _ metrics: RankingMetrics) -> String {
            "| \(label) | \(Format.fraction(metrics.averagePrecision)) | \(Format.fraction(metrics.ndcgAt10)) | "
                + "\(Format.fraction(metrics.precisionAt10)) | \(Format.fraction(metrics.recall)) |"
        }
        var lines = [
            "Relevance on \(collection): \(documents) documents, \(queries) judged queries, top \(depth) — \(machine)",
            "",
            "| engine | MAP | nDCG@10 | P@10 | recall@\(depth) |",
            "|---|---|---|---|---|",
        ]
        lines += runs.map { row($0.engine, $0.mean) }
        lines.append("")
        lines.append("Spotlite vs the best peer (\(bestPeer)), query by query (average precision): "
            + "\(comparison.wins) better, \(comparison.losses) worse, \(comparison.ties) level.")
        if let spotliteKnownItemMRR {
            lines.append("Known items (\(knownItems) queries of 2–3 words of one document): Spotlite MRR@10 "
                + Format.fraction(spotliteKnownItemMRR) + ".")
        }
        let unexpanded = timing.unexpanded.mean
        func cost(_ label: String, _ summary: LatencySummary) -> String {
            "| \(label) | \(Format.milliseconds(summary.mean)) | \(Format.milliseconds(summary.p50)) | "
                + "\(Format.milliseconds(summary.p99)) | \(Format.ratio(summary.mean / unexpanded)) |"
        }
        lines += [
            "",
            "Query cost, top 10 without snippets (\(timing.queries) queries, median of passes; the configured expansion "
                + "applied to \(timing.expandedQueries) of them):",
            "",
            "| Spotlite | mean | p50 | p99 | mean vs unexpanded |",
            "|---|---|---|---|---|",
            cost("expansion off", timing.unexpanded),
            cost("configured expansion", timing.configured),
            cost("expansion on every query", timing.everyQueryExpanded),
        ]
        if !levers.isEmpty {
            lines += ["", "Ablation (Spotlite variants, same index):", ""]
            let knownItemColumn = levers.contains { $0.knownItemMRR != nil }
            lines.append("| ranking | MAP | nDCG@10 | P@10 | recall@\(depth) |" + (knownItemColumn ? " known-item MRR@10 |" : ""))
            lines.append("|---|---|---|---|---|" + (knownItemColumn ? "---|" : ""))
            for lever in levers {
                lines.append(row(lever.label, lever.mean) + (lever.knownItemMRR.map { " \(Format.fraction($0)) |" } ?? ""))
            }
        }
        return lines.joined(separator: "\n")
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: path))
        } catch {
            throw BenchError("cannot write \(path): \(error.localizedDescription); check the directory exists and is writable")
        }
    }
}

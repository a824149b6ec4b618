import Foundation
import SpotliteHybrid
import SpotliteTooling

/// Keyword, semantic and hybrid answers to the same queries, scored side by side in one run, with each mode's
/// latency; and, when asked, hybrid over a grid of fusion settings so that the defaults can be chosen on several
/// collections at once.
struct SearchModeEvaluation: Codable {
    /// One mode's scores and latency.
    struct Row: Codable {
        var mode: String
        var mean: RankingMetrics
        var mrrAt10: Double
        var knownItemMRR: Double?
        /// Top 10, end to end (query embedding included), seconds.
        var latency: LatencySummary
    }

    /// Hybrid with one ranking.
    struct FusionPoint: Codable {
        /// The ranking, as `--fusion-grid` prints it.
        var setting: String
        /// Each list's length before fusion (N).
        var depth: Int
        var mean: RankingMetrics
        var mrrAt10: Double
        var knownItemMRR: Double?
    }

    var fusion: FusionPoint
    var rows: [Row]
    var grid: [FusionPoint]
    /// One query embedding alone, seconds.
    var embeddingLatency: LatencySummary
    var semanticDocuments: Int
    var embeddedThisRun: Bool
    var embeddedDocuments: Int
    var embeddingSeconds: Double
    var embeddingTokens: Int
    var vectorFolder: String

    /// The query as the keyword engine gets it (`plain`) and as the model reads it (`text`).
    struct Query {
        var id: String
        var text: String
        var plain: String
    }

    /// The known item's query and its one right answer.
    struct KnownItem {
        var text: String
        var target: String
    }

    static func reciprocalRank(_ ranking: [String], isRelevant: (String) -> Bool) -> Double {
        guard let index = ranking.prefix(10).firstIndex(where: isRelevant) else { return 0 }
        return 1 / Double(index + 1)
    }

    static func measure(modes: [SearchMode], queries: [Query], judgements: [String: [String: Int]], knownItems: [KnownItem],
                        depth: Int, ranking: HybridRanking, fusionDepth: Int, grid: Bool, listsOutput: String? = nil,
                        keyword: (String, Int) throws -> [String], semantic: SemanticEngine) throws -> SearchModeEvaluation {
        let depths = grid ? Array(Set([10, 20, 50, 100, 200, 1000, fusionDepth])).sorted() : [fusionDepth]
        let listDepth = max(depth, depths.max()!)
        Progress.note("modes: ranking \(queries.count) queries and \(knownItems.count) known items by keyword and by meaning")
        var keywordLists: [[String]] = []
        var semanticLists: [[String]] = []
        var queryVectors: [[Float]?] = []
        for query in queries {
            keywordLists.append(try keyword(query.plain, listDepth))
            queryVectors.append(try semantic.vector(for: query.text))
            semanticLists.append(try semantic.search(queryVectors.last!, limit: listDepth))
        }
        var knownKeyword: [[String]] = []
        var knownSemantic: [[String]] = []
        var knownVectors: [[Float]?] = []
        for item in knownItems {
            knownKeyword.append(try keyword(TRECCollection.plainQuery(item.text), depths.max()!))
            knownVectors.append(try semantic.vector(for: item.text))
            knownSemantic.append(try semantic.search(knownVectors.last!, limit: depths.max()!))
        }

        if let listsOutput {
            try RankedLists(
                queries: zip(queries, zip(keywordLists, semanticLists)).map { query, lists in
                    .init(id: query.id, text: query.text, keyword: lists.0, semantic: lists.1,
                          grades: judgements[query.id] ?? [:])
                },
                knownItems: zip(knownItems, zip(knownKeyword, knownSemantic)).map { item, lists in
                    .init(text: item.text, target: item.target, keyword: lists.0, semantic: lists.1)
                }
            ).write(to: listsOutput)
        }

        func scores(_ lists: [[String]], knownLists: [[String]]) -> (RankingMetrics, Double, Double?) {
            var perQuery: [RankingMetrics] = []
            var reciprocal = 0.0
            for (query, list) in zip(queries, lists) {
                let grades = judgements[query.id] ?? [:]
                perQuery.append(RankingMetrics(ranking: list, grades: grades, depth: depth))
                reciprocal += reciprocalRank(list) { (grades[$0] ?? 0) > 0 }
            }
            var known: Double?
            if !knownItems.isEmpty {
                known = zip(knownItems, knownLists).reduce(0.0) { sum, pair in
                    sum + reciprocalRank(pair.1) { $0 == pair.0.target }
                } / Double(knownItems.count)
            }
            return (RankingMetrics.mean(perQuery), reciprocal / Double(max(1, queries.count)), known)
        }
        func point(_ ranking: HybridRanking, depth n: Int) throws -> FusionPoint {
            func fused(_ text: String, _ vector: [Float]?, _ keyword: [String], _ meaning: [String]) throws -> [String] {
                try ranking.fuse(query: text, keyword: Array(keyword.prefix(n)), semantic: Array(meaning.prefix(n))) { best in
                    guard let vector else { return nil }
                    return try Self.researched(semantic, vector: vector, movedBy: ranking, toward: best, limit: n)
                }.map(\.key)
            }
            let lists = try queries.indices.map { try fused(queries[$0].text, queryVectors[$0], keywordLists[$0], semanticLists[$0]) }
            let known = try knownItems.indices.map { try fused(knownItems[$0].text, knownVectors[$0], knownKeyword[$0], knownSemantic[$0]) }
            let (mean, mrr, knownMRR) = scores(lists, knownLists: known)
            return FusionPoint(setting: describe(ranking), depth: n, mean: mean, mrrAt10: mrr, knownItemMRR: knownMRR)
        }

        Progress.note("modes: timing each mode, top 10 (query embedding included)")
        var samples: [SearchMode: [Double]] = [:]
        var embedding: [Double] = []
        for query in queries {
            for mode in modes {
                let started = Stopwatch.nanoseconds()
                switch mode {
                case .keyword: _ = try keyword(query.plain, 10)
                case .semantic: _ = try semantic.search(query.text, limit: 10)
                case .hybrid:
                    let words = try keyword(query.plain, fusionDepth)
                    let vector = try semantic.vector(for: query.text)
                    let meaning = try semantic.search(vector, limit: fusionDepth)
                    _ = try ranking.fuse(query: query.text, keyword: words, semantic: meaning) { best in
                        guard let vector else { return nil }
                        return try Self.researched(semantic, vector: vector, movedBy: ranking, toward: best, limit: fusionDepth)
                    }.prefix(10)
                }
                samples[mode, default: []].append(Double(Stopwatch.nanoseconds() - started) / 1e9)
            }
            let started = Stopwatch.nanoseconds()
            _ = try semantic.vector(for: query.text)
            embedding.append(Double(Stopwatch.nanoseconds() - started) / 1e9)
        }

        var rows: [Row] = []
        let chosen = try point(ranking, depth: fusionDepth)
        for mode in modes {
            let latency = LatencySummary(samples: samples[mode] ?? [])
            switch mode {
            case .keyword:
                let (mean, mrr, known) = scores(keywordLists, knownLists: knownKeyword)
                rows.append(Row(mode: mode.rawValue, mean: mean, mrrAt10: mrr, knownItemMRR: known, latency: latency))
            case .semantic:
                let (mean, mrr, known) = scores(semanticLists, knownLists: knownSemantic)
                rows.append(Row(mode: mode.rawValue, mean: mean, mrrAt10: mrr, knownItemMRR: known, latency: latency))
            case .hybrid:
                rows.append(Row(mode: mode.rawValue, mean: chosen.mean, mrrAt10: chosen.mrrAt10,
                                knownItemMRR: chosen.knownItemMRR, latency: latency))
            }
        }
        var points: [FusionPoint] = []
        if grid {
            for n in depths {
                for semanticWeight in [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2] {
                    points.append(try point(.fixed(ReciprocalRankFusion(k: 60, keywordWeight: 1, semanticWeight: semanticWeight)), depth: n))
                }
                for k in [10.0, 30, 100] {
                    points.append(try point(.fixed(ReciprocalRankFusion(k: k)), depth: n))
                }
                // The product's ranking by query length, with and without feedback, and other weights for short queries.
                for shortWeight in [0.1, 0.25, 0.5] {
                    for feedback in [0, 3] {
                        var variant = HybridRanking.measured
                        variant.shortQueries.semanticWeight = shortWeight
                        variant.feedbackRecords = feedback
                        points.append(try point(variant, depth: n))
                    }
                }
            }
        }
        return SearchModeEvaluation(fusion: chosen, rows: rows, grid: points, embeddingLatency: LatencySummary(samples: embedding),
                                    semanticDocuments: semantic.documents, embeddedThisRun: semantic.embedded,
                                    embeddedDocuments: semantic.embeddedCount,
                                    embeddingSeconds: semantic.seconds, embeddingTokens: semantic.tokens,
                                    vectorFolder: semantic.folder)
    }

    /// The semantic list read again from `vector` moved toward the stored vectors of `best`.
    private static func researched(_ semantic: SemanticEngine, vector: [Float], movedBy ranking: HybridRanking,
                                 toward best: [String], limit: Int) throws -> [String] {
        try semantic.search(ranking.movedQuery(vector, toward: semantic.vectors(ofKeys: best)), limit: limit)
    }

    /// A ranking as one would describe it: "k 60, semantic weight 0.1 under 5 words, 1 from 5, feedback 3 at 1".
    static func describe(_ ranking: HybridRanking) -> String {
        let short = ranking.shortQueries
        let long = ranking.descriptiveQueries
        if short == long, ranking.feedbackRecords == 0 {
            return "k \(decimal(short.k)), weights \(decimal(short.keywordWeight)) / \(decimal(short.semanticWeight))"
        }
        var text = "k \(decimal(long.k)), weights \(decimal(short.keywordWeight)) / \(decimal(short.semanticWeight)) under "
            + "\(ranking.descriptiveWords) words, \(decimal(long.keywordWeight)) / \(decimal(long.semanticWeight)) from \(ranking.descriptiveWords)"
        text += ranking.feedbackRecords > 0
            ? ", feedback from the best \(ranking.feedbackRecords) at \(decimal(ranking.feedbackWeight))" : ", no feedback"
        return text
    }

    func rendered(depth: Int) -> String {
        let knownColumn = rows.contains { $0.knownItemMRR != nil }
        var lines = [
            "Search modes (hybrid: reciprocal rank fusion, \(fusion.setting), "
                + "top \(fusion.depth) of each list; latency top 10, query embedding included):",
            "",
            "| mode | MAP | nDCG@10 | MRR@10 | P@10 | recall@\(depth) |" + (knownColumn ? " known items MRR@10 |" : "")
                + " p50 | p99 |",
            "|---|---|---|---|---|---|" + (knownColumn ? "---|" : "") + "---|---|",
        ]
        for row in rows {
            lines.append("| \(row.mode) | \(Format.fraction(row.mean.averagePrecision)) | \(Format.fraction(row.mean.ndcgAt10)) | "
                + "\(Format.fraction(row.mrrAt10)) | \(Format.fraction(row.mean.precisionAt10)) | \(Format.fraction(row.mean.recall)) |"
                + (knownColumn ? " \(row.knownItemMRR.map(Format.fraction) ?? "") |" : "")
                + " \(Format.milliseconds(row.latency.p50)) | \(Format.milliseconds(row.latency.p99)) |")
        }
        let keyword = rows.first { $0.mode == "keyword" }?.latency.p50
        let hybrid = rows.first { $0.mode == "hybrid" }?.latency.p50
        lines.append("")
        lines.append("One query embedding alone: p50 \(Format.milliseconds(embeddingLatency.p50)), p99 "
            + "\(Format.milliseconds(embeddingLatency.p99))."
            + ((keyword != nil && hybrid != nil)
                ? " Hybrid p50 / (keyword p50 + embedding p50): \(Format.ratio(hybrid! / (keyword! + embeddingLatency.p50)))."
                : ""))
        lines.append(embeddedThisRun
            ? String(format: "Vectors: %d of %d documents embedded in this run, %d tokens in %.1f s (%.0f docs/s, %.0f tokens/s), kept in %@.",
                     embeddedDocuments, semanticDocuments, embeddingTokens, embeddingSeconds,
                     Double(embeddedDocuments) / embeddingSeconds, Double(embeddingTokens) / embeddingSeconds, vectorFolder)
            : "Vectors: \(semanticDocuments) documents, read from \(vectorFolder).")
        if !grid.isEmpty {
            lines += ["", "Fusion grid (hybrid):", "",
                      "| ranking | N | MAP | nDCG@10 | MRR@10 |" + (knownColumn ? " known items MRR@10 |" : ""),
                      "|---|---|---|---|---|" + (knownColumn ? "---|" : "")]
            for point in grid {
                lines.append("| \(point.setting) | "
                    + "\(point.depth) | \(Format.fraction(point.mean.averagePrecision)) | \(Format.fraction(point.mean.ndcgAt10)) | "
                    + "\(Format.fraction(point.mrrAt10)) |" + (knownColumn ? " \(point.knownItemMRR.map(Format.fraction) ?? "") |" : ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// 60, 0.5, 1.25: a setting as one would type it.
private func decimal(_ value: Double) -> String { String(format: "%g", value) }

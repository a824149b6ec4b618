import Foundation

/// The standard ad-hoc measures of one ranked list against graded judgements, as `trec_eval` computes them.
///
/// - average precision (over every relevant document, grade > 0; unretrieved ones count as precision 0),
/// - nDCG@10 with gains 2^grade − 1 and the ideal ranking of every judged document,
/// - precision@10 and recall at the evaluation depth.
package struct RankingMetrics: Sendable, Hashable, Codable {
    package var averagePrecision: Double
    package var ndcgAt10: Double
    package var precisionAt10: Double
    package var recall: Double

    /// The measures of `ranking` (document ids, best first; only the first `depth` count, duplicates after their
    /// first occurrence are ignored) against `grades` (document id → grade; grades ≤ 0 are not relevant).
    package init(ranking: [String], grades: [String: Int], depth: Int = 1000) {
        var seen = Set<String>()
        let ranked = ranking.filter { seen.insert($0).inserted }.prefix(max(0, depth))
        let relevantCount = grades.values.filter { $0 > 0 }.count
        var found = 0
        var precisionSum = 0.0
        for (index, document) in ranked.enumerated() where (grades[document] ?? 0) > 0 {
            found += 1
            precisionSum += Double(found) / Double(index + 1)
        }
        averagePrecision = relevantCount == 0 ? 0 : precisionSum / Double(relevantCount)
        recall = relevantCount == 0 ? 0 : Double(found) / Double(relevantCount)
        let top = Array(ranked.prefix(10))
        precisionAt10 = Double(top.filter { (grades[$0] ?? 0) > 0 }.count) / 10
        func gain(_ grade: Int) -> Double { grade > 0 ? pow(2, Double(grade)) - 1 : 0 }
        let dcg = top.enumerated().reduce(0.0) { $0 + gain(grades[$1.element] ?? 0) / log2(Double($1.offset + 2)) }
        let ideal = grades.values.filter { $0 > 0 }.sorted(by: >).prefix(10)
        let idcg = ideal.enumerated().reduce(0.0) { $0 + gain($1.element) / log2(Double($1.offset + 2)) }
        ndcgAt10 = idcg == 0 ? 0 : dcg / idcg
    }

    /// Explicit values (e.g. means).
    package init(averagePrecision: Double, ndcgAt10: Double, precisionAt10: Double, recall: Double) {
        self.averagePrecision = averagePrecision
        self.ndcgAt10 = ndcgAt10
        self.precisionAt10 = precisionAt10
        self.recall = recall
    }

    /// The mean of each measure over queries (MAP, mean nDCG@10, …); zeros for no queries.
    package static func mean(_ measures: [RankingMetrics]) -> RankingMetrics {
        guard !measures.isEmpty else { return RankingMetrics(averagePrecision: 0, ndcgAt10: 0, precisionAt10: 0, recall: 0) }
        let count = Double(measures.count)
        return RankingMetrics(
            averagePrecision: measures.reduce(0) { $0 + $1.averagePrecision } / count,
            ndcgAt10: measures.reduce(0) { $0 + $1.ndcgAt10 } / count,
            precisionAt10: measures.reduce(0) { $0 + $1.precisionAt10 } / count,
            recall: measures.reduce(0) { $0 + $1.recall } / count)
    }
}

/// How one run compares with another query by query: on how many queries it is better, worse or level.
package struct QueryComparison: Sendable, Hashable, Codable {
    package var wins: Int
    package var losses: Int
    package var ties: Int

    /// Compares `ours` and `theirs` (query id → a score such as average precision) over the queries of `ours`;
    /// differences of at most `tolerance` are ties.
    package init(ours: [String: Double], theirs: [String: Double], tolerance: Double = 0.001) {
        var wins = 0, losses = 0, ties = 0
        for (query, score) in ours {
            let other = theirs[query] ?? 0
            if score > other + tolerance { wins += 1 } else if score < other - tolerance { losses += 1 } else { ties += 1 }
        }
        self.wins = wins
        self.losses = losses
        self.ties = ties
    }
}

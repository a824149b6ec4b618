import Foundation
import SpotliteStore
import SpotliteSearch
/// How well a ranking finds known items: mean reciprocal rank and success at a cutoff, with each query's outcome.
package struct RelevanceReport: Sendable, Hashable {
    /// What happened to one query.
    package struct Outcome: Sendable, Hashable {
        /// The query and the record it should find.
        package var judgment: RelevanceJudgment
        /// The 1-based rank of the wanted record within the cutoff, or nil when it is not there.
        package var rank: Int?
        /// The keys returned within the cutoff, best first.
        package var returnedKeys: [String]
        /// Why the query could not run (e.g. a parse error), if it could not.
        package var error: String?
    }

    /// Ranks beyond this count as not found.
    package var cutoff: Int
    /// Each query's outcome, in query set order.
    package var outcomes: [Outcome]

    /// Number of queries evaluated.
    package var queryCount: Int { outcomes.count }

    /// Mean over queries of 1/rank of the wanted record (0 when it is not within the cutoff): MRR@cutoff.
    package var meanReciprocalRank: Double {
        guard !outcomes.isEmpty else { return 0 }
        return outcomes.reduce(0) { $0 + ($1.rank.map { 1 / Double($0) } ?? 0) } / Double(outcomes.count)
    }

    /// Fraction of queries whose wanted record is within the cutoff: success@cutoff.
    package var successRate: Double {
        guard !outcomes.isEmpty else { return 0 }
        return Double(outcomes.filter { $0.rank != nil }.count) / Double(outcomes.count)
    }

    /// Fraction of queries whose wanted record comes first (success@1).
    package var firstRate: Double {
        guard !outcomes.isEmpty else { return 0 }
        return Double(outcomes.filter { $0.rank == 1 }.count) / Double(outcomes.count)
    }

    /// The queries whose wanted record was not within the cutoff.
    package var misses: [Outcome] { outcomes.filter { $0.rank == nil } }

    /// A summary as a JSON-compatible object.
    package var jsonObject: [String: Any] {
        [
            "queries": queryCount,
            "cutoff": cutoff,
            "mrr": meanReciprocalRank,
            "success": successRate,
            "success_at_1": firstRate,
            "errors": outcomes.filter { $0.error != nil }.count,
        ]
    }
}

import Foundation
import SpotliteStore
import SpotliteSearch
/// Measures a searcher on known-item queries: MRR@10 and success@10, so that ranking defaults are chosen by figures.
///
/// ```swift
/// let queries = try RelevanceQuerySet(contentsOf: "queries.tsv")      // key<TAB>query lines
/// let report = try RelevanceEvaluator(searcher: searcher).evaluate(queries)
/// print(report.meanReciprocalRank, report.successRate)
/// ```
package struct RelevanceEvaluator: Sendable {
    /// The searcher whose ranking is measured.
    package let searcher: IndexSearcher
    /// Ranks beyond this count as not found (10 for MRR@10 and success@10).
    package var cutoff: Int
    /// Only records of these entities are searched (empty: all).
    package var entities: [String]
    /// How plain query words combine.
    package var defaultOperator: SearchRequest.DefaultOperator
    /// Whether queries that find nothing are retried with spelling correction, as the product does.
    package var correctsSpelling: Bool

    /// An evaluator with the product's defaults: cutoff 10, every entity, OR, spelling correction on.
    package init(searcher: IndexSearcher, cutoff: Int = 10, entities: [String] = [],
                defaultOperator: SearchRequest.DefaultOperator = .or, correctsSpelling: Bool = true) {
        self.searcher = searcher
        self.cutoff = cutoff
        self.entities = entities
        self.defaultOperator = defaultOperator
        self.correctsSpelling = correctsSpelling
    }

    /// Runs every query and ranks the wanted records. A query that cannot run counts as a miss, with its error.
    /// - Throws: errors that concern the index rather than one query (``SearchError/indexMissing(path:)``, …).
    package func evaluate(_ set: RelevanceQuerySet) throws -> RelevanceReport {
        var outcomes: [RelevanceReport.Outcome] = []
        outcomes.reserveCapacity(set.judgments.count)
        for judgment in set.judgments {
            let request = SearchRequest(judgment.query, entities: entities, limit: cutoff,
                                        snippet: SnippetOptions(length: 0), correctsSpelling: correctsSpelling,
                                        defaultOperator: defaultOperator)
            do {
                let keys = try searcher.search(request).hits.map(\.key.description)
                let rank = keys.firstIndex(of: judgment.key).map { $0 + 1 }
                outcomes.append(.init(judgment: judgment, rank: rank, returnedKeys: keys, error: nil))
            } catch let error as SearchError {
                if case .invalidQuery = error {
                    outcomes.append(.init(judgment: judgment, rank: nil, returnedKeys: [], error: error.description))
                } else {
                    throw error
                }
            }
        }
        return RelevanceReport(cutoff: cutoff, outcomes: outcomes)
    }
}

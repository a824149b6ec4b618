import SpotliteTooling
import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// Chooses the ranking defaults by measurement on the whole Debian corpus (63,666 packages). Slow (minutes), so it
/// runs only when asked:
///
///     SPOTLITE_RELEVANCE_TUNING=1 swift test --skip-build --filter RelevanceTuningTests
///
/// It imports the corpus with the shipped configuration, generates two known-item query sets (words of the
/// description; words of the summary) with ``KnownItemQueryGenerator``, prints MRR@10 and success@10 for a grid of
/// BM25 parameters and both default operators, and checks that ``RankingOptions/measured`` (cross-validated BM25 plus the
/// proximity boost) is at least as good as the best BM25 parameters alone (within noise). Ad-hoc collections are
/// measured by `spotlite-bench relevance`.
/// Set SPOTLITE_QUERY_SETS=DIR to also write the generated sets there as TSV.
@Suite("Relevance tuning on the full corpus",
       .enabled(if: ProcessInfo.processInfo.environment["SPOTLITE_RELEVANCE_TUNING"] != nil),
       .serialized, .blockingWork)
struct RelevanceTuningTests {
    static let queriesPerSet = 1000

    struct Measured: CustomStringConvertible {
        var label: String
        var description_: RelevanceReport
        var summary: RelevanceReport
        var mean: Double { (description_.meanReciprocalRank + summary.meanReciprocalRank) / 2 }
        var description: String {
            func format(_ value: Double) -> String { String(format: "%.4f", value) }
            return "\(label.padding(toLength: 34, withPad: " ", startingAt: 0))  desc MRR \(format(description_.meanReciprocalRank)) S@10 \(format(description_.successRate))   summary MRR \(format(summary.meanReciprocalRank)) S@10 \(format(summary.successRate))   mean MRR \(format(mean))"
        }
    }

    @Test("the measured ranking defaults are at least as good as the best BM25 grid point on known-item queries")
    func tune() async throws {
        let corpus = try DebianCorpus.load()
        let sandbox = try IndexerSandbox(configuration: try DebianCorpus.shippedConfiguration())
        try DebianCorpus.importRecords(corpus, into: sandbox)
        let clock = ContinuousClock()
        let started = clock.now
        try await sandbox.makeIndexer().update()
        print("rebuild of \(corpus.count) packages: \(clock.now - started)")

        let descriptions = KnownItemQueryGenerator(records: corpus.map { .init(key: $0.name, text: $0.description) })
            .generate(count: Self.queriesPerSet, seed: 1)
        let summaries = KnownItemQueryGenerator(records: corpus.map { .init(key: $0.name, text: $0.summary) })
            .generate(count: Self.queriesPerSet, seed: 2)
        if let directory = ProcessInfo.processInfo.environment["SPOTLITE_QUERY_SETS"] {
            try descriptions.tsv.write(toFile: directory + "/known-items-description.tsv", atomically: true, encoding: .utf8)
            try summaries.tsv.write(toFile: directory + "/known-items-summary.tsv", atomically: true, encoding: .utf8)
        }

        func measure(_ label: String, _ ranking: RankingOptions, _ op: SearchRequest.DefaultOperator = .or) throws -> Measured {
            let searcher = try IndexSearcher(configuration: sandbox.configuration, ranking: ranking)
            let evaluator = RelevanceEvaluator(searcher: searcher, defaultOperator: op)
            let measured = Measured(label: label, description_: try evaluator.evaluate(descriptions),
                                    summary: try evaluator.evaluate(summaries))
            print(measured)
            return measured
        }

        let tuned = try measure("measured (default)", .measured)
        if ProcessInfo.processInfo.environment["SPOTLITE_TUNING_MISSES"] != nil {
            for outcome in (tuned.description_.outcomes + tuned.summary.outcomes).filter({ ($0.rank ?? 99) > 1 }).prefix(60) {
                print("miss \(outcome.rank.map(String.init) ?? "-")  \(outcome.judgment.key)  [\(outcome.judgment.query)]  → \(outcome.returnedKeys.prefix(4))")
            }
        }
        _ = try measure("xapian defaults", .xapianDefaults)
        _ = try measure("fitted to known items (k1 0.3, b 0.65)", .knownItemFitted)
        for op in [SearchRequest.DefaultOperator.and, .andThenOr] {
            _ = try measure("measured, operator \(op)", .measured, op)
        }
        var grid: [Measured] = []
        for k1 in [0.1, 0.2, 0.3, 0.45, 0.6] {
            for b in [0.5, 0.65, 0.8, 0.95] {
                grid.append(try measure("k1 \(k1) b \(b)", RankingOptions(k1: k1, b: b)))
            }
        }
        for minimum in [0.25, 1.0] {
            grid.append(try measure("fitted, min_normlen \(minimum)", RankingOptions(k1: RankingOptions.knownItemFitted.k1, b: RankingOptions.knownItemFitted.b, minimumNormalisedLength: minimum)))
        }
        // Latency of the product's default request (10 hits, snippets cut from the store), over every query.
        let searcher = try IndexSearcher(configuration: sandbox.configuration, store: sandbox.store)
        let queries = (descriptions.judgments + summaries.judgments).map(\.query)
        for query in queries.prefix(50) { _ = try searcher.search(SearchRequest(query)) }
        for (label, request) in [("with snippets", { SearchRequest($0) }),
                                 ("without snippets", { SearchRequest($0, snippet: SnippetOptions(length: 0)) })] {
            let timed = clock.now
            for query in queries { _ = try searcher.search(request(query)) }
            print("mean latency \(label): \((clock.now - timed) / queries.count)")
        }
        let best = try #require(grid.max { $0.mean < $1.mean })
        print("best of the grid: \(best)")
        #expect(tuned.mean >= best.mean - 0.005, "the measured defaults trail the best BM25 parameters: \(best)")
    }
}

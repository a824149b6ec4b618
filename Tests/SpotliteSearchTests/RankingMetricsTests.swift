import Foundation
import SpotliteTooling
import SpotliteTestSupport
import Testing

/// The ad-hoc measures of `spotlite-bench relevance`, on a made-up collection small enough to score by hand.
@Suite("Ranking metrics", .blockingWork)
struct RankingMetricsTests {
    /// d1 grade 3, d2 grade 1, d3 grade 2; d3 is never retrieved.
    let grades = ["d1": 3, "d2": 1, "d3": 2]

    @Test("average precision, nDCG@10, P@10 and recall of a ranked list")
    func measures() {
        let metrics = RankingMetrics(ranking: ["d2", "x", "d1", "y"], grades: grades)
        // Relevant documents at ranks 1 and 3: (1/1 + 2/3) / 3 relevant.
        #expect(abs(metrics.averagePrecision - (1 + 2.0 / 3) / 3) < 1e-12)
        #expect(abs(metrics.recall - 2.0 / 3) < 1e-12)
        #expect(abs(metrics.precisionAt10 - 0.2) < 1e-12)
        // DCG: (2^1-1)/log2(2) + (2^3-1)/log2(4); ideal: grades 3, 2, 1 at ranks 1, 2, 3.
        let dcg = 1.0 + 7.0 / 2
        let ideal = 7.0 + 3.0 / log2(3) + 1.0 / 2
        #expect(abs(metrics.ndcgAt10 - dcg / ideal) < 1e-12)
    }

    @Test("the depth cuts the list, duplicates count once, a perfect ranking scores 1")
    func depthDuplicatesAndPerfection() {
        let cut = RankingMetrics(ranking: ["d2", "x", "d1"], grades: grades, depth: 2)
        #expect(abs(cut.averagePrecision - 1.0 / 3) < 1e-12)
        #expect(abs(cut.recall - 1.0 / 3) < 1e-12)
        let repeated = RankingMetrics(ranking: ["d2", "d2", "d1"], grades: grades)
        #expect(abs(repeated.averagePrecision - (1 + 1) / 3.0) < 1e-12)
        let perfect = RankingMetrics(ranking: ["d1", "d3", "d2"], grades: grades)
        #expect(perfect.averagePrecision == 1)
        #expect(abs(perfect.ndcgAt10 - 1) < 1e-12)
        #expect(perfect.recall == 1)
    }

    @Test("nothing relevant retrieved, or nothing judged relevant, scores 0")
    func zeros() {
        let missed = RankingMetrics(ranking: ["x", "y"], grades: grades)
        #expect(missed.averagePrecision == 0 && missed.ndcgAt10 == 0 && missed.precisionAt10 == 0 && missed.recall == 0)
        let unjudged = RankingMetrics(ranking: ["d1"], grades: [:])
        #expect(unjudged.averagePrecision == 0 && unjudged.ndcgAt10 == 0)
    }

    @Test("means and query-by-query comparison")
    func meansAndComparison() {
        let mean = RankingMetrics.mean([
            RankingMetrics(averagePrecision: 0.2, ndcgAt10: 0.4, precisionAt10: 0.1, recall: 1),
            RankingMetrics(averagePrecision: 0.4, ndcgAt10: 0.6, precisionAt10: 0.3, recall: 0),
        ])
        #expect(abs(mean.averagePrecision - 0.3) < 1e-12 && abs(mean.ndcgAt10 - 0.5) < 1e-12)
        #expect(abs(mean.precisionAt10 - 0.2) < 1e-12 && abs(mean.recall - 0.5) < 1e-12)
        let comparison = QueryComparison(ours: ["a": 0.5, "b": 0.2, "c": 0.3], theirs: ["a": 0.4, "b": 0.3, "c": 0.3005])
        #expect(comparison.wins == 1 && comparison.losses == 1 && comparison.ties == 1)
    }

    @Test("topics and qrels are parsed; grade 0 is not relevant; bad lines name the file and line")
    func parsing() throws {
        let collection = try TRECCollection(
            topicsTSV: "1\tWhat similarity laws?\n# comment\n\n2\tsecond query\n3\tunjudged\n",
            qrels: "1 0 d1 3\n1 0 d2 0\n2\t0\td9\t1\n")
        #expect(collection.topics.map(\.id) == ["1", "2", "3"])
        #expect(collection.judgements["1"] == ["d1": 3])
        #expect(collection.judgedTopics.map(\.id) == ["1", "2"])
        #expect(TRECCollection.plainQuery("What similarity-laws, (must) be obeyed?") == "what similarity laws must be obeyed")

        #expect(throws: TRECCollectionError.self) { try TRECCollection(topicsTSV: "1 no tab\n", qrels: "") }
        #expect(throws: TRECCollectionError.self) { try TRECCollection(topicsTSV: "1\ta\n1\tb\n", qrels: "") }
        do {
            _ = try TRECCollection(topicsTSV: "1\ta\n", qrels: "1 0 d1 3\n1 0 d2 high\n", qrelsSource: "q.txt")
            Issue.record("a grade that is not a number must be refused")
        } catch let error as TRECCollectionError {
            #expect(error.description == "q.txt, line 2: expected QUERY_ID ITERATION DOC_ID GRADE with a whole-number grade")
        }
    }
}

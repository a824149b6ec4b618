import Foundation
import Spotlite

/// Figure 8: known-item retrieval. Each query is two or three random words of one record's summary (descriptive
/// field); that record is the one right answer (see ``QueryWorkload/knownItems(records:key:field:count:seed:)``).
/// MRR@10 is the mean of 1/rank of the right answer (0 when it is not in the top 10); success@10 the share of
/// queries with the answer in the top 10. All OR-queries, top 10, compared in one run:
/// - Spotlite's defaults, through the query API (field weights, prefixed copies, the searcher's BM25 parameters);
/// - plain BM25: the same words indexed with every field at weight 1 and no prefixed copies, searched with the
///   textbook parameters k1 = 1.2, b = 0.75;
/// - FTS5 `bm25()` with the configured field weights.
/// The query set is fixed by its seed, so the figures are deterministic: one run.
enum RelevanceFigure {
    struct Scores: Codable, Sendable {
        var mrrAt10: Double
        var successAt10: Double
    }

    struct Result: FigureResult {
        var queries: Int
        var field: String
        var spotlite: Scores
        var plainBM25: Scores
        var fts5: Scores

        var rows: [TableRow] {
            func line(_ scores: Scores) -> String {
                "MRR@10 \(Format.fraction(scores.mrrAt10)), success@10 \(Format.fraction(scores.successAt10))"
            }
            return [
                TableRow("8 relevance", "Spotlite defaults, \(queries) known items", line(spotlite)),
                TableRow("8 relevance", "plain BM25 (k1 1.2, b 0.75, unweighted)", line(plainBM25)),
                TableRow("8 relevance", "FTS5 bm25()", line(fts5)),
                TableRow("8 relevance", "Spotlite vs plain BM25 (MRR@10)",
                         String(format: "%+.3f", spotlite.mrrAt10 - plainBM25.mrrAt10), target: "≥ plain BM25",
                         met: spotlite.mrrAt10 >= plainBM25.mrrAt10),
                TableRow("8 relevance", "Spotlite vs FTS5 (MRR@10)",
                         String(format: "%+.3f", spotlite.mrrAt10 - fts5.mrrAt10)),
            ]
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        let field = try context.descriptiveField
        let queries = QueryWorkload.knownItems(records: context.corpus.records, key: context.entity.key,
                                               field: field, count: context.settings.knownItems)
        guard !queries.isEmpty else {
            throw BenchError("no known-item query could be drawn: no record has three usable words in \(field)")
        }
        let searcher = try IndexSearcher(configuration: context.configuration, indexPath: context.indexPath)
        let spotlite = try score(queries) { query in
            try searcher.search(SearchRequest(query.text, snippet: SnippetOptions(length: 0), correctsSpelling: false,
                                              defaultOperator: .or)).hits.map(\.key.description)
        }

        let plainPath = context.path("raw-plain-bm25")
        var plainOptions = RawIndexer.Options()
        plainOptions.noSync = true
        plainOptions.variations.uniformWeights = true
        _ = try RawIndexer.build(records: context.corpus.records, configuration: context.configuration,
                                 entity: context.entity.name, path: plainPath, options: plainOptions)
        defer { try? FileManager.default.removeItem(atPath: plainPath) }
        let plainDatabase = try XapianDatabase(path: plainPath)
        let stemmer = context.configuration.indexer.stemmerName
        let parser = try XapianQueryParser(language: stemmer == "none" ? nil : stemmer,
                                           stopwords: context.configuration.indexer.stopwords == "none" ? .none : .english)
        let textbook = XapianBM25(k1: 1.2, k2: 0, k3: 1, b: 0.75, minNormalisedLength: 0.5)
        let plain = try score(queries) { query in
            let results = try plainDatabase.search(try parser.parse(query.text), limit: 10, bm25: textbook)
            return results.hits.map { hit in
                let object = try? JSONSerialization.jsonObject(with: hit.data) as? [String: Any]
                return (object?["key"]).map { "\($0)" } ?? ""
            }
        }

        let fts = try context.fts()
        let ftsScores = try score(queries) { query in try fts.search(words: query.words, matchAll: false) }
        Progress.note(String(format: "relevance: MRR@10 Spotlite %.3f, plain BM25 %.3f, FTS5 %.3f",
                             spotlite.mrrAt10, plain.mrrAt10, ftsScores.mrrAt10))
        return Result(queries: queries.count, field: field, spotlite: spotlite, plainBM25: plain, fts5: ftsScores)
    }

    /// MRR@10 and success@10 of the ranked keys `search` returns for each query.
    static func score(_ queries: [QueryWorkload.Query], search: (QueryWorkload.Query) throws -> [String]) throws -> Scores {
        var reciprocal = 0.0
        var found = 0
        for query in queries {
            let keys = try search(query).prefix(10)
            if let index = keys.firstIndex(of: query.target ?? "") {
                reciprocal += 1 / Double(index + 1)
                found += 1
            }
        }
        return Scores(mrrAt10: reciprocal / Double(queries.count), successAt10: Double(found) / Double(queries.count))
    }
}

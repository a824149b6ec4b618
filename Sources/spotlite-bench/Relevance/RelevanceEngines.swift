import Foundation
import Spotlite
import SpotliteTooling

/// The three engines of a relevance run over the same documents: Spotlite (store → indexer → searcher), SQLite FTS5
/// and plain Xapian. Used from one task only.
final class RelevanceEngines {
    let corpus: Corpus
    let configuration: SpotliteConfiguration
    let entity: EntityConfiguration
    let work: String
    private var fts: FTS5Index?
    private var plainDatabase: XapianDatabase?
    private var plainParser: XapianQueryParser?

    init(corpus: Corpus, configuration: SpotliteConfiguration, entity: EntityConfiguration, work: String) throws {
        self.corpus = corpus
        self.configuration = configuration
        self.entity = entity
        self.work = work
    }

    /// The first text field that is not the key: where known-item queries come from.
    var descriptiveField: String {
        get throws {
            guard let field = entity.fields.first(where: { $0.type == .text && $0.name != entity.key }) else {
                throw BenchError("entity \(entity.name) has no text field besides its key; pass --known-item-field")
            }
            return field.name
        }
    }

    /// Imports the documents and indexes them with each engine.
    func build() async throws {
        let store = try StoreFixture.make(corpus: corpus, path: configuration.storePath, configuration: configuration,
                                          entity: entity.name)
        try await SpotliteIndexer(store: store, configuration: configuration, indexPath: configuration.indexPath).update()
        fts = try FTS5Index(records: corpus.records, configuration: configuration, entity: entity.name,
                            path: work + "/fts5.sqlite")
        // Plain Xapian: one bag of words (every text field at weight 1, no prefixed copies), the stemmer of the
        // configuration, no stop words and Xapian's default BM25 — what a first Xapian program does.
        var options = RawIndexer.Options()
        options.noSync = true
        options.variations.uniformWeights = true
        options.variations.spelling = false
        let plainPath = work + "/plain-xapian"
        _ = try RawIndexer.build(records: corpus.records, configuration: configuration, entity: entity.name,
                                 path: plainPath, options: options)
        plainDatabase = try XapianDatabase(path: plainPath)
        let stemmer = configuration.indexer.stemmerName ?? "none"
        plainParser = try XapianQueryParser(language: stemmer == "none" ? nil : stemmer, stopwords: .none)
    }

    func searcher(ranking: RankingOptions) throws -> IndexSearcher {
        try IndexSearcher(configuration: configuration, ranking: ranking)
    }

    /// Spotlite's keys for `text` (an OR of its words), best first.
    func spotlite(_ searcher: IndexSearcher, _ text: String, limit: Int,
                  expansion: SearchRequest.Expansion = .configured) throws -> [String] {
        try searcher.search(request(text, limit: limit, expansion: expansion)).hits.map(\.key.description)
    }

    func request(_ text: String, limit: Int, expansion: SearchRequest.Expansion = .configured,
                 explains: Bool = false) -> SearchRequest {
        SearchRequest(text, limit: limit, snippet: SnippetOptions(length: 0), correctsSpelling: false,
                      defaultOperator: .or, expansion: expansion, explains: explains)
    }

    /// FTS5's keys for an OR of the words of `text`.
    func fts5(_ text: String, limit: Int) throws -> [String] {
        guard let fts else { throw BenchError("the FTS5 baseline was not built") }
        let words = text.split(separator: " ").map(String.init)
        return words.isEmpty ? [] : try fts.search(words: words, matchAll: false, limit: limit)
    }

    /// Plain Xapian's keys for `text`.
    func plainXapian(_ text: String, limit: Int) throws -> [String] {
        guard let plainDatabase, let plainParser else { throw BenchError("the plain Xapian baseline was not built") }
        let results = try plainDatabase.search(try plainParser.parse(text), limit: limit)
        return results.hits.map { hit in
            let object = try? JSONSerialization.jsonObject(with: hit.data) as? [String: Any]
            return (object?["key"]).map { "\($0)" } ?? ""
        }
    }
}

/// One engine's scores on every query.
struct RelevanceRun: Codable {
    var engine: String
    var perQuery: [String: RankingMetrics]
    var mean: RankingMetrics { RankingMetrics.mean(Array(perQuery.values)) }

    enum CodingKeys: String, CodingKey { case engine, perQuery, mean }

    init(engine: String, perQuery: [String: RankingMetrics]) {
        self.engine = engine
        self.perQuery = perQuery
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        engine = try container.decode(String.self, forKey: .engine)
        perQuery = try container.decode([String: RankingMetrics].self, forKey: .perQuery)
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(engine, forKey: .engine)
        try container.encode(perQuery, forKey: .perQuery)
        try container.encode(mean, forKey: .mean)
    }
}

/// One ranking variant of the ablation.
struct RelevanceLever: Codable {
    var label: String
    var mean: RankingMetrics
    var knownItemMRR: Double?

    /// The variants measured by `--ablation`: the former defaults, each lever alone over plain BM25, the configured
    /// ranking without each lever, and neighbours of its parameters.
    static func variants(of configured: RankingOptions) -> [(String, RankingOptions)] {
        var variants: [(String, RankingOptions)] = [
            ("before: BM25 k1 0.3, b 0.65 alone", .knownItemFitted),
            ("BM25 k1 1.0, b 0.5 alone", .xapianDefaults),
        ]
        var proximityOnly = RankingOptions.xapianDefaults
        proximityOnly.proximity = .measured
        variants.append(("BM25 k1 1.0, b 0.5 + proximity", proximityOnly))
        var expansionOnly = RankingOptions.xapianDefaults
        expansionOnly.expansion = .measured
        variants.append(("BM25 k1 1.0, b 0.5 + expansion (≥ 5 words)", expansionOnly))
        variants.append(("configured (every lever)", configured))
        var withoutProximity = configured
        withoutProximity.proximity = nil
        variants.append(("configured − proximity", withoutProximity))
        if let proximity = configured.proximity {
            // Depth 1,000 re-ranks every match these runs score: the ranking of the boost applied to every match.
            for depth in [20, 100, 1000] where depth != proximity.depth {
                var deeper = configured
                deeper.proximity?.depth = depth
                variants.append(("configured, proximity re-ranking the best \(depth)", deeper))
            }
        }
        var withoutExpansion = configured
        withoutExpansion.expansion = nil
        variants.append(("configured − expansion", withoutExpansion))
        if let expansion = configured.expansion {
            var everyQuery = configured
            everyQuery.expansion?.minimumWords = 1
            variants.append(("configured, expansion on every query", everyQuery))
            var heavier = configured
            heavier.expansion?.weight = expansion.weight * 2
            variants.append(("configured, expansion weight ×2", heavier))
            var moreDocuments = configured
            moreDocuments.expansion?.documents = expansion.documents * 2
            variants.append(("configured, expansion from 2× documents", moreDocuments))
        }
        var stemAll = configured
        stemAll.stemming = .all
        variants.append(("configured, stemming every word (STEM_ALL_Z)", stemAll))
        for (k1, b) in [(0.3, 0.65), (0.7, 0.9), (1.2, 0.75)] {
            var neighbour = configured
            neighbour.k1 = k1
            neighbour.b = b
            variants.append(("configured with k1 \(k1), b \(b)", neighbour))
        }
        return variants
    }
}

/// Query cost with and without expansion, over the collection's queries (top 10, no snippets).
struct ExpansionTiming: Codable {
    var unexpanded: LatencySummary
    var configured: LatencySummary
    var everyQueryExpanded: LatencySummary
    /// Queries the configured expansion applies to (long enough).
    var expandedQueries: Int
    var queries: Int

    static func measure(queries: [String], passes: Int, searcher: IndexSearcher) throws -> ExpansionTiming {
        let configured = searcher.ranking.expansion ?? .measured
        var forced = configured
        forced.minimumWords = 1
        let modes: [SearchRequest.Expansion] = [.off, .configured, .on(forced)]
        func request(_ text: String, _ expansion: SearchRequest.Expansion, limit: Int = 10, explains: Bool = false) -> SearchRequest {
            SearchRequest(text, limit: limit, snippet: SnippetOptions(length: 0), correctsSpelling: false,
                          defaultOperator: .or, expansion: expansion, explains: explains)
        }
        var expanded = 0
        for text in queries {
            // Warm-up, and the count of queries the configured expansion applies to (no hits: nothing to explain).
            let results = try searcher.search(request(text, .configured, limit: 0, explains: true))
            if !(results.explanation?.addedTerms.isEmpty ?? true) { expanded += 1 }
        }
        var summaries: [[LatencySummary]] = Array(repeating: [], count: modes.count)
        for _ in 0..<passes {
            var samples: [[Double]] = Array(repeating: [], count: modes.count)
            for text in queries {
                // Modes alternate query by query, so that they share the same cache conditions.
                for (index, mode) in modes.enumerated() {
                    let started = Stopwatch.nanoseconds()
                    _ = try searcher.search(request(text, mode))
                    samples[index].append(Double(Stopwatch.nanoseconds() - started) / 1e9)
                }
            }
            for index in modes.indices { summaries[index].append(LatencySummary(samples: samples[index])) }
        }
        return ExpansionTiming(unexpanded: LatencySummary(medianOf: summaries[0]),
                               configured: LatencySummary(medianOf: summaries[1]),
                               everyQueryExpanded: LatencySummary(medianOf: summaries[2]),
                               expandedQueries: expanded, queries: queries.count)
    }
}

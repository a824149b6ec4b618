import Foundation
import GRDB
import SpotliteEmbeddings
import SpotliteSearch
import SpotliteStore

/// Answers a ``SearchRequest`` in a ``SearchMode``: by the keyword index alone, by the vector index alone, or by
/// both lists fused by reciprocal rank (``ReciprocalRankFusion``), weighted by the query's length and, for
/// descriptive queries, with relevance feedback in the model's space (``HybridRanking``).
///
/// ```swift
/// let searcher = try HybridSearcher(configuration: configuration)
/// let results = try searcher.search(SearchRequest("baking loaves of bread", limit: 5), mode: .hybrid)
/// for hit in results.hits { print(hit.key, hit.keywordRank as Any, hit.semanticRank as Any, hit.similarity as Any) }
/// ```
///
/// The request's entities and filters restrict both lists: the semantic list holds only records of those entities
/// that the keyword index finds with the filters. Offset and limit apply to the fused list, which takes the best
/// ``depth`` records of each list (more when the page reaches further). The hits found by words keep their snippet;
/// those found by meaning alone carry the fields stored in the keyword index.
public final class HybridSearcher: Sendable {
    /// The keyword searcher.
    public let keyword: IndexSearcher
    /// The model and vectors; nil when the configuration has no `[embeddings]` (keyword mode only).
    public let semantic: SemanticIndex?
    /// How the two lists are fused in hybrid mode.
    public let ranking: HybridRanking
    /// How many records each list contributes at least to a fused list.
    public let depth: Int

    /// The default ``depth``.
    public static let defaultDepth = 100

    /// A searcher over `keyword` and, when given, `semantic`.
    public init(keyword: IndexSearcher, semantic: SemanticIndex?, ranking: HybridRanking = .measured,
                depth: Int = HybridSearcher.defaultDepth) {
        self.keyword = keyword
        self.semantic = semantic
        self.ranking = ranking
        self.depth = max(1, depth)
    }

    /// A searcher of the configuration's index and, when it has `[embeddings]`, of its model and vectors.
    ///
    /// - Throws: what ``IndexSearcher`` and ``SemanticIndex/init(configuration:mode:)`` throw.
    public convenience init(configuration: SpotliteConfiguration, store: SpotliteStore? = nil, allowsPartialResults: Bool = false) throws {
        let keyword = try IndexSearcher(configuration: configuration, store: store, allowsPartialResults: allowsPartialResults)
        let semantic = configuration.embeddings == nil ? nil : try SemanticIndex(configuration: configuration)
        self.init(keyword: keyword, semantic: semantic)
    }

    /// Runs `request` in `mode`.
    ///
    /// - Throws: ``HybridSearchError`` for a semantic or hybrid search without embeddings, without words or with a
    ///   sort; ``SearchError`` from the keyword index; ``EmbeddingError`` from the model or the vectors.
    public func search(_ request: SearchRequest, mode: SearchMode) throws -> SearchResults {
        guard mode.needsEmbeddings else {
            var results = try keyword.search(request)
            for index in results.hits.indices { results.hits[index].keywordRank = results.hits[index].rank }
            return results
        }
        let clock = ContinuousClock()
        let started = clock.now
        guard let semantic else { throw HybridSearchError.embeddingsNotConfigured(mode: mode) }
        if case .field(let field, _) = request.sort { throw HybridSearchError.sortNeedsKeywordMode(mode: mode, field: field) }
        let text = request.query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw HybridSearchError.noWords(mode: mode) }
        let reach = min(max(depth, request.offset + request.limit), SearchRequest.maximumLimit)
        let known = keyword.configuration.entities.map(\.name)
        for entity in request.entities where !known.contains(entity) {
            throw SearchError.unknownEntity(entity, known: known)
        }

        // The keyword list: the request itself, from its first hit, as deep as the fused list needs.
        var keywordResults: SearchResults?
        var keywordList: [RecordID] = []
        if mode == .hybrid {
            var keywordRequest = request
            keywordRequest.offset = 0
            keywordRequest.limit = reach
            let results = try keyword.search(keywordRequest)
            keywordList = results.hits.map { RecordID(entity: $0.entity, key: $0.key.databaseValue) }
            keywordResults = results
        }

        // The semantic list, restricted like the keyword one.
        let entities = request.entities.isEmpty ? nil : Set(request.entities)
        var membership: Membership?
        if !request.filters.isEmpty || (mode == .semantic && !request.facets.isEmpty) {
            membership = try members(of: request)
        }
        let query = try semantic.encoder.vector(for: text)
        let vectorHits = try semantic.vectors.search(query, limit: reach, entities: entities,
                                                     records: request.filters.isEmpty ? nil : membership?.records)
        let semanticList = vectorHits.map(\.record)
        var similarities: [RecordID: Double] = [:]
        for hit in vectorHits { similarities[hit.record] = Double(hit.similarity) }

        let records = request.filters.isEmpty ? nil : membership?.records
        let fused = mode == .semantic
            ? ReciprocalRankFusion().fuse(keyword: [], semantic: semanticList)
            : try ranking.fuse(query: text, keyword: keywordList, semantic: semanticList) { best in
                let stored = try semantic.vectors.vectors(of: best)
                let moved = ranking.movedQuery(query, toward: best.compactMap { stored[$0] })
                let again = try semantic.vectors.search(moved, limit: reach, entities: entities, records: records)
                // Similarities stay those to the query as typed, not to the moved one.
                let unseen = try semantic.vectors.vectors(of: again.map(\.record).filter { similarities[$0] == nil })
                for (record, vector) in unseen { similarities[record] = Double(Self.dot(query, vector)) }
                return again.map(\.record)
            }
        let page = fused.dropFirst(request.offset).prefix(request.limit)
        var keywordHits: [RecordID: SearchHit] = [:]
        for hit in keywordResults?.hits ?? [] { keywordHits[RecordID(entity: hit.entity, key: hit.key.databaseValue)] = hit }
        let best = mode == .semantic ? (vectorHits.first.map { Double($0.similarity) } ?? 0) : (fused.first?.score ?? 0)
        var hits: [SearchHit] = []
        for (index, entry) in page.enumerated() {
            var hit: SearchHit
            if let found = keywordHits[entry.key] {
                hit = found
            } else {
                let document = try keyword.document(entity: entry.key.entity, key: entry.key.key)
                hit = SearchHit(entity: entry.key.entity, key: StoredValue.fromDatabaseValue(entry.key.key) ?? .text("\(entry.key.key)"),
                                fields: document?.fields ?? [:], rank: 0, score: 0, percent: 0)
            }
            hit.rank = request.offset + index + 1
            hit.score = mode == .semantic ? (similarities[entry.key] ?? 0) : entry.score
            hit.percent = best > 0 ? max(0, min(100, Int((hit.score / best * 100).rounded()))) : 0
            hit.keywordRank = entry.keywordRank
            hit.semanticRank = entry.semanticRank
            hit.similarity = similarities[entry.key]
            hits.append(hit)
        }

        var results = SearchResults(query: request.query, total: fused.count, corrected: keywordResults?.corrected,
                                    suggestion: keywordResults?.suggestion, hits: hits,
                                    facets: keywordResults?.facets ?? membership?.facets ?? [:], seconds: 0)
        results.correctedFilters = keywordResults?.correctedFilters ?? membership?.correctedFilters
        results.unavailableShards = keywordResults?.unavailableShards ?? membership?.unavailableShards ?? []
        results.mode = mode
        results.seconds = (clock.now - started).timeInterval
        return results
    }

    /// The cosine of two vectors of length 1; 0 when their dimensions differ.
    private static func dot(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count else { return 0 }
        var sum: Float = 0
        for index in a.indices { sum += a[index] * b[index] }
        return sum
    }

    /// The records the keyword index finds with the request's entities and filters alone, and its facets over them.
    private struct Membership {
        var records: Set<RecordID> = []
        var facets: [String: [FacetCount]] = [:]
        var correctedFilters: [SearchFilter]?
        var unavailableShards: [String] = []
    }

    /// Every record matching the request's entities and filters, read from the keyword index page by page: the
    /// semantic list is then chosen among them, so that it is exactly as restricted as the keyword list.
    private func members(of request: SearchRequest) throws -> Membership {
        var membership = Membership()
        var page = SearchRequest("", entities: request.entities, filters: request.filters, offset: 0,
                                 limit: SearchRequest.maximumLimit, facets: request.facets,
                                 snippet: SnippetOptions(length: 0))
        page.timeLimit = request.timeLimit
        while true {
            let results = try keyword.search(page)
            if page.offset == 0 {
                membership.facets = results.facets
                membership.correctedFilters = results.correctedFilters
                membership.unavailableShards = results.unavailableShards
                // Filters corrected for case: the rest of the pages with the values as indexed.
                if let corrected = results.correctedFilters { page.filters = corrected }
                page.facets = []
            }
            for hit in results.hits { membership.records.insert(RecordID(entity: hit.entity, key: hit.key.databaseValue)) }
            guard results.hits.count == page.limit, page.offset + page.limit <= SearchRequest.maximumOffset else { break }
            page.offset += page.limit
        }
        return membership
    }
}

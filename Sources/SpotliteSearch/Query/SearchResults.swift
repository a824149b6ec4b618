import Foundation

/// The answer to a ``SearchRequest``.
public struct SearchResults: Sendable, Hashable {
    /// The query text as given.
    public var query: String
    /// Xapian's estimate of the number of matching documents.
    public var total: Int
    /// The spelling correction that produced these results, when the query as given found nothing.
    public var corrected: String?
    /// The request's filters as corrected, when they found nothing and a keyword value in the wrong case replaced
    /// by the value as indexed (`section:Utils` → `section:utils`) produced these results; nil otherwise.
    public var correctedFilters: [SearchFilter]? = nil
    /// A spelling suggestion ("did you mean"), worked out when the query as given found nothing, whether or not
    /// the corrected query found something.
    public var suggestion: String?
    /// The hits of the requested page, in order.
    public var hits: [SearchHit]
    /// Value counts per requested facet field, over every matching document.
    public var facets: [String: [FacetCount]]
    /// How long the search took.
    public var seconds: Double
    /// How the query was understood and the hits weighted, when the request asked (``SearchRequest/explains``).
    public var explanation: SearchExplanation? = nil
    /// The shards (`HOST:PORT` or path) left out because they could not be reached, when the searcher was allowed
    /// to answer from the others (``IndexSearcher/allowsPartialResults``); empty for a complete answer.
    public var unavailableShards: [String] = []
    /// How the hits were ranked: ``SearchMode/keyword`` by the keyword index alone; ``SearchMode/semantic`` or
    /// ``SearchMode/hybrid`` by the vector index alone or fused with the keyword list (module `SpotliteHybrid`),
    /// when each hit's ``SearchHit/keywordRank``, ``SearchHit/semanticRank`` and ``SearchHit/similarity`` say where
    /// it came from.
    public var mode: SearchMode = .keyword

    /// Whether some shards were left out: the hits and totals cover only the others.
    public var isPartial: Bool { !unavailableShards.isEmpty }
}

/// One ranked document.
public struct SearchHit: Sendable, Hashable {
    /// The record's entity.
    public var entity: String
    /// The record's key.
    public var key: StoredValue
    /// 1 for the best hit (offset included).
    public var rank: Int
    /// The BM25 weight (0 when sorting by a field or matching only filters).
    public var score: Double
    /// The weight as a percentage of the best hit's.
    public var percent: Int
    /// The stored fields.
    public var fields: [String: StoredValue]
    /// A piece of the record's text around the matching words, with the matches marked.
    public var snippet: String
    /// Its rank in the keyword list, from 1 (in keyword mode, ``rank``); nil when only its meaning found it.
    public var keywordRank: Int? = nil
    /// Its rank in the semantic list, from 1; nil in keyword mode and when only its words found it.
    public var semanticRank: Int? = nil
    /// The cosine similarity of its vector and the query's, in semantic and hybrid modes; nil when it has no vector
    /// among the semantic list.
    public var similarity: Double? = nil
}

/// How many matching documents have a facet value.
public struct FacetCount: Sendable, Hashable {
    /// The keyword value.
    public var value: String
    /// Matching documents that have it.
    public var count: Int
}

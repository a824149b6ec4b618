import Foundation

/// The answer to a ``SearchRequest``.
public struct SearchResults: Sendable, Hashable {
    /// The query text as given.
    public var query: String
    /// Xapian's estimate of the number of matching documents.
    public var total: Int
    /// The spelling correction that produced these results, when the query as given found nothing.
    public var corrected: String?
    /// A spelling suggestion for the query as given, whether or not it was applied.
    public var suggestion: String?
    public var hits: [SearchHit]
    /// Value counts per requested facet field, over every matching document.
    public var facets: [String: [FacetCount]]
    public var seconds: Double

    /// The JSON object of `spotlite search --json`.
    public var jsonObject: [String: Any] {
        var facetObject: [String: Any] = [:]
        for (field, counts) in facets {
            var values: [String: Any] = [:]
            for count in counts { values[count.value] = count.count }
            facetObject[field] = values
        }
        return [
            "query": query,
            "total": total,
            "corrected": corrected as Any? ?? NSNull(),
            "hits": hits.map(\.jsonObject),
            "facets": facetObject,
        ]
    }
}

/// One ranked document.
public struct SearchHit: Sendable, Hashable {
    public var entity: String
    public var key: StoredValue
    /// 1 for the best hit (offset included).
    public var rank: Int
    public var score: Double
    public var percent: Int
    /// The stored fields.
    public var fields: [String: StoredValue]
    /// A piece of the record's text around the matching words, with the matches marked.
    public var snippet: String

    public var jsonObject: [String: Any] {
        var fieldObject: [String: Any] = [:]
        for (name, value) in fields { fieldObject[name] = value.jsonObject }
        return [
            "entity": entity, "key": key.jsonObject, "rank": rank, "score": score, "percent": percent,
            "fields": fieldObject, "snippet": snippet,
        ]
    }
}

/// How many matching documents have a facet value.
public struct FacetCount: Sendable, Hashable {
    public var value: String
    public var count: Int
}

import Foundation
import SpotliteSearch

// The `[String: Any]` objects of `spotlite search --json`, for `JSONSerialization`: what scripts read. The command
// line writes the same objects by hand (SearchResults+JSON.swift); tests compare the two.

extension SearchResults {
    /// The JSON object of `spotlite search --json`.
    package var jsonObject: [String: Any] {
        var facetObject: [String: Any] = [:]
        for (field, counts) in facets {
            var values: [String: Any] = [:]
            for count in counts { values[count.value] = count.count }
            facetObject[field] = values
        }
        var object: [String: Any] = [
            "query": query,
            "total": total,
            "corrected": corrected as Any? ?? NSNull(),
            "hits": hits.map { $0.jsonObject(mode: mode) },
            "facets": facetObject,
        ]
        if let correctedFilters { object["corrected_filters"] = correctedFilters.map(\.description) }
        if let explanation { object["explain"] = explanation.jsonObject }
        if isPartial {
            object["partial"] = true
            object["unavailable_shards"] = unavailableShards
        }
        return object
    }
}

extension SearchHit {
    /// The hit as in `spotlite search --json` of keyword mode.
    package var jsonObject: [String: Any] { jsonObject(mode: .keyword) }

    /// The hit as in `spotlite search --json` of results ranked in `mode`.
    package func jsonObject(mode: SearchMode) -> [String: Any] {
        var fieldObject: [String: Any] = [:]
        for (name, value) in fields { fieldObject[name] = value.jsonObject }
        var object: [String: Any] = [
            "entity": entity, "key": key.jsonObject, "rank": rank, "score": score, "percent": percent,
            "fields": fieldObject, "snippet": snippet,
            "keyword_rank": (mode == .keyword ? (keywordRank ?? rank) : keywordRank) as Any? ?? NSNull(),
            "semantic_rank": semanticRank as Any? ?? NSNull(),
        ]
        if mode != .keyword { object["similarity"] = similarity as Any? ?? NSNull() }
        return object
    }
}

extension SearchExplanation {
    /// The explanation as in `spotlite search --explain --json`.
    package var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "parsed_query": parsedQuery,
            "executed_query": executedQuery,
            "added_terms": addedTerms.map { ["term": $0.term, "expansion_weight": $0.expansionWeight, "scale": $0.scale] },
            "hits": hitTerms.map { terms in
                terms.map { ["term": $0.term, "frequency": $0.frequency, "weight": $0.weight] as [String: Any] }
            },
        ]
        if !synonyms.isEmpty {
            object["synonyms"] = synonyms.map { ["words": $0.words, "synonyms": $0.synonyms] as [String: Any] }
        }
        if let typedWord {
            object["typed_word"] = typedWord
            object["completions"] = completions
        }
        return object
    }
}

extension StoredValue {
    /// The value as a JSON-compatible object (for `JSONSerialization`).
    package var jsonObject: Any {
        switch self {
        case .text(let text): text
        case .integer(let number): number
        case .real(let number): number
        }
    }
}

import SpotliteSearch

extension SearchResults {
    /// Appends the JSON object of `spotlite search --json` (the same object as ``jsonObject``, keys sorted) to
    /// `bytes`, without a newline. Written by hand: encoding ``jsonObject`` with `JSONSerialization` cost more than
    /// the search it describes.
    package func appendJSON(to bytes: inout [UInt8]) {
        JSONText.appendRaw("{\"corrected\":", to: &bytes)
        JSONText.appendOptionalString(corrected, to: &bytes)
        // Only when filter values were corrected, as in `jsonObject`.
        if let correctedFilters {
            JSONText.appendRaw(",\"corrected_filters\":[", to: &bytes)
            for (index, filter) in correctedFilters.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(filter.description, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if let explanation {
            JSONText.appendRaw(",\"explain\":", to: &bytes)
            explanation.appendJSON(to: &bytes)
        }
        JSONText.appendRaw(",\"facets\":{", to: &bytes)
        for (fieldIndex, field) in facets.keys.sorted().enumerated() {
            if fieldIndex > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendString(field, to: &bytes)
            JSONText.appendRaw(":{", to: &bytes)
            // A JSON object has one entry per key: the last count of a value wins, as in `jsonObject`.
            var counts: [String: Int] = [:]
            for count in facets[field]! { counts[count.value] = count.count }
            for (valueIndex, value) in counts.keys.sorted().enumerated() {
                if valueIndex > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(value, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONText.appendInteger(counts[value]!, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        JSONText.appendRaw("},\"hits\":[", to: &bytes)
        for (index, hit) in hits.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            hit.appendJSON(to: &bytes, mode: mode)
        }
        bytes.append(UInt8(ascii: "]"))
        // Only in a partial answer, as in `jsonObject`.
        if isPartial { JSONText.appendRaw(",\"partial\":true", to: &bytes) }
        JSONText.appendRaw(",\"query\":", to: &bytes)
        JSONText.appendString(query, to: &bytes)
        JSONText.appendRaw(",\"total\":", to: &bytes)
        JSONText.appendInteger(total, to: &bytes)
        if isPartial {
            JSONText.appendRaw(",\"unavailable_shards\":[", to: &bytes)
            for (index, shard) in unavailableShards.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(shard, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension SearchHit {
    /// Appends the hit's JSON object (as ``jsonObject(mode:)``, keys sorted) to `bytes`; `mode` is its results'.
    package func appendJSON(to bytes: inout [UInt8], mode: SearchMode = .keyword) {
        JSONText.appendRaw("{\"entity\":", to: &bytes)
        JSONText.appendString(entity, to: &bytes)
        JSONText.appendRaw(",\"fields\":{", to: &bytes)
        for (index, name) in fields.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            fields[name]!.appendJSON(to: &bytes)
        }
        JSONText.appendRaw("},\"key\":", to: &bytes)
        key.appendJSON(to: &bytes)
        JSONText.appendRaw(",\"keyword_rank\":", to: &bytes)
        if let shown = mode == .keyword ? (keywordRank ?? rank) : keywordRank {
            JSONText.appendInteger(shown, to: &bytes)
        } else {
            JSONText.appendRaw("null", to: &bytes)
        }
        JSONText.appendRaw(",\"percent\":", to: &bytes)
        JSONText.appendInteger(percent, to: &bytes)
        JSONText.appendRaw(",\"rank\":", to: &bytes)
        JSONText.appendInteger(rank, to: &bytes)
        JSONText.appendRaw(",\"score\":", to: &bytes)
        JSONText.appendNumber(score, to: &bytes)
        JSONText.appendRaw(",\"semantic_rank\":", to: &bytes)
        if let semanticRank { JSONText.appendInteger(semanticRank, to: &bytes) } else { JSONText.appendRaw("null", to: &bytes) }
        if mode != .keyword {
            JSONText.appendRaw(",\"similarity\":", to: &bytes)
            if let similarity { JSONText.appendNumber(similarity, to: &bytes) } else { JSONText.appendRaw("null", to: &bytes) }
        }
        JSONText.appendRaw(",\"snippet\":", to: &bytes)
        JSONText.appendString(snippet, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension StoredValue {
    /// Appends the value as JSON (a string or a number; null for a number JSON cannot hold) to `bytes`.
    package func appendJSON(to bytes: inout [UInt8]) {
        switch self {
        case .text(let text): JSONText.appendString(text, to: &bytes)
        case .integer(let number): JSONText.appendInteger(number, to: &bytes)
        case .real(let number): JSONText.appendNumber(number, to: &bytes)
        }
    }
}

extension SearchExplanation {
    /// Appends the explanation's JSON object (as ``jsonObject``, keys sorted) to `bytes`.
    package func appendJSON(to bytes: inout [UInt8]) {
        JSONText.appendRaw("{\"added_terms\":[", to: &bytes)
        for (index, added) in addedTerms.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendRaw("{\"expansion_weight\":", to: &bytes)
            JSONText.appendNumber(added.expansionWeight, to: &bytes)
            JSONText.appendRaw(",\"scale\":", to: &bytes)
            JSONText.appendNumber(added.scale, to: &bytes)
            JSONText.appendRaw(",\"term\":", to: &bytes)
            JSONText.appendString(added.term, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        // Only for a search as you type, as in `jsonObject`.
        if typedWord != nil {
            JSONText.appendRaw(",\"completions\":[", to: &bytes)
            for (index, word) in completions.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(word, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        JSONText.appendRaw(",\"executed_query\":", to: &bytes)
        JSONText.appendString(executedQuery, to: &bytes)
        JSONText.appendRaw(",\"hits\":[", to: &bytes)
        for (hitIndex, terms) in hitTerms.enumerated() {
            if hitIndex > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            for (index, term) in terms.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendRaw("{\"frequency\":", to: &bytes)
                JSONText.appendInteger(term.frequency, to: &bytes)
                JSONText.appendRaw(",\"term\":", to: &bytes)
                JSONText.appendString(term.term, to: &bytes)
                JSONText.appendRaw(",\"weight\":", to: &bytes)
                JSONText.appendNumber(term.weight, to: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "]"))
        }
        JSONText.appendRaw("],\"parsed_query\":", to: &bytes)
        JSONText.appendString(parsedQuery, to: &bytes)
        // Only when synonyms applied, as in `jsonObject`.
        if !synonyms.isEmpty {
            JSONText.appendRaw(",\"synonyms\":[", to: &bytes)
            for (index, use) in synonyms.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendRaw("{\"synonyms\":[", to: &bytes)
                for (synonymIndex, synonym) in use.synonyms.enumerated() {
                    if synonymIndex > 0 { bytes.append(UInt8(ascii: ",")) }
                    JSONText.appendString(synonym, to: &bytes)
                }
                JSONText.appendRaw("],\"words\":", to: &bytes)
                JSONText.appendString(use.words, to: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if let typedWord {
            JSONText.appendRaw(",\"typed_word\":", to: &bytes)
            JSONText.appendString(typedWord, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

import CXapian
import Foundation

/// The results of one search: a page of hits, the estimated total, facet counts, and snippets.
///
/// Keeps the shim's result set alive because snippets need the query's terms and statistics.
/// Not thread-safe: use it from one thread (or one actor) at a time.
package final class XapianSearchResults {
    let handle: OpaquePointer

    /// Estimated number of matching documents (exact when the search looked at all of them).
    package let estimatedTotal: Int
    /// Lower and upper bounds of the number of matching documents.
    package let totalBounds: ClosedRange<Int>
    /// The hits of this page, best (or first in sort order) first.
    package let hits: [XapianHit]
    /// For each requested facet slot: each value and how many matching documents have it.
    package let facets: [UInt32: [String: Int]]
    /// The query that ran, as Xapian describes it (after expansion, if any; with the proximity boost as the pairs'
    /// `OP_NEAR` subqueries). Described when asked, since describing costs about as much as reading a hit.
    package func queryDescription() throws -> String {
        try XapianBytes.readString { cx_mset_query_description(handle, $0, $1, $2) }
    }
    /// How many matches the proximity boost weighed again (``XapianProximity``): at most its depth.
    package var reweighedDocuments: Int { cx_mset_reweighed_documents(handle) }
    /// The terms expansion added, best first.
    package let expansionTerms: [XapianExpansionTerm]
    /// With `explain`: for each hit, the query terms it matched and their parts of its weight.
    package let hitTerms: [[XapianHitTerm]]

    /// Takes ownership of `handle`, freeing it also when reading the results fails.
    init(taking handle: OpaquePointer, facetSlots: [UInt32], explained: Bool = false) throws {
        self.handle = handle
        let lower = Int(cx_mset_matches_lower_bound(handle))
        estimatedTotal = Int(cx_mset_matches_estimated(handle))
        totalBounds = lower...max(lower, Int(cx_mset_matches_upper_bound(handle)))
        do {
            hits = try Self.readHits(handle)
            facets = try Self.readFacets(handle, slots: facetSlots)
            expansionTerms = try Self.readExpansion(handle)
            hitTerms = explained ? try Self.readHitTerms(handle, hits: hits.count) : []
        } catch {
            // deinit does not run for a partly initialised object.
            cx_mset_free(handle)
            throw error
        }
    }

    private static func readHits(_ handle: OpaquePointer) throws -> [XapianHit] {
        try (0..<cx_mset_size(handle)).map { index in
            var hit = cx_hit()
            _ = try xapianCall { cx_mset_hit(handle, index, &hit, $0) }
            let data = try XapianBytes.read { cx_mset_hit_data(handle, index, $0, $1, $2) }
            return XapianHit(docid: hit.docid, rank: Int(hit.rank), weight: hit.weight,
                             percent: Int(hit.percent), data: Data(data))
        }
    }

    private static func readExpansion(_ handle: OpaquePointer) throws -> [XapianExpansionTerm] {
        try (0..<cx_mset_expansion_term_count(handle)).map { index in
            var weight = 0.0
            var scale = 0.0
            let term = try XapianBytes.readString { cx_mset_expansion_term(handle, index, $0, $1, &weight, &scale, $2) }
            return XapianExpansionTerm(term: term, expansionWeight: weight, scale: scale)
        }
    }

    private static func readHitTerms(_ handle: OpaquePointer, hits: Int) throws -> [[XapianHitTerm]] {
        try (0..<hits).map { hitIndex in
            let count = try xapianCall { cx_mset_hit_term_count(handle, hitIndex, $0) }
            return try (0..<count).map { termIndex in
                var wdf: UInt32 = 0
                var weight = 0.0
                let term = try XapianBytes.readString {
                    cx_mset_hit_term(handle, hitIndex, termIndex, $0, $1, &wdf, &weight, $2)
                }
                return XapianHitTerm(term: term, wdf: Int(wdf), weight: weight)
            }
        }
    }

    private static func readFacets(_ handle: OpaquePointer, slots: [UInt32]) throws -> [UInt32: [String: Int]] {
        var facets: [UInt32: [String: Int]] = [:]
        for (facetIndex, slot) in slots.enumerated() {
            var counts: [String: Int] = [:]
            let valueCount = try xapianCall { cx_mset_facet_value_count(handle, facetIndex, $0) }
            for valueIndex in 0..<valueCount {
                var frequency: UInt32 = 0
                let value = try XapianBytes.readString {
                    cx_mset_facet_value(handle, facetIndex, valueIndex, $0, $1, &frequency, $2)
                }
                // Values that are not valid UTF-8 may decode alike; their counts add up.
                counts[value, default: 0] += Int(frequency)
            }
            facets[slot] = counts
        }
        return facets
    }

    deinit {
        cx_mset_free(handle)
    }

    /// The part of `text` that best matches the query, HTML-escaped, with each matching word between
    /// `highlightStart` and `highlightEnd` (inserted as given) and `omission` where text was cut.
    /// - Parameters:
    ///   - length: bytes of text to aim for.
    ///   - language: the stemmer the query was parsed with (nil or "none": none).
    ///   - backgroundModel: whether Xapian favours "interesting" fragments by looking up the frequency of every
    ///     word of `text` in the index; without it a search with snippets costs half as much, and the fragment is
    ///     still chosen for the query's words.
    ///   - stemmer: a stemmer kept from search to search, which remembers its stems (it must be of `language`);
    ///     nil: one made for this snippet.
    package func snippet(
        for text: String, length: Int = 200, language: String? = "english",
        highlightStart: String = "<b>", highlightEnd: String = "</b>", omission: String = "…",
        backgroundModel: Bool = true, stemmer: XapianStemmer? = nil
    ) throws -> String {
        try XapianBytes.with(text) { textPointer, textLength in
            try XapianBytes.with(highlightStart) { startPointer, startLength in
                try XapianBytes.with(highlightEnd) { endPointer, endLength in
                    try XapianBytes.with(omission) { omitPointer, omitLength in
                        try withOptionalCString(language) { languagePointer in
                            var options = cx_snippet_options()
                            options.length = max(1, length)
                            options.stem_language = languagePointer
                            options.highlight_start = startPointer
                            options.highlight_start_len = startLength
                            options.highlight_end = endPointer
                            options.highlight_end_len = endLength
                            options.omit = omitPointer
                            options.omit_len = omitLength
                            // CJK n-grams as the indexer and the query parser make them, so such words are marked.
                            options.flags = (backgroundModel
                                ? cx_snippet_background_model | cx_snippet_exhaustive : cx_snippet_exhaustive)
                                | cx_snippet_cjk_ngram
                            options.stemmer = stemmer?.handle
                            return try withExtendedLifetime(stemmer) {
                                try XapianBytes.readString {
                                    cx_mset_snippet(handle, textPointer, textLength, &options, $0, $1, $2)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private func withOptionalCString<Result>(
        _ text: String?, _ body: (UnsafePointer<CChar>?) throws -> Result
    ) throws -> Result {
        guard let text else { return try body(nil) }
        return try text.withCString { try body($0) }
    }
}

extension XapianDatabase {
    /// Searches every database of this view.
    ///
    /// If a writer overwrites the revision being read, the database is reopened and the search retried up to
    /// `maxRetries` times before `.databaseModified` is thrown (0: throw at once).
    /// - Parameters:
    ///   - checkAtLeast: look at least at this many matches; facet counts and `estimatedTotal` are exact when it
    ///     is at least the document count.
    ///   - bm25: weighting parameters (nil: Xapian's defaults).
    ///   - facetSlots: value slots whose values are counted over the matches.
    ///   - timeLimit: seconds the match may run before the search fails with `.timeLimit` (0: no limit).
    /// - Throws: `SearchError.engine` (`.wildcard` when a wildcard expands beyond the parser's limit).
    package func search(
        _ query: XapianQuery, offset: Int = 0, limit: Int = 10, checkAtLeast: Int = 0,
        sort: XapianSort = .relevance, bm25: XapianBM25? = nil, facetSlots: [UInt32] = [], maxRetries: Int = 5,
        timeLimit: Double = 0, expansion: XapianExpansion? = nil, proximity: XapianProximity? = nil,
        explain: Bool = false
    ) throws -> XapianSearchResults {
        guard offset >= 0, limit >= 0, checkAtLeast >= 0, maxRetries >= 0 else {
            throw SearchError.engine(XapianError(
                code: .invalidArgument, type: "InvalidArgumentError",
                message: "offset \(offset), limit \(limit), checkAtLeast \(checkAtLeast) and maxRetries "
                    + "\(maxRetries) must not be negative"
            ))
        }
        var options = cx_search_options()
        options.offset = UInt32(clamping: offset)
        options.limit = UInt32(clamping: limit)
        options.check_at_least = UInt32(clamping: checkAtLeast)
        options.max_retries = UInt32(clamping: maxRetries)
        options.no_retry = maxRetries == 0
        options.time_limit = timeLimit > 0 && timeLimit.isFinite ? timeLimit : 0
        switch sort {
        case .relevance:
            options.sort = CX_SORT_RELEVANCE
        case .valueAscending(let slot):
            options.sort = CX_SORT_VALUE_ASCENDING
            options.sort_slot = slot
        case .valueDescending(let slot):
            options.sort = CX_SORT_VALUE_DESCENDING
            options.sort_slot = slot
        }
        options.explain = explain
        var parameters = (bm25 ?? XapianBM25()).shimParameters
        var expansionOptions = cx_expansion_options()
        if let expansion {
            expansionOptions.documents = UInt32(clamping: expansion.documents)
            expansionOptions.terms = UInt32(clamping: expansion.terms)
            expansionOptions.weight = expansion.weight
            expansionOptions.stemmed_only = expansion.stemmedOnly
            expansionOptions.minimum_terms = UInt32(clamping: expansion.minimumTerms)
            expansionOptions.feedback_query = expansion.feedbackQuery?.handle.pointer
        }
        var proximityOptions = cx_proximity_options()
        if let proximity {
            proximityOptions.words = proximity.words.handle.pointer
            proximityOptions.window = UInt32(clamping: proximity.window)
            proximityOptions.weight = proximity.weight
            proximityOptions.depth = UInt32(clamping: proximity.depth)
            proximityOptions.has_id_slot = proximity.idSlot != nil
            proximityOptions.id_slot = proximity.idSlot ?? 0
        }
        let mset = try withUnsafePointer(to: &parameters) { parametersPointer in
            options.bm25 = parametersPointer
            return try withUnsafePointer(to: &expansionOptions) { expansionPointer in
                options.expansion = expansion == nil ? nil : expansionPointer
                return try withUnsafePointer(to: &proximityOptions) { proximityPointer in
                    options.proximity = proximity == nil ? nil : proximityPointer
                    return try facetSlots.withUnsafeBufferPointer { slots in
                        options.facet_slots = slots.baseAddress
                        options.facet_slot_count = slots.count
                        return try withExtendedLifetime((query, expansion?.feedbackQuery, proximity?.words)) {
                            try xapianCall { cx_database_search(handle, query.handle.pointer, &options, $0) }
                        }
                    }
                }
            }
        }
        guard let mset else {
            throw XapianError.shimFailure("searching returned no results")
        }
        return try XapianSearchResults(taking: mset, facetSlots: facetSlots, explained: explain)
    }
}

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

    /// Takes ownership of `handle`, freeing it also when reading the results fails.
    init(taking handle: OpaquePointer, facetSlots: [UInt32]) throws {
        self.handle = handle
        let lower = Int(cx_mset_matches_lower_bound(handle))
        estimatedTotal = Int(cx_mset_matches_estimated(handle))
        totalBounds = lower...max(lower, Int(cx_mset_matches_upper_bound(handle)))
        do {
            hits = try Self.readHits(handle)
            facets = try Self.readFacets(handle, slots: facetSlots)
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
    package func snippet(
        for text: String, length: Int = 200, language: String? = "english",
        highlightStart: String = "<b>", highlightEnd: String = "</b>", omission: String = "…"
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
                            return try XapianBytes.readString {
                                cx_mset_snippet(handle, textPointer, textLength, &options, $0, $1, $2)
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
    /// - Throws: `XapianError` (`.wildcard` when a wildcard expands beyond the parser's limit).
    package func search(
        _ query: XapianQuery, offset: Int = 0, limit: Int = 10, checkAtLeast: Int = 0,
        sort: XapianSort = .relevance, bm25: XapianBM25? = nil, facetSlots: [UInt32] = [], maxRetries: Int = 5,
        timeLimit: Double = 0
    ) throws -> XapianSearchResults {
        guard offset >= 0, limit >= 0, checkAtLeast >= 0, maxRetries >= 0 else {
            throw XapianError(
                code: .invalidArgument, type: "InvalidArgumentError",
                message: "offset \(offset), limit \(limit), checkAtLeast \(checkAtLeast) and maxRetries "
                    + "\(maxRetries) must not be negative"
            )
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
        var parameters = (bm25 ?? XapianBM25()).shimParameters
        let mset = try withUnsafePointer(to: &parameters) { parametersPointer in
            options.bm25 = parametersPointer
            return try facetSlots.withUnsafeBufferPointer { slots in
                options.facet_slots = slots.baseAddress
                options.facet_slot_count = slots.count
                return try withExtendedLifetime(query) {
                    try xapianCall { cx_database_search(handle, query.handle.pointer, &options, $0) }
                }
            }
        }
        guard let mset else {
            throw XapianError(code: .unknown, type: "unknown", message: "searching returned no results")
        }
        return try XapianSearchResults(taking: mset, facetSlots: facetSlots)
    }
}

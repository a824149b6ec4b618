import CXapian

/// An immutable Xapian query, from a `XapianQueryParser` or composed from terms and other queries.
///
/// Copies share one shim handle, freed with the last copy. Not Sendable: use it on the thread that made it.
package struct XapianQuery: CustomStringConvertible {
    final class Handle {
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) {
            self.pointer = pointer
        }

        deinit {
            cx_query_free(pointer)
        }
    }

    let handle: Handle

    init(taking make: (UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?) throws {
        let made = try xapianCall(make)
        guard let made else {
            throw XapianError.shimFailure("building a query returned nothing")
        }
        handle = Handle(made)
    }

    /// Matches documents indexed by `term`.
    package static func term(_ term: String) throws -> XapianQuery {
        try XapianBytes.with(term) { pointer, length in
            try XapianQuery { cx_query_new_term(pointer, length, $0) }
        }
    }

    /// Matches documents indexed by any term starting with `stem`; expanding to more than `limit` terms (0: no
    /// limit) makes the search fail with `.wildcard`.
    package static func wildcard(_ stem: String, limit: UInt32) throws -> XapianQuery {
        try XapianBytes.with(stem) { pointer, length in
            try XapianQuery { cx_query_new_wildcard(pointer, length, limit, $0) }
        }
    }

    /// Matches every document.
    package static func matchAll() throws -> XapianQuery {
        try XapianQuery { cx_query_new_match_all($0) }
    }

    /// Matches no document.
    package static func matchNothing() throws -> XapianQuery {
        try XapianQuery { cx_query_new_match_nothing($0) }
    }

    /// Matches documents whose number in value slot `slot` (stored with `setValue(slot:number:)`) lies between
    /// `lower` and `upper` inclusive; nil leaves that end open (not both).
    package static func numberRange(slot: UInt32, lower: Double?, upper: Double?) throws -> XapianQuery {
        let lowerBytes = try lower.map(XapianQuery.sortableBytes)
        let upperBytes = try upper.map(XapianQuery.sortableBytes)
        return try valueRange(slot: slot, lower: lowerBytes, upper: upperBytes)
    }

    /// Matches documents whose value in slot `slot` lies between `lower` and `upper` inclusive, compared as
    /// bytes; nil leaves that end open (not both).
    package static func valueRange(slot: UInt32, lower: [UInt8]?, upper: [UInt8]?) throws -> XapianQuery {
        // A non-nil pointer marks a closed end, even for an empty bound.
        let lowerStorage = lower.map { $0 + [0] }
        let upperStorage = upper.map { $0 + [0] }
        return try withOptionalPointer(lowerStorage) { lowerPointer in
            try withOptionalPointer(upperStorage) { upperPointer in
                try XapianQuery {
                    cx_query_new_value_range(slot, lowerPointer, lower?.count ?? 0, upperPointer, upper?.count ?? 0, $0)
                }
            }
        }
    }

    /// Matches documents matching every query; weights add up.
    package static func and(_ queries: [XapianQuery]) throws -> XapianQuery {
        try combine(cx_op_and, queries)
    }

    /// Matches documents matching any query; weights add up.
    package static func or(_ queries: [XapianQuery]) throws -> XapianQuery {
        try combine(cx_op_or, queries)
    }

    /// Matches documents matching `query` and every filter; only `query` contributes weight.
    package static func filter(_ query: XapianQuery, by filters: [XapianQuery]) throws -> XapianQuery {
        filters.isEmpty ? query : try combine(cx_op_filter, [query] + filters)
    }

    /// Matches documents matching `query` but none of `excluded`.
    package static func andNot(_ query: XapianQuery, excluding excluded: [XapianQuery]) throws -> XapianQuery {
        excluded.isEmpty ? query : try combine(cx_op_and_not, [query] + excluded)
    }

    /// This query, with documents where consecutive words of `words` appear within `window` positions of each
    /// other weighted up by `weight` (shared among the pairs); matches stay the same. `words` should be the same
    /// text parsed without stemming: stemmed terms have no positions.
    package func withProximity(of words: XapianQuery, window: Int, weight: Double) throws -> XapianQuery {
        try withExtendedLifetime((self, words)) {
            try XapianQuery {
                cx_query_with_proximity(handle.pointer, words.handle.pointer, UInt32(clamping: window), weight, $0)
            }
        }
    }

    /// True for the empty query (e.g. parsed from blank text), which matches nothing.
    package var isEmpty: Bool {
        cx_query_is_empty(handle.pointer)
    }

    /// Xapian's description of the query, e.g. "Query((Zinvoic@1 AND Kpaid))".
    package var description: String {
        (try? XapianBytes.readString { cx_query_description(handle.pointer, $0, $1, $2) }) ?? "Query(?)"
    }

    private static func combine(_ op: Int32, _ queries: [XapianQuery]) throws -> XapianQuery {
        let pointers: [OpaquePointer?] = queries.map { $0.handle.pointer }
        // The handles must outlive the call: the array keeps every query (and so every handle) alive.
        return try withExtendedLifetime(queries) {
            try pointers.withUnsafeBufferPointer { buffer in
                try XapianQuery { cx_query_combine(op, buffer.baseAddress, buffer.count, $0) }
            }
        }
    }

    private static func sortableBytes(_ number: Double) throws -> [UInt8] {
        try XapianBytes.read { cx_sortable_serialise(number, $0, $1, $2) }
    }

    private static func withOptionalPointer<Result>(
        _ bytes: [UInt8]?, _ body: (UnsafePointer<CChar>?) throws -> Result
    ) throws -> Result {
        guard let bytes else { return try body(nil) }
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress) }
        }
    }
}

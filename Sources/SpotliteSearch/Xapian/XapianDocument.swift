import CXapian
import Foundation

/// A document being built for a `XapianWritableDatabase`: terms, values and data.
///
/// Not thread-safe: use it from one thread (or one actor) at a time.
package final class XapianDocument {
    let handle: OpaquePointer

    /// Creates an empty document.
    package init() throws {
        let created = try xapianCall { cx_document_new($0) }
        guard let created else {
            throw XapianError.shimFailure("creating a document returned nothing")
        }
        handle = created
    }

    /// Takes ownership of a document the shim made.
    init(owning handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        cx_document_free(handle)
    }

    /// Sets the opaque data returned with search results.
    package func setData(_ data: Data) throws {
        try XapianBytes.with(bytes: data) { pointer, length in
            _ = try xapianCall { cx_document_set_data(handle, pointer, length, $0) }
        }
    }

    /// Sets the data to the UTF-8 bytes of `text`.
    package func setData(_ text: String) throws {
        try setData(Data(text.utf8))
    }

    /// The document's data.
    package func data() throws -> Data {
        Data(try XapianBytes.read { cx_document_get_data(handle, $0, $1, $2) })
    }

    /// Adds a term that filters but does not weigh (ids, categories). Terms over 245 bytes are rejected
    /// when the document is written, which loses the batch: hash long keys first.
    package func addBooleanTerm(_ term: String) throws {
        try XapianBytes.with(term) { pointer, length in
            _ = try xapianCall { cx_document_add_boolean_term(handle, pointer, length, $0) }
        }
    }

    /// Adds a term without position, raising its within-document frequency by `wdfIncrement`.
    package func addTerm(_ term: String, wdfIncrement: UInt32 = 1) throws {
        try XapianBytes.with(term) { pointer, length in
            _ = try xapianCall { cx_document_add_term(handle, pointer, length, wdfIncrement, $0) }
        }
    }

    /// Stores a number in value slot `slot`, encoded so that sorting and number ranges work.
    package func setValue(slot: UInt32, number: Double) throws {
        _ = try xapianCall { cx_document_set_value_number(handle, slot, number, $0) }
    }

    /// Stores the UTF-8 bytes of `string` in value slot `slot` (facets, string sorting).
    package func setValue(slot: UInt32, string: String) throws {
        try setValue(slot: slot, bytes: Array(string.utf8))
    }

    /// Stores raw bytes in value slot `slot`; empty bytes clear it.
    package func setValue(slot: UInt32, bytes: [UInt8]) throws {
        try XapianBytes.with(bytes: bytes) { pointer, length in
            _ = try xapianCall { cx_document_set_value(handle, slot, pointer, length, $0) }
        }
    }

    /// The raw bytes in value slot `slot`; empty when unset.
    package func value(slot: UInt32) throws -> [UInt8] {
        try XapianBytes.read { cx_document_get_value(handle, slot, $0, $1, $2) }
    }

    /// Number of distinct terms in the document.
    package func termCount() throws -> Int {
        Int(try xapianCall { cx_document_term_count(handle, $0) })
    }

    /// A term of a document as Xapian holds it.
    package struct Term: Equatable, Sendable, CustomStringConvertible {
        /// The term's bytes (a prefix, then the word), which need not be UTF-8.
        package var bytes: [UInt8]
        /// Its within-document frequency.
        package var wdf: UInt32
        /// Its positions, ascending (empty for terms indexed without positions).
        package var positions: [UInt32]

        package var description: String {
            "\(String(decoding: bytes, as: UTF8.self)) wdf \(wdf) at \(positions)"
        }
    }

    /// The document's terms in term order, with their wdf and positions.
    package func terms() throws -> [Term] {
        let encoded = try XapianBytes.read { cx_document_terms(handle, $0, $1, $2) }
        var terms: [Term] = []
        var index = 0
        func number() throws -> UInt32 {
            guard index + 4 <= encoded.count else {
                throw XapianError.shimFailure("a document's term list ended early")
            }
            defer { index += 4 }
            return (0..<4).reduce(UInt32(0)) { $0 | UInt32(encoded[index + $1]) << (8 * UInt32($1)) }
        }
        while index < encoded.count {
            let length = Int(try number())
            guard index + length <= encoded.count else {
                throw XapianError.shimFailure("a document's term list ended early")
            }
            let bytes = Array(encoded[index..<index + length])
            index += length
            let wdf = try number()
            let count = Int(try number())
            var positions: [UInt32] = []
            positions.reserveCapacity(count)
            for _ in 0..<count { positions.append(try number()) }
            terms.append(Term(bytes: bytes, wdf: wdf, positions: positions))
        }
        return terms
    }
}

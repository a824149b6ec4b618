import CXapian

/// The words one document feeds to spelling correction, each with its number of occurrences.
///
/// Collected while indexing (``XapianTermGenerator/indexField(_:weight:prefix:positions:countingSpellingInto:)``) instead of
/// the generator writing them to the database, and recorded in the document
/// (``XapianWritableDatabase/writeDocument(uniqueTerm:document:spellingWords:slot:fresh:)``), so that replacing or
/// deleting the document later takes exactly these words back out of the spelling table. Xapian's own
/// `FLAG_SPELLING` only ever adds: every update of a record would add its words again.
///
/// Not thread-safe: use it from one thread at a time.
package final class XapianSpellingWords {
    let handle: OpaquePointer

    /// Creates an empty set.
    package init() throws {
        let created = try xapianCall { cx_spelling_words_new($0) }
        guard let created else {
            throw XapianError.shimFailure("creating spelling words returned nothing")
        }
        handle = created
    }

    deinit {
        cx_spelling_words_free(handle)
    }

    /// Empties the set, for the next document.
    package func removeAll() throws {
        _ = try xapianCall { cx_spelling_words_clear(handle, $0) }
    }

    /// Decodes the shim's encoding of words and counts (varint length, bytes, varint count, repeated).
    static func decode(_ bytes: [UInt8]) -> [String: Int] {
        var counts: [String: Int] = [:]
        var index = 0
        func varint() -> Int? {
            var value = 0, shift = 0
            while index < bytes.count, shift < 63 {
                let byte = bytes[index]
                index += 1
                value |= Int(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        while index < bytes.count {
            guard let length = varint(), length <= bytes.count - index else { break }
            let word = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            index += length
            guard let count = varint() else { break }
            counts[word, default: 0] += count
        }
        return counts
    }
}

import CXapian

/// A stemmer for snippets that remembers the words it stemmed: a snippet stems every word of its text, and the words
/// of one collection's texts recur from hit to hit and search to search. Stems are the language's own.
///
/// Not thread-safe: use it from one thread (or under one lock) at a time.
package final class XapianStemmer {
    let handle: OpaquePointer
    /// The language given (nil: no stemming).
    package let language: String?

    /// How many words a stemmer remembers by default before it starts again (a few MiB at most).
    package static let defaultCapacity = 50_000

    /// Creates a stemmer.
    /// - Parameters:
    ///   - language: stemmer language, as for `XapianQueryParser` (nil or "none": none).
    ///   - capacity: words remembered before the memory is cleared and filled again (0: none).
    /// - Throws: `SearchError.engine` (`.invalidArgument` for an unknown language).
    package init(language: String?, capacity: Int = XapianStemmer.defaultCapacity) throws {
        let made = try xapianCall { cx_stemmer_new(language, max(0, capacity), $0) }
        guard let made else {
            throw XapianError.shimFailure("creating a stemmer returned nothing")
        }
        handle = made
        self.language = language
    }

    /// The stem of `word` (itself without a language).
    package func stem(_ word: String) throws -> String {
        try XapianBytes.with(word) { pointer, length in
            try XapianBytes.readString { cx_stemmer_stem(handle, pointer, length, $0, $1, $2) }
        }
    }

    deinit {
        cx_stemmer_free(handle)
    }
}

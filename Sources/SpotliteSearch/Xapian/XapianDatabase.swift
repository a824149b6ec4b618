import CXapian
import Foundation

/// A read-only view of one Xapian database, or of several searched together.
///
/// Long-lived readers stay valid while a writer commits: reads reopen and retry when the revision they were
/// reading is overwritten, and a reader whose retries ran out is reopened before its next read. Between reopens
/// a reader keeps seeing the revision it opened. Not thread-safe: use it from one thread (or one actor) at a time.
package final class XapianDatabase {
    let handle: OpaquePointer

    /// Opens the database at `path`.
    /// - Throws: `SearchError.engine` (`.databaseNotFound` when there is none).
    package init(path: String) throws {
        let opened = try xapianCall { cx_database_open(path, $0) }
        guard let opened else {
            throw XapianError.shimFailure("opening \(path) returned no database")
        }
        handle = opened
    }

    /// Takes ownership of a handle the shim opened.
    init(handle: OpaquePointer) {
        self.handle = handle
    }

    /// Opens several databases to search them together. Metadata is read from the first.
    package convenience init(paths: [String]) throws {
        guard let first = paths.first else {
            throw SearchError.engine(XapianError(
                code: .invalidArgument, type: "InvalidArgumentError",
                message: "no database paths given; give at least one"
            ))
        }
        try self.init(path: first)
        for path in paths.dropFirst() {
            try addDatabase(path: path)
        }
    }

    deinit {
        cx_database_free(handle)
    }

    /// Adds the database at `path` to those searched together.
    package func addDatabase(path: String) throws {
        _ = try xapianCall { cx_database_add_database(handle, path, $0) }
    }

    /// Moves to the latest committed revision; false when nothing changed.
    @discardableResult
    package func reopen() throws -> Bool {
        var changed = false
        _ = try xapianCall { cx_database_reopen(handle, &changed, $0) }
        return changed
    }

    /// Closes the database; later calls fail with `.databaseClosed`.
    package func close() throws {
        _ = try xapianCall { cx_database_close(handle, $0) }
    }

    /// Number of documents.
    package func documentCount() throws -> Int {
        Int(try xapianCall { cx_database_doc_count(handle, $0) })
    }

    /// Number of documents indexed by `term`.
    package func termFrequency(_ term: String) throws -> Int {
        try XapianBytes.with(term) { pointer, length in
            Int(try xapianCall { cx_database_term_frequency(handle, pointer, length, $0) })
        }
    }

    /// The value stored under `key` in the first database, or nil when there is none.
    package func metadata(forKey key: String) throws -> String? {
        let bytes = try metadataBytes(forKey: key)
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// The raw value stored under `key` in the first database; empty when there is none.
    package func metadataBytes(forKey key: String) throws -> [UInt8] {
        try XapianBytes.with(key) { keyPointer, keyLength in
            try XapianBytes.read { cx_database_get_metadata(handle, keyPointer, keyLength, $0, $1, $2) }
        }
    }

    /// The data of the document with id term `uniqueTerm`, or nil if there is none.
    package func documentData(uniqueTerm: String) throws -> Data? {
        try XapianBytes.with(uniqueTerm) { term, length in
            var found = false
            let bytes = try XapianBytes.read { cx_database_document_data(handle, term, length, &found, $0, $1, $2) }
            return found ? Data(bytes) : nil
        }
    }

    /// A copy of the document with id term `uniqueTerm` (its terms with wdf and positions, values and data), or nil
    /// if there is none.
    package func document(uniqueTerm: String) throws -> XapianDocument? {
        try XapianBytes.with(uniqueTerm) { term, length in
            var copy: OpaquePointer?
            _ = try xapianCall { cx_database_document(handle, term, length, &copy, $0) }
            return copy.map { XapianDocument(owning: $0) }
        }
    }

    /// Every word of the spelling table with its frequency (summed over the shards).
    package func spellings() throws -> [String: Int] {
        XapianSpellingWords.decode(try XapianBytes.read { cx_database_spellings(handle, $0, $1, $2) })
    }

    /// The terms starting with `prefix`, at most `limit` of them (0: all), each with the number of documents
    /// indexed by it (summed over the shards).
    package func terms(prefix: String, limit: UInt32) throws -> [String: Int] {
        try XapianBytes.with(prefix) { pointer, length in
            XapianSpellingWords.decode(try XapianBytes.read { cx_database_terms(handle, pointer, length, limit, $0, $1, $2) })
        }
    }

    /// How hard compaction works to save space.
    package enum CompactionLevel: Sendable {
        /// Do not split items unnecessarily.
        case standard
        /// Split items whenever it saves space.
        case full
        /// Allow oversize items to save more space (the copy should not be written to afterwards).
        case fuller

        var rawValue: UInt32 {
            switch self {
            case .standard: cx_compact_standard
            case .full: cx_compact_full
            case .fuller: cx_compact_fuller
            }
        }
    }

    /// Writes a compacted copy of every database of this view into a new database at `destination`.
    /// Document ids are renumbered; metadata is kept.
    package func compact(to destination: String, level: CompactionLevel = .standard) throws {
        _ = try xapianCall { cx_database_compact(handle, destination, level.rawValue, $0) }
    }
}

import CXapian
import Foundation

/// A Xapian database opened for writing; holds the write lock until closed or released.
///
/// Not thread-safe: use it from one thread (or one actor) at a time.
package final class XapianWritableDatabase {
    /// What to do about an existing (or missing) database when opening.
    package enum OpenAction: Sendable {
        /// Open the database, creating it if missing.
        case createOrOpen
        /// Replace any existing database with an empty one.
        case createOrOverwrite
        /// Create a new database; fail if one exists.
        case create
        /// Open an existing database; fail if missing.
        case open

        var flags: Int32 {
            switch self {
            case .createOrOpen: cx_db_create_or_open
            case .createOrOverwrite: cx_db_create_or_overwrite
            case .create: cx_db_create
            case .open: cx_db_open
            }
        }
    }

    let handle: OpaquePointer

    /// Opens the database at `path`.
    /// - Parameters:
    ///   - noSync: skip fsync on commit (faster, not crash-safe; for tests and rebuilds).
    ///   - retryLock: wait for another writer to release the lock instead of failing with `.databaseLock`.
    /// - Throws: `SearchError.engine` (`.databaseLock` when another writer holds the lock).
    package init(path: String, action: OpenAction = .createOrOpen, noSync: Bool = false, retryLock: Bool = false) throws {
        var flags = action.flags
        if noSync { flags |= cx_db_no_sync }
        if retryLock { flags |= cx_db_retry_lock }
        let opened = try xapianCall { error in cx_writable_database_open(path, flags, error) }
        guard let opened else {
            throw XapianError.shimFailure("opening \(path) returned no database")
        }
        handle = opened
    }

    /// Takes ownership of a handle the shim opened.
    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        // Closing commits pending changes and ignores errors: commit explicitly to see them.
        cx_writable_database_free(handle)
    }

    /// Makes every change since the last commit durable.
    package func commit() throws {
        _ = try xapianCall { cx_writable_database_commit(handle, $0) }
    }

    /// Commits pending changes and starts a transaction; `durable` makes its commit survive a crash.
    package func beginTransaction(durable: Bool = true) throws {
        _ = try xapianCall { cx_writable_database_begin_transaction(handle, durable, $0) }
    }

    /// Commits the open transaction.
    package func commitTransaction() throws {
        _ = try xapianCall { cx_writable_database_commit_transaction(handle, $0) }
    }

    /// Discards every change made in the open transaction.
    package func cancelTransaction() throws {
        _ = try xapianCall { cx_writable_database_cancel_transaction(handle, $0) }
    }

    /// Stores `value` under `key`, committed atomically with documents; an empty value deletes the key.
    package func setMetadata(_ value: String, forKey key: String) throws {
        try setMetadata(bytes: Array(value.utf8), forKey: key)
    }

    /// Stores raw bytes under `key`; an empty value deletes the key.
    package func setMetadata(bytes value: [UInt8], forKey key: String) throws {
        try XapianBytes.with(key) { keyPointer, keyLength in
            try XapianBytes.with(bytes: value) { valuePointer, valueLength in
                _ = try xapianCall {
                    cx_writable_database_set_metadata(handle, keyPointer, keyLength, valuePointer, valueLength, $0)
                }
            }
        }
    }

    /// The value stored under `key` (uncommitted changes included), or nil when there is none.
    package func metadata(forKey key: String) throws -> String? {
        let bytes = try metadataBytes(forKey: key)
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// The raw value stored under `key`; empty when there is none.
    package func metadataBytes(forKey key: String) throws -> [UInt8] {
        try XapianBytes.with(key) { keyPointer, keyLength in
            try XapianBytes.read { cx_writable_database_get_metadata(handle, keyPointer, keyLength, $0, $1, $2) }
        }
    }

    /// Stores `document` as the only document with id term `uniqueTerm` (added to the document), replacing
    /// any earlier one. Returns the document id.
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    @discardableResult
    package func replaceDocument(uniqueTerm: String, document: XapianDocument) throws -> UInt32 {
        try XapianBytes.with(uniqueTerm) { term, length in
            var docid: UInt32 = 0
            _ = try xapianCall { cx_writable_database_replace_document(handle, term, length, document.handle, &docid, $0) }
            return docid
        }
    }

    /// Adds `document` with id term `uniqueTerm` without looking for an existing one: only for a database known not
    /// to hold that term (a fresh rebuild), where it saves `replaceDocument`'s lookup.
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    @discardableResult
    package func addDocument(uniqueTerm: String, document: XapianDocument) throws -> UInt32 {
        try XapianBytes.with(uniqueTerm) { term, length in
            var docid: UInt32 = 0
            _ = try xapianCall { cx_writable_database_add_document(handle, term, length, document.handle, &docid, $0) }
            return docid
        }
    }

    /// Stores `document` (with id term `uniqueTerm` added) as document `id`, found by ``documentIDs(prefix:)``:
    /// unlike ``replaceDocument(uniqueTerm:document:)`` it makes Xapian look nothing up, and each lookup writes out
    /// the positions of every document written since the previous one, at a cost that grows with the database.
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    package func replaceDocument(id: UInt32, uniqueTerm: String, document: XapianDocument) throws {
        try XapianBytes.with(uniqueTerm) { term, length in
            _ = try xapianCall { cx_writable_database_replace_document_id(handle, id, term, length, document.handle, $0) }
        }
    }

    /// The documents indexed by terms starting with `prefix` (the unique id terms), uncommitted changes included:
    /// each term with the ids of its documents (one, unless something wrote duplicates). Over a remote database,
    /// one round trip per term.
    package func documentIDs(prefix: String) throws -> [String: [UInt32]] {
        let listing = try XapianBytes.with(prefix) { pointer, length in
            try XapianBytes.read { cx_writable_database_list_documents(handle, pointer, length, $0, $1, $2) }
        }
        var ids: [String: [UInt32]] = [:]
        var offset = 0
        let header = 2 * MemoryLayout<UInt32>.size
        try listing.withUnsafeBytes { raw in
            while offset < raw.count {
                guard raw.count - offset >= header else { throw Self.malformedListing }
                let id = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                offset += header
                guard raw.count - offset >= length else { throw Self.malformedListing }
                let term = String(decoding: raw[offset..<offset + length], as: UTF8.self)
                offset += length
                ids[term, default: []].append(id)
            }
        }
        return ids
    }

    private static let malformedListing = XapianError.shimFailure("the shim's document listing is truncated")

    /// Deletes the document with id term `uniqueTerm`; a missing one is not an error.
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    package func deleteDocument(uniqueTerm: String) throws {
        try XapianBytes.with(uniqueTerm) { term, length in
            _ = try xapianCall { cx_writable_database_delete_document(handle, term, length, $0) }
        }
    }

    /// Writes `document` with id term `uniqueTerm` (replacing any earlier one, or, when `fresh`, adding it without
    /// looking: see ``addDocument(uniqueTerm:document:)``), keeps in its value `slot` a record of `spellingWords`
    /// and a digest of the rest of the document, and brings the spelling table in line: the words the replaced
    /// document recorded come out, `spellingWords` go in, and only each word's difference is written. A replaced
    /// document without a record has nothing taken out.
    /// - Returns: false when the replaced document recorded the same digest and words: nothing was written.
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    @discardableResult
    package func writeDocument(uniqueTerm: String, document: XapianDocument, spellingWords: XapianSpellingWords,
                               slot: UInt32, fresh: Bool) throws -> Bool {
        try XapianBytes.with(uniqueTerm) { term, length in
            var written = false
            _ = try xapianCall {
                cx_writable_database_write_document_spelling(handle, term, length, document.handle, slot,
                                                             spellingWords.handle, fresh, &written, $0)
            }
            return written
        }
    }

    /// What ``writeDocumentRest(uniqueTerm:document:slot:)`` did.
    package enum RestWrite: Equatable, Sendable {
        /// The stored document has no record of its terms (or is missing, or duplicated): write it whole.
        case needsWholeDocument
        /// Its values and data were already these.
        case unchanged
        /// Its values and data were replaced; its terms kept.
        case written
    }

    /// Writes the values and data of `document` over those of the document with id term `uniqueTerm`, keeping its
    /// terms and its record's spelling words, for a record whose change touched no column that makes terms.
    /// Xapian then neither compares nor rewrites the terms and their positions.
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    package func writeDocumentRest(uniqueTerm: String, document: XapianDocument, slot: UInt32) throws -> RestWrite {
        try XapianBytes.with(uniqueTerm) { term, length in
            var applied = false, written = false
            _ = try xapianCall {
                cx_writable_database_write_document_rest(handle, term, length, document.handle, slot, &applied,
                                                         &written, $0)
            }
            return !applied ? .needsWholeDocument : written ? .written : .unchanged
        }
    }

    /// Deletes the document with id term `uniqueTerm` (a missing one is not an error), first taking the spelling
    /// words recorded in its value `slot` out of the spelling table.
    /// - Throws: `SearchError.engine`; when `batchLost` is set, every change since the last commit is gone.
    package func deleteDocument(uniqueTerm: String, spellingSlot slot: UInt32) throws {
        try XapianBytes.with(uniqueTerm) { term, length in
            _ = try xapianCall { cx_writable_database_delete_document_spelling(handle, term, length, slot, $0) }
        }
    }

    /// Number of documents, uncommitted changes included.
    package func documentCount() throws -> Int {
        Int(try xapianCall { cx_writable_database_doc_count(handle, $0) })
    }

    /// The data of the document with id term `uniqueTerm` (uncommitted changes included), or nil if none.
    package func documentData(uniqueTerm: String) throws -> Data? {
        try XapianBytes.with(uniqueTerm) { term, length in
            var found = false
            let bytes = try XapianBytes.read { cx_writable_database_document_data(handle, term, length, &found, $0, $1, $2) }
            return found ? Data(bytes) : nil
        }
    }

    /// Closes the database without committing anything and releases the lock; never fails. Later calls fail with
    /// `.databaseClosed`. A write that fails on the disk or the connection (a full disk, an I/O error, a lost
    /// server) has done this already: open the database again to continue from its last commit.
    package func discard() {
        cx_writable_database_discard(handle)
    }

    /// Whether a write that failed on the disk or the connection closed the database without committing
    /// (``discard()``).
    package var isDiscarded: Bool { cx_writable_database_is_discarded(handle) }

    /// Commits pending changes (cancelling an open transaction), closes the database and releases the lock.
    /// Later calls fail with `.databaseClosed`. A commit that fails discards the database (``discard()``).
    package func close() throws {
        _ = try xapianCall { cx_writable_database_close(handle, $0) }
    }
}

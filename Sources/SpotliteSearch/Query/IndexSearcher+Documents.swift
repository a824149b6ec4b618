import Foundation
import GRDB
import SpotliteStore

/// A document as the index holds it: what a record looked like when it was last indexed.
public struct IndexedDocument: Sendable, Hashable {
    /// The record's entity.
    public var entity: String
    /// The record's key.
    public var key: StoredValue
    /// The stored fields (those with `store = true`, and `stored` fields), by name.
    public var fields: [String: StoredValue]
}

extension IndexSearcher {
    /// Reads back the document of the record `key` of `entity` as the live index holds it now, or nil when the
    /// index has none (never indexed, deleted, or left out by a document provider). Compare with the store to see
    /// whether the index has caught up with a record, or show a record from the index alone.
    ///
    /// - Throws: ``SearchError/indexMissing(path:)`` without an index; ``SearchError/indexCorrupt(path:reason:)``
    ///   when it cannot be read; ``SearchError/engine(_:outcome:)`` for other engine failures.
    public func document(entity: String, key: DatabaseValue) throws -> IndexedDocument? {
        try state.withLock { state in
            let open = try currentOpen(&state)
            let data: Data?
            do {
                data = try open.database.documentData(uniqueTerm: DocumentIdentity.term(entity: entity, key: key))
            } catch SearchError.engine(let error, nil) {
                throw SearchError.reading(error, path: indexPath)
            }
            guard let data, let decoded = DocumentData(decoding: data) else { return nil }
            return IndexedDocument(entity: decoded.entity, key: decoded.key, fields: decoded.fields)
        }
    }
}

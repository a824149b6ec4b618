import GRDB
import SpotliteStore

/// The override point, like `NSCoreDataCoreSpotlightDelegate.attributeSet(for:)`: decides what a record's document
/// holds, or leaves the record out of the index.
///
/// The database handle is read-only and sees the same snapshot as the row, so values can come from related tables.
/// Because such values can depend on other rows, every update of a record whose entity has a provider reindexes it
/// (not only updates of configured columns). When a related row changes, ``recordsDepending(on:keys:in:)`` names
/// the records to reindex; the related table must be an entity of the configuration (so the store records its
/// history), and the provider may return nil for its own records to keep them out of the index.
public protocol IndexDocumentProvider: Sendable {
    /// The document's values for `record`, or nil to leave it out of the index.
    func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet?

    /// The records whose documents use values of the changed (inserted, updated or deleted) records of `entity`
    /// with these keys, read after the change. The default: none. Records are told apart byte for byte
    /// (``SpotliteStore/RecordID``), as SQLite tells their rows apart.
    func recordsDepending(on entity: String, keys: [DatabaseValue], in db: Database) throws -> [RecordID]
}

extension IndexDocumentProvider {
    /// No record depends on another.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func recordsDepending(on entity: String, keys: [DatabaseValue], in db: Database) throws -> [RecordID] {
        []
    }
}

import GRDB

/// A record the indexer is about to index: its entity, key and current row.
public struct IndexRecord {
    /// The entity (table) name.
    public let entity: String
    /// The value of the entity's key column.
    public let key: DatabaseValue
    /// The record's current row, every column of the table included.
    public let row: Row

    /// The record of `entity` whose key is `key`, with its current `row`: what the indexer hands an
    /// ``IndexDocumentProvider``, made by hand to test one.
    ///
    /// ```swift
    /// let record = IndexRecord(entity: "Package", key: "vim".databaseValue,
    ///                          row: ["name": "vim", "summary": "Vi IMproved"])
    /// let attributes = try provider.attributeSet(for: record, in: db)
    /// ```
    public init(entity: String, key: DatabaseValue, row: Row) {
        self.entity = entity
        self.key = key
        self.row = row
    }
}

/// Names a record of the store: an entity and a key.
public struct IndexRecordID: Sendable, Hashable {
    /// The entity (table) name.
    public var entity: String
    /// The value of the entity's key column.
    public var key: DatabaseValue

    /// The record of `entity` whose key is `key`.
    public init(entity: String, key: DatabaseValue) {
        self.entity = entity
        self.key = key
    }

    /// Byte for byte, as SQLite compares keys: keys that differ only in Unicode normalisation are two records.
    public static func == (lhs: IndexRecordID, rhs: IndexRecordID) -> Bool {
        ExactText(lhs.entity) == ExactText(rhs.entity) && ExactValue(lhs.key) == ExactValue(rhs.key)
    }

    /// Hashes the entity and the key's exact storage, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactText(entity))
        hasher.combine(ExactValue(key))
    }
}

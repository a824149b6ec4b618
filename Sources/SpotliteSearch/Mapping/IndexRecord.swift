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

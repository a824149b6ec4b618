import Foundation
import GRDB

/// One record of a store: the entity (table) and the key of its row.
///
/// Two records are equal when their entities and keys are equal byte for byte, with the key's storage class, as
/// SQLite tells rows apart: text keys that differ only in Unicode normalisation (`"café"` in NFC and in NFD) are two
/// records, although Swift's `String` and GRDB's `DatabaseValue` call them equal. So a record keeps its identity
/// from the history a consumer reads to the document it writes, through any set or dictionary on the way.
public struct RecordID: Sendable, Hashable, CustomStringConvertible {
    /// The entity (table).
    public var entity: String
    /// The row's key, with the type it has in the table (integer or text).
    public var key: DatabaseValue

    /// The record of `entity` with this key.
    public init(entity: String, key: DatabaseValue) {
        self.entity = entity
        self.key = key
    }

    /// `Entity/key`.
    public var description: String { "\(entity)/\(key)" }

    /// Byte for byte, as SQLite compares keys: keys that differ only in Unicode normalisation are two records.
    public static func == (lhs: RecordID, rhs: RecordID) -> Bool {
        lhs.entity.utf8.elementsEqual(rhs.entity.utf8) && ExactValue(lhs.key) == ExactValue(rhs.key)
    }

    /// Hashes the entity's bytes and the key's exact storage, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        var entity = entity
        entity.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(entity.utf8.count)
        hasher.combine(ExactValue(key))
    }

    /// The row of `record` with every column, or nil when there is none.
    static func currentRow(of record: RecordID, in db: Database) throws -> [String: DatabaseValue]? {
        guard let keyColumn = try db.primaryKey(record.entity).columns.first else { return nil }
        let sql = "SELECT * FROM \(record.entity.quotedDatabaseIdentifier) WHERE \(keyColumn.quotedDatabaseIdentifier) = ?"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: [record.key]) else { return nil }
        var values: [String: DatabaseValue] = [:]
        for (column, value) in row { values[column] = value }
        return values
    }
}

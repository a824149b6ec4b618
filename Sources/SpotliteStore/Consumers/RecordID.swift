import Foundation
import GRDB

/// One record of a store: the entity (table) and the key of its row.
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

/// A record compared byte for byte. ``RecordID`` compares text keys as Swift strings, which are equal when they
/// differ only in Unicode normalisation, while SQLite keeps such keys as different rows.
struct ExactRecordKey: Hashable {
    private enum Key: Hashable {
        case null, integer(Int64), real(UInt64), text([UInt8]), blob(Data)
    }

    private let entity: [UInt8]
    private let key: Key

    init(_ record: RecordID) {
        entity = Array(record.entity.utf8)
        switch record.key.storage {
        case .null: key = .null
        case .int64(let value): key = .integer(value)
        case .double(let value): key = .real(value.bitPattern)
        case .string(let value): key = .text(Array(value.utf8))
        case .blob(let value): key = .blob(value)
        }
    }
}

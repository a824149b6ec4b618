import Foundation
import GRDB

/// A stored field's value as returned with a hit: text or a number.
public enum StoredValue: Sendable, Hashable, CustomStringConvertible, Codable, DatabaseValueConvertible {
    /// Text.
    case text(String)
    /// A whole number.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)

    init?(_ value: DatabaseValue) {
        switch value.storage {
        case .null: return nil
        case .string(let text): self = .text(text)
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .blob(let data):
            guard let text = String(validating: data, as: UTF8.self) else { return nil }
            self = .text(text)
        }
    }

    /// The value as SQLite stores it: a hit's key turned back into the key of its record in the store.
    ///
    /// ```swift
    /// for hit in results.hits {
    ///     let row = try store.read { db in
    ///         try Row.fetchOne(db, sql: "SELECT * FROM Package WHERE name = ?", arguments: [hit.key])
    ///     }
    ///     let record = RecordID(entity: hit.entity, key: hit.key.databaseValue)
    /// }
    /// ```
    ///
    /// A key stored as a blob (which only a program writing one into the key column makes) is reported as its SQL
    /// literal text `x'…'`, so as not to pass for the text key with the same bytes; its `databaseValue` is that
    /// text, not the blob.
    public var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        }
    }

    /// The value of a column as SQLite stored it: text, an integer or a real; nil for null, and for a blob that is
    /// not UTF-8 text (a blob of UTF-8 text reads as that text).
    public static func fromDatabaseValue(_ value: DatabaseValue) -> StoredValue? {
        StoredValue(value)
    }

    /// The value as text: numbers as written, text as is, null as `null`.
    public var description: String {
        switch self {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        }
    }

    func appendJSON(to out: inout String) {
        switch self {
        case .text(let text): DocumentData.appendString(text, to: &out)
        case .integer(let number): out += String(number)
        case .real(let number): out += number.isFinite ? String(number) : "null"
        }
    }

    /// Reads the value from its JSON form: a number, a string or null.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) { self = .integer(number) }
        else if let number = try? container.decode(Double.self) { self = .real(number) }
        else { self = .text(try container.decode(String.self)) }
    }

    /// Writes the value in its JSON form: a number, a string or null.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .real(let number): try container.encode(number)
        }
    }
}

import Foundation
import GRDB

/// The values a record's document is made of, by field name: what `attributeSet(for:)` returns.
///
/// The default comes straight from the record's row; an ``IndexDocumentProvider`` can build one from anything,
/// related tables included. Text and keyword fields take text (a keyword field with a `separator` splits it), number
/// fields take numbers, date fields take ISO-8601 text, `Date`s or Unix seconds.
public struct AttributeSet: Sendable, Hashable {
    /// Values by field name; a field without a value (or NULL) is left out of the document.
    public var values: [String: DatabaseValue]

    /// An attribute set with these values.
    public init(_ values: [String: DatabaseValue] = [:]) {
        self.values = values
    }

    /// The value of `field`.
    public subscript(field: String) -> DatabaseValue? {
        get { values[field] }
        set { values[field] = newValue }
    }

    /// The default attribute set: the row's columns named like the entity's fields. Text and keyword columns read
    /// as bytes (``IndexSchema/Entity/rowSelection(columns:)``) become text whole: each NUL a space, invalid UTF-8
    /// replaced (U+FFFD), so that a foreign writer's NUL cuts nothing and a BLOB of text is no longer left out.
    init(row: Row, fields: [IndexSchema.Field]) {
        var values: [String: DatabaseValue] = [:]
        values.reserveCapacity(fields.count)
        for field in fields {
            guard let value = row[field.name] as DatabaseValue? else { continue }
            if field.type == .text || field.type == .keyword, case .blob(let bytes) = value.storage {
                values[field.name] = Self.text(of: bytes).databaseValue
            } else {
                values[field.name] = value
            }
        }
        self.values = values
    }

    /// `bytes` as text: NULs made spaces, invalid UTF-8 replaced.
    static func text(of bytes: Data) -> String {
        guard bytes.contains(0) else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }
}

extension DatabaseValue {
    /// The value as text for indexing, or nil for NULL.
    var indexText: String? {
        switch storage {
        case .null: return nil
        case .string(let text): return text
        case .int64(let value): return String(value)
        case .double(let value): return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .blob(let data): return String(validating: data, as: UTF8.self)
        }
    }

    /// The value as a number, or nil when it is none. Only finite numbers are: NaN and the infinities (`"NaN"`,
    /// `"-inf"`, `"1e999"`, `"Infinity"`, a REAL `Inf` written by the sqlite3 shell) would sort and match ranges as
    /// no real value does (NaN serialises like 0), so they are unreadable values, reported like `"cheap"`.
    var indexNumber: Double? {
        let number: Double?
        switch storage {
        case .int64(let value): number = Double(value)
        case .double(let value): number = value
        case .string(let text): number = Double(text.trimmingCharacters(in: .whitespaces))
        default: number = nil
        }
        return number.flatMap { $0.isFinite ? $0 : nil }
    }

    /// The value as Unix seconds: numbers are seconds, text is an ISO-8601 date or date-time; nil when it is not
    /// a finite number of seconds (as for ``indexNumber``).
    var indexDate: Double? {
        let seconds: Double?
        switch storage {
        case .int64(let value): seconds = Double(value)
        case .double(let value): seconds = value
        case .string(let text): seconds = ISODateParser.seconds(from: text)
        default: seconds = nil
        }
        return seconds.flatMap { $0.isFinite ? $0 : nil }
    }

    /// Whether the value is a number, or text reading as one, that is not finite (NaN, an infinity).
    var isNonFiniteNumber: Bool {
        switch storage {
        case .double(let value): return !value.isFinite
        case .string(let text): return Double(text.trimmingCharacters(in: .whitespaces)).map { !$0.isFinite } ?? false
        default: return false
        }
    }
}

import GRDB

/// A store value compared and hashed byte for byte, with its storage class: the identity SQLite gives keys.
///
/// Swift's `String` equality is canonical, so `"café"` in NFC and in NFD (`e` + U+0301) are equal strings, and
/// GRDB's `DatabaseValue` compares text the same way; SQLite compares bytes, so they are two rows. Dictionaries
/// and sets of keys use this type (``RecordID`` compares its key with it; id terms use SpotliteSearch's
/// `ExactText`), never `String` or `DatabaseValue`, so two such records are never merged into one.
package struct ExactValue: Hashable, Sendable {
    private enum Storage: Hashable, Sendable {
        case null
        case integer(Int64)
        case real(UInt64)
        case text([UInt8])
        case blob([UInt8])
    }

    private let storage: Storage

    package init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: storage = .null
        case .int64(let number): storage = .integer(number)
        case .double(let number): storage = .real(number.bitPattern)
        case .string(let text): storage = .text(Array(text.utf8))
        case .blob(let data): storage = .blob(Array(data))
        }
    }
}

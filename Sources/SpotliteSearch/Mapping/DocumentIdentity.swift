import Foundation
import GRDB
import SpotliteStore

/// The unique id term of a record's document: `Q<entity>:<key>`, or for long keys `Q<entity>:#<hash>`, so that the
/// 245-byte term limit of Xapian (where a zero byte counts double) can never be reached whatever the key.
enum DocumentIdentity {
    /// Keys whose term would exceed this many bytes are hashed; well below the limit.
    static let maximumPlainKeyBytes = 160
    /// What every id term starts with.
    static let termPrefix = "Q"

    /// The id term of `record`'s document: the record's identity in the index.
    static func term(of record: RecordID) -> String {
        term(entity: record.entity, key: record.key)
    }

    static func term(entity: String, key: DatabaseValue) -> String {
        if case .blob(let data) = key.storage {
            // A blob is never equal to text in SQLite, even with the same bytes (another program can store one in
            // a text key column): it gets a term of its own, `#x` + hash, which no text key's term can take.
            let bytes = Array(data)
            return "\(termPrefix)\(entity):#x\(digest(bytes))"
        }
        return term(entity: entity, keyText: keyText(key))
    }

    static func term(entity: String, keyText: String) -> String {
        let keyBytes = Array(keyText.utf8)
        let cost = keyBytes.count + keyBytes.lazy.filter { $0 == 0 }.count
        if cost <= maximumPlainKeyBytes && !keyText.hasPrefix("#") {
            return "\(termPrefix)\(entity):\(keyText)"
        }
        // A plain key that starts with "#" is hashed too, so it can never collide with a hashed one (or a blob's).
        return "\(termPrefix)\(entity):#\(digest(keyBytes))"
    }

    /// 128 bits from two independent FNV-1a passes, as 32 hex digits: collisions are out of reach for real keys.
    private static func digest(_ bytes: [UInt8]) -> String {
        hex(fnv1a(bytes, basis: 0xcbf2_9ce4_8422_2325)) + hex(fnv1a(bytes, basis: 0x8422_2325_cbf2_9ce4 ^ UInt64(bytes.count)))
    }

    /// A key as hits report it: text and numbers as they are; a blob as its SQL literal `x'…'` (hex), so that a blob
    /// key is never reported as the text key with the same bytes.
    static func storedKey(_ key: DatabaseValue) -> StoredValue {
        if case .blob(let data) = key.storage {
            return .text("x'" + data.map { String(format: "%02X", $0) }.joined() + "'")
        }
        return StoredValue(key) ?? .text(keyText(key))
    }

    /// A key as text: integers in decimal, text as is.
    static func keyText(_ key: DatabaseValue) -> String {
        switch key.storage {
        case .int64(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return value
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        case .null: return ""
        }
    }

    private static func fnv1a(_ bytes: [UInt8], basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

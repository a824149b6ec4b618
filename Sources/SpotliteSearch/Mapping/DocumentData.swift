import Foundation
import GRDB

/// The data stored with each document: its entity, its key and its stored fields, as compact JSON
/// (`{"entity":"Package","key":"xapian-tools","fields":{"summary":"…"}}`), so that hits are returned without a
/// round trip to the store.
package struct DocumentData: Sendable, Hashable {
    var entity: String
    var key: StoredValue
    var fields: [String: StoredValue]

    func encoded() -> String {
        var out = "{\"entity\":"
        Self.appendString(entity, to: &out)
        out += ",\"key\":"
        key.appendJSON(to: &out)
        out += ",\"fields\":{"
        var first = true
        for name in fields.keys.sorted() {
            if !first { out += "," }
            first = false
            Self.appendString(name, to: &out)
            out += ":"
            fields[name]!.appendJSON(to: &out)
        }
        out += "}}"
        return out
    }

    init(entity: String, key: StoredValue, fields: [String: StoredValue]) {
        self.entity = entity
        self.key = key
        self.fields = fields
    }

    /// Decodes what ``encoded()`` wrote; nil for anything else. Hand-written because it runs for every hit of
    /// every search: a general JSON parser costs more than the rest of a search.
    init?(decoding data: Data) {
        guard let decoded = data.withUnsafeBytes({ bytes -> DocumentData? in
            var scanner = DocumentDataScanner(bytes: bytes)
            return scanner.document()
        }) else { return nil }
        self = decoded
    }

    /// Appends `text` as a JSON string literal (also used by the benchmark's raw loop, so both write the same data).
    package static func appendString(_ text: String, to out: inout String) {
        out += "\""
        // Most text needs no escape: appended whole, not scalar by scalar (a share of every document built).
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

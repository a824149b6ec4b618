import Foundation
import GRDB

/// The data stored with each document: its entity, its key and its stored fields, as compact JSON
/// (`{"entity":"Package","key":"xapian-tools","fields":{"summary":"…"}}`), so that hits are returned without a
/// round trip to the store.
struct DocumentData: Sendable, Hashable {
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

    init?(decoding data: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let entity = object["entity"] as? String, let key = object["key"].flatMap(StoredValue.init(json:))
        else { return nil }
        self.entity = entity
        self.key = key
        var fields: [String: StoredValue] = [:]
        for (name, value) in (object["fields"] as? [String: Any]) ?? [:] {
            if let stored = StoredValue(json: value) { fields[name] = stored }
        }
        self.fields = fields
    }

    static func appendString(_ text: String, to out: inout String) {
        out += "\""
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

/// A stored field's value as returned with a hit: text or a number.
public enum StoredValue: Sendable, Hashable, CustomStringConvertible, Codable {
    case text(String)
    case integer(Int64)
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

    init?(json: Any) {
        switch json {
        case let text as String: self = .text(text)
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            self = (type == "d" || type == "f") ? .real(number.doubleValue) : .integer(number.int64Value)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        }
    }

    /// The value as a JSON-compatible object (for `JSONSerialization`).
    public var jsonObject: Any {
        switch self {
        case .text(let text): text
        case .integer(let number): number
        case .real(let number): number
        }
    }

    func appendJSON(to out: inout String) {
        switch self {
        case .text(let text): DocumentData.appendString(text, to: &out)
        case .integer(let number): out += String(number)
        case .real(let number): out += number.isFinite ? String(number) : "null"
        }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) { self = .integer(number) }
        else if let number = try? container.decode(Double.self) { self = .real(number) }
        else { self = .text(try container.decode(String.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .real(let number): try container.encode(number)
        }
    }
}

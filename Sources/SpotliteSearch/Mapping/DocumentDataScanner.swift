/// Reads the compact JSON of ``DocumentData`` from raw bytes: an object with `entity`, `key` and `fields`, whose
/// values are strings, numbers or null. Keys in any order; unknown keys are skipped if they hold such values.
struct DocumentDataScanner {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func document() -> DocumentData? {
        var entity: String?
        var key: StoredValue?
        var fields: [String: StoredValue] = [:]
        guard consume(UInt8(ascii: "{")) else { return nil }
        if consume(UInt8(ascii: "}")) { return nil }
        repeat {
            guard let name = string(), consume(UInt8(ascii: ":")) else { return nil }
            switch name {
            case "entity":
                guard let text = string() else { return nil }
                entity = text
            case "key":
                guard let value = value(), let stored = value else { return nil }
                key = stored
            case "fields":
                guard let object = fieldObject() else { return nil }
                fields = object
            default:
                guard value() != nil else { return nil }
            }
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")), let entity, let key else { return nil }
        return DocumentData(entity: entity, key: key, fields: fields)
    }

    private mutating func fieldObject() -> [String: StoredValue]? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var fields: [String: StoredValue] = [:]
        if consume(UInt8(ascii: "}")) { return fields }
        repeat {
            guard let name = string(), consume(UInt8(ascii: ":")), let value = value() else { return nil }
            if let value { fields[name] = value }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}")) ? fields : nil
    }

    /// A string, a number or null (`.some(nil)`); nil when malformed.
    private mutating func value() -> StoredValue?? {
        skipSpaces()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return string().map { .some(.text($0)) }
        case UInt8(ascii: "n"):
            guard index + 4 <= bytes.count, bytes[index + 1] == UInt8(ascii: "u"), bytes[index + 2] == UInt8(ascii: "l"),
                  bytes[index + 3] == UInt8(ascii: "l") else { return nil }
            index += 4
            return .some(nil)
        default:
            return number().map { .some($0) }
        }
    }

    private mutating func number() -> StoredValue? {
        let start = index
        var isReal = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                isReal = true
            } else if !(byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) && byte != UInt8(ascii: "-")
                        && byte != UInt8(ascii: "+") {
                break
            }
            index += 1
        }
        guard index > start else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if !isReal, let integer = Int64(text) { return .integer(integer) }
        return Double(text).map { .real($0) }
    }

    private mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // Fast path: no escapes.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            defer { index += 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                       bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    utf8.append(contentsOf: Array(String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8))
                default: utf8.append(escaped)
                }
            default:
                utf8.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value * 16 + UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value * 16 + UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value * 16 + UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return value
    }

    private mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D {
            index += 1
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}

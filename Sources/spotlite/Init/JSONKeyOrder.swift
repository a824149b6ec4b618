import Foundation

/// The top-level keys of a JSON object in the order they are written (JSONSerialization's dictionaries forget it,
/// and a generated configuration should list fields as the data does). Assumes valid JSON: parse it first.
enum JSONKeyOrder {
    static func keys(of line: [UInt8]) -> [String] {
        var keys: [String] = []
        var depth = 0
        var index = 0
        var pendingKey: [UInt8]?
        while index < line.count {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: "\""):
                var string: [UInt8] = []
                index += 1
                while index < line.count, line[index] != UInt8(ascii: "\"") {
                    if line[index] == UInt8(ascii: "\\"), index + 1 < line.count {
                        string.append(line[index])
                        index += 1
                    }
                    string.append(line[index])
                    index += 1
                }
                if depth == 1 { pendingKey = string }
            case UInt8(ascii: ":"):
                if depth == 1, let key = pendingKey {
                    keys.append(decode(key))
                }
                pendingKey = nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                pendingKey = nil
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                pendingKey = nil
            case UInt8(ascii: ","):
                pendingKey = nil
            default:
                break
            }
            index += 1
        }
        return keys
    }

    /// A key's text with JSON escapes resolved (through the JSON parser, for \u escapes).
    private static func decode(_ raw: [UInt8]) -> String {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        let quoted = [UInt8(ascii: "["), UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\""), UInt8(ascii: "]")]
        let decoded = (try? JSONSerialization.jsonObject(with: Data(quoted))) as? [String]
        return decoded?.first ?? String(decoding: raw, as: UTF8.self)
    }
}

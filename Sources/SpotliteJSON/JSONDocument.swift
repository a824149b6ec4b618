import Foundation

/// The bytes of one JSON document as the command line prints it (keys sorted, slashes as written, a newline after),
/// so that the server's answers are the command's output byte for byte.
package enum JSONDocument {
    /// `object` (of `JSONSerialization` types) as a line of JSON; `null` when it cannot be written.
    package static func line(_ object: Any) -> Data {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])) ?? Data("null".utf8)
        return data + Data("\n".utf8)
    }

    /// `value` encoded as a line of JSON; `null` when it cannot be encoded.
    package static func line<T: Encodable>(encodable value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return data + Data("\n".utf8)
    }

    /// `value` encoded and read back as a `JSONSerialization` object, to add keys to before printing it; an empty
    /// object when it cannot be encoded.
    package static func object<T: Encodable>(encodable value: T) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(value),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }
}

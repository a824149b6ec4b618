/// Appends JSON text to a byte buffer. Hand-written for outputs written once per hit of every search
/// (`spotlite search --json`), where building `[String: Any]` trees for `JSONSerialization` cost several times the
/// search itself on Linux.
package enum JSONText {
    /// Appends `text` as a JSON string literal: quotes, backslashes and control characters escaped, everything else
    /// as UTF-8, copied in runs between the characters that need escaping.
    package static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                appendEscape(byte, to: &bytes)
                runStart = index + 1
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            let digits = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                      digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
    }

    /// Appends literal JSON (punctuation, keys known to need no escaping).
    package static func appendRaw(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package static func appendInteger<Number: BinaryInteger>(_ number: Number, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: String(number).utf8)
    }

    /// A finite number in Swift's shortest round-tripping form; JSON has no infinities or NaN, so those are null.
    package static func appendNumber(_ number: Double, to bytes: inout [UInt8]) {
        if number.isFinite {
            bytes.append(contentsOf: number.description.utf8)
        } else {
            appendRaw("null", to: &bytes)
        }
    }

    package static func appendOptionalString(_ text: String?, to bytes: inout [UInt8]) {
        if let text { appendString(text, to: &bytes) } else { appendRaw("null", to: &bytes) }
    }
}

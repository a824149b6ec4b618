/// Finds integer literals in JSON text that SQLite cannot store exactly.
///
/// Foundation's parser turns an integer beyond 64 bits into an unsigned number (which would wrap: 2^64 - 1 became
/// -1) or a double (rounded without a word), and the text is gone by then: only the source can tell. The import
/// refuses such a line and says how to keep the number exact (as a string). Reals (with `.` or an exponent) are
/// approximate by nature and left alone.
enum JSONIntegerRange {
    /// The first integer literal outside `Int64`'s range in `json` (outside strings), or nil.
    static func firstOutOfRange(in json: [UInt8]) -> String? {
        var index = 0
        var inString = false
        while index < json.count {
            let byte = json[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "-") || isDigit(byte) else {
                index += 1
                continue
            }
            let start = index
            var isInteger = true
            index += 1
            while index < json.count {
                let next = json[index]
                if isDigit(next) {
                    index += 1
                } else if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E")
                            || next == UInt8(ascii: "+") || next == UInt8(ascii: "-") {
                    isInteger = false
                    index += 1
                } else {
                    break
                }
            }
            if isInteger {
                let literal = String(decoding: json[start..<index], as: UTF8.self)
                if literal != "-", Int64(literal) == nil { return literal }
            }
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

import SpotliteStore
import SpotliteSearch
/// The order in which keys first appear in a TOML document.
///
/// TOMLKit hands tables back sorted by key (toml++ keeps them in a `std::map`) and exposes no source positions, yet
/// entities and fields must keep the order the user wrote them in, and errors are best reported top to bottom.
/// This scanner walks the already-validated text once and numbers every key path (and each of its prefixes) the
/// first time it is defined: by a table header, a dotted key or a key inside an inline table.
///
/// It only has to be right for valid TOML, because it runs after TOMLKit accepted the document; on anything it does
/// not understand it stops, and paths it never saw sort after the ones it did, by name.
struct TOMLKeyOrder {
    private var positions: [[String]: Int] = [:]

    init(source: String) {
        var scanner = Scanner(bytes: Array(source.utf8))
        scanner.scanDocument()
        positions = scanner.positions
    }

    /// The rank of the first definition of `path` or of any key below it, or nil if it was never seen.
    func position(of path: [String]) -> Int? {
        positions[path]
    }

    /// `keys` of the table at `path`, in document order; keys the scanner missed follow, sorted.
    func ordered(_ keys: [String], under path: [String]) -> [String] {
        keys.sorted { lhs, rhs in
            switch (position(of: path + [lhs]), position(of: path + [rhs])) {
            case let (l?, r?): l < r
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): lhs < rhs
            }
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var positions: [[String]: Int] = [:]

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private func peek(_ offset: Int) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        mutating func scanDocument() {
            var table: [String] = []
            while true {
                skipBlank(newlines: true)
                guard let byte = current else { return }
                let start = index
                if byte == UInt8(ascii: "[") {
                    index += 1
                    let isArrayOfTables = current == UInt8(ascii: "[")
                    if isArrayOfTables { index += 1 }
                    guard let path = scanKeyPath() else { return }
                    table = path
                    record(path)
                    skipBlank(newlines: false)
                    guard current == UInt8(ascii: "]") else { return }
                    index += isArrayOfTables ? 2 : 1
                } else {
                    guard scanKeyValue(in: table) else { return }
                }
                guard index > start else { return }
            }
        }

        /// `key = value` inside the table at `table`.
        private mutating func scanKeyValue(in table: [String]) -> Bool {
            guard let keys = scanKeyPath() else { return false }
            let path = table + keys
            record(path)
            skipBlank(newlines: false)
            guard current == UInt8(ascii: "=") else { return false }
            index += 1
            skipBlank(newlines: false)
            return scanValue(at: path)
        }

        /// An array or inline table after its opening bracket: elements separated by commas up to `closing`.
        private mutating func scanSequence(closing: UInt8, element: (inout Self) -> Bool) -> Bool {
            index += 1
            while true {
                skipBlank(newlines: true)
                guard let next = current else { return false }
                if next == closing {
                    index += 1
                    return true
                }
                if next == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                let start = index
                guard element(&self), index > start else { return false }
            }
        }

        private mutating func scanValue(at path: [String]) -> Bool {
            guard let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                return scanString() != nil
            case UInt8(ascii: "["):
                return scanSequence(closing: UInt8(ascii: "]")) { $0.scanValue(at: path) }
            case UInt8(ascii: "{"):
                return scanSequence(closing: UInt8(ascii: "}")) { $0.scanKeyValue(in: path) }
            default:
                // Numbers, booleans and dates: up to the next delimiter (a local date-time may contain a space).
                let start = index
                while let next = current, !Self.scalarTerminators.contains(next) {
                    index += 1
                }
                return index > start
            }
        }

        private static let scalarTerminators: Set<UInt8> = Set(",]}#\n\r".utf8)

        /// Dotted keys: `a."b c".'d'`.
        private mutating func scanKeyPath() -> [String]? {
            var keys: [String] = []
            while true {
                skipBlank(newlines: false)
                guard let byte = current else { return nil }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    guard let key = scanString() else { return nil }
                    keys.append(key)
                } else {
                    let start = index
                    while let next = current, Self.isBareKeyByte(next) {
                        index += 1
                    }
                    guard index > start else { return nil }
                    keys.append(String(decoding: bytes[start..<index], as: UTF8.self))
                }
                skipBlank(newlines: false)
                guard current == UInt8(ascii: ".") else { return keys }
                index += 1
            }
        }

        private static func isBareKeyByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }

        /// A basic, literal or multi-line string starting at the current quote; returns its decoded text.
        private mutating func scanString() -> String? {
            guard let quote = current else { return nil }
            let isLiteral = quote == UInt8(ascii: "'")
            if peek(1) == quote, peek(2) == quote {
                index += 3
                return scanStringBody(quote: quote, escapes: !isLiteral, multiline: true)
            }
            index += 1
            return scanStringBody(quote: quote, escapes: !isLiteral, multiline: false)
        }

        private mutating func scanStringBody(quote: UInt8, escapes: Bool, multiline: Bool) -> String? {
            var text: [UInt8] = []
            while let byte = current {
                if escapes, byte == UInt8(ascii: "\\") {
                    guard let decoded = scanEscape() else { return nil }
                    text += decoded
                    continue
                }
                if byte == quote {
                    if !multiline {
                        index += 1
                        return String(decoding: text, as: UTF8.self)
                    }
                    if peek(1) == quote, peek(2) == quote {
                        // Up to two quotes may sit right before the closing delimiter: `""""x"""""`.
                        var run = 3
                        while run < 5, peek(run) == quote {
                            run += 1
                        }
                        text += Array(repeating: quote, count: run - 3)
                        index += run
                        return String(decoding: text, as: UTF8.self)
                    }
                }
                if !multiline, byte == UInt8(ascii: "\n") { return nil }
                text.append(byte)
                index += 1
            }
            return nil
        }

        /// The escape at the current backslash, decoded; a line-ending backslash swallows the following whitespace.
        private mutating func scanEscape() -> [UInt8]? {
            index += 1
            guard let byte = current else { return nil }
            index += 1
            switch byte {
            case UInt8(ascii: "b"): return [0x08]
            case UInt8(ascii: "t"): return [0x09]
            case UInt8(ascii: "n"): return [0x0A]
            case UInt8(ascii: "f"): return [0x0C]
            case UInt8(ascii: "r"): return [0x0D]
            case UInt8(ascii: "e"): return [0x1B]
            case UInt8(ascii: "\""): return [UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): return [UInt8(ascii: "\\")]
            case UInt8(ascii: "u"), UInt8(ascii: "U"), UInt8(ascii: "x"):
                let digits = byte == UInt8(ascii: "U") ? 8 : byte == UInt8(ascii: "u") ? 4 : 2
                guard index + digits <= bytes.count,
                      let value = UInt32(String(decoding: bytes[index..<index + digits], as: UTF8.self), radix: 16),
                      let scalar = Unicode.Scalar(value)
                else { return nil }
                index += digits
                return Array(String(Character(scalar)).utf8)
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                index -= 1
                while let next = current, next == UInt8(ascii: " ") || next == UInt8(ascii: "\t")
                    || next == UInt8(ascii: "\r") || next == UInt8(ascii: "\n") {
                    index += 1
                }
                return []
            default:
                return nil
            }
        }

        /// Spaces, tabs, comments and, when asked, line breaks.
        private mutating func skipBlank(newlines: Bool) {
            while let byte = current {
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\t"):
                    index += 1
                case UInt8(ascii: "\n") where newlines, UInt8(ascii: "\r") where newlines:
                    index += 1
                case UInt8(ascii: "#") where newlines:
                    while let next = current, next != UInt8(ascii: "\n") {
                        index += 1
                    }
                default:
                    return
                }
            }
        }

        /// Numbers `path` and each prefix of it that has no number yet.
        private mutating func record(_ path: [String]) {
            for length in 1..<(path.count + 1) {
                let prefix = Array(path.prefix(length))
                if positions[prefix] == nil {
                    positions[prefix] = positions.count
                }
            }
        }
    }
}

extension SpotliteStoreError {
    /// Why an import line was refused (``malformedLine(_:_:)``). Each case's description says what to change where
    /// the fix is not plain from the problem.
    public enum LineProblem: Sendable, Hashable, CustomStringConvertible {
        /// No newline within `limitMiB` mebibytes: the file is probably not JSON Lines.
        case tooLong(limitMiB: Int)
        /// The line is not UTF-8 text.
        case notUTF8
        /// The line is not JSON; `parserMessage` is the JSON parser's own words.
        case notJSON(parserMessage: String)
        /// The line is JSON, but not an object.
        case notAnObject(found: JSONKind)
        /// An integer outside the 64-bit range, as written on the line.
        case integerOutOfRange(literal: String)
        /// `_delete` is not `true` or `false`.
        case deleteFlagNotBoolean
        /// The entity's key is missing or null.
        case missingKey(String)
        /// The key has a JSON type its column cannot hold: `found` nil when it is a number that is not an integer
        /// (or an integer where text is expected).
        case keyOfWrongType(String, expected: KeyType, found: JSONKind?)
        /// An attribute the entity does not have; `known` lists those it has, sorted.
        case unknownAttribute(String, entity: String, known: [String])
        /// A string value holding U+0000, which SQLite text cannot hold.
        case nulCharacter(column: String)
        /// A JSON value of no kind the importer stores.
        case unsupportedValue(column: String)
        /// SQLite refused the row (a constraint, a trigger); `message` is SQLite's own words.
        case rejectedByDatabase(message: String)

        /// The kind of a JSON value, as the problem names it.
        public enum JSONKind: Sendable, Hashable, CustomStringConvertible {
            /// A JSON array.
            case array
            /// A JSON object (where the key is expected).
            case object
            /// A JSON string.
            case string
            /// JSON `null`.
            case null
            /// A JSON number, or `true` or `false`.
            case numberOrBoolean

            /// The kind with its article, as the problem names it.
            public var description: String {
                switch self {
                case .array: return "an array"
                case .object: return "an object"
                case .string: return "a string"
                case .null: return "null"
                case .numberOrBoolean: return "a number or boolean"
                }
            }
        }

        /// The problem and, where it is not plain, the way to fix the line.
        public var description: String {
            switch self {
            case let .tooLong(limit):
                return "the line is longer than \(limit) MiB without a newline, more than any record should be; check that the file is JSON Lines (one object per line)"
            case .notUTF8:
                return "not valid UTF-8 text; convert the file to UTF-8 (e.g. with iconv)"
            case let .notJSON(message):
                return "not valid JSON (\(message))"
            case let .notAnObject(found):
                return "expected a JSON object, found \(found)"
            case let .integerOutOfRange(literal):
                return "the integer \(literal) is outside the 64-bit range SQLite stores exactly (\(Int64.min) to \(Int64.max)); write it as a string (\"\(literal)\") to keep every digit"
            case .deleteFlagNotBoolean:
                return "\"_delete\" must be true or false"
            case let .missingKey(key):
                return "the key \"\(key)\" is missing"
            case let .keyOfWrongType(key, expected, found):
                let wanted = expected == .text ? "a string" : "an integer"
                return "the key \"\(key)\" must be \(wanted)" + (found.map { ", found \($0)" } ?? "")
            case let .unknownAttribute(name, entity, known):
                return "unknown attribute \"\(name)\" for entity \(entity); known attributes: \(known.joined(separator: ", "))"
            case let .nulCharacter(column):
                return "the value of \"\(column)\" contains a NUL character (\\u0000), which SQLite text cannot hold; remove it"
            case let .unsupportedValue(column):
                return "unsupported value for \"\(column)\""
            case let .rejectedByDatabase(message):
                return "rejected by the database: \(message)"
            }
        }
    }
}

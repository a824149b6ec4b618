/// The "expected ..." half of every error message, kept in one place so that the loader's type errors and the
/// validator's value errors describe each key the same way.
enum Expectation {
    static let table = "a table"
    static let path = "a non-empty path string"
    static let authorName = "a non-empty author name without leading or trailing spaces"
    static let authorList = "an array of author names, e.g. [\"app\", \"importer\"]"
    static let duration = "a duration: a whole number greater than zero followed by s, m, h or d, e.g. \"7d\" or \"90m\", at most 36500d"
    static let cleanPolicy = "\"none\", { every = \"4h\" } or { notifications = 50 }"
    static let notifications = "an integer ≥ 1"
    static let batchSize = "an integer ≥ 1"
    static let boolean = "true or false"
    static let entities = "a table of entities, e.g. [entities.Package]"
    static let entity = "a table with key and fields, e.g. [entities.Package]"
    static let key = "the name of the primary-key column, e.g. key = \"id\""
    static let columnList = "an array of column names (the key or fields), e.g. [\"name\"]"
    static let fields = "a table of fields, e.g. [entities.Package.fields]"
    static let field = "a table such as { type = \"text\" }"
    static let prefix = "lowercase letters a-z, e.g. \"name\""
    static let separator = "a non-empty string, e.g. \" \""
    static let identifier =
        "an identifier of at most \(IdentifierRules.maximumLength) characters: a letter or _ followed by letters, digits or _"

    static var fieldType: String {
        "one of " + FieldType.allCases.map(\.rawValue).joined(separator: ", ")
    }

    static var weight: String {
        "an integer from 1 to \(FieldConfiguration.maximumWeight)"
    }

    static var stopwords: String {
        "one of " + IndexerConfiguration.supportedStopwords.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    static var language: String {
        let names = StemmerLanguage.acceptedValues.filter { $0 != "none" && $0.count > 2 }
        let codes = StemmerLanguage.acceptedValues.filter { $0.count == 2 }
        return "a Xapian 1.4 stemmer name or code, or \"none\" (names: " + names.joined(separator: ", ")
            + "; codes: " + codes.joined(separator: ", ") + ")"
    }

    /// `known keys are a, b, c`, for unknown-key errors.
    static func knownKeys(_ keys: [String]) -> String {
        keys.isEmpty ? "this table takes no keys" : "known keys are " + keys.joined(separator: ", ")
    }
}

extension Expectation {
    /// The message for a field option written on a type it does not apply to (`facet` on a text field).
    static func misplacedOption(_ option: String, on type: FieldType) -> String {
        let owners = FieldType.allCases.filter { $0.optionKeys.contains(option) }.map(\.rawValue)
        return "expected \(option) only on \(owners.joined(separator: " and ")) fields; found it on a \(type) field; "
            + "remove it or change the type to " + owners.map { "\"\($0)\"" }.joined(separator: " or ")
    }
}

import SpotliteStore

/// The "expected ..." half of every error message, kept in one place so that the loader's type errors and the
/// validator's value errors describe each key the same way.
package enum Expectation {
    package static let modelVersion = "a version name: a non-empty string without leading or trailing spaces, e.g. \"v2\""
    package static let table = "a table"
    package static let searchMode = "\"keyword\", \"semantic\" or \"hybrid\""
    package static let embeddingModel = "a model folder: a name found in the models folder, e.g. \"all-MiniLM-L6-v2\", or a path"
    package static let embedFields = "an array of the entity's text fields, e.g. embed = [\"title\", \"text\"]"
    package static let path = "a non-empty path string"
    package static let authorName = "a non-empty author name without leading or trailing spaces"
    package static let authorList = "an array of author names, e.g. [\"app\", \"importer\"]"
    package static let timeout = "a duration from 1ms to 1h: a whole number followed by ms, s, m or h, e.g. \"5s\" or \"500ms\""
    package static let duration = "a duration: a whole number greater than zero followed by s, m, h or d, e.g. \"7d\" or \"90m\", at most 36500d"
    package static let deletionSchedule = "\"none\", { every = \"4h\" } or { notifications = 50 }"
    package static let notifications = "an integer ≥ 1"
    package static let batchSize = "an integer ≥ 1"
    package static let spellingFields = "an array of text field names, e.g. [\"name\", \"summary\"]"
    package static let shards = "a number of shards from 1 to \(IndexShards.maximumCount), e.g. shards = 2, or a list of shard locations, e.g. shards = [\"tcp://10.0.0.5:7001\", \"tcp://10.0.0.6:7001\"]"
    package static let shardLocation = "a path or \"tcp://HOST:PORT\" (port 1 to 65535), e.g. \"tcp://10.0.0.5:7001\""
    package static let boolean = "true or false"
    package static let bm25K1 = "a number ≥ 0, e.g. 1.0 (BM25's k1)"
    package static let bm25B = "a number from 0 to 1, e.g. 0.5 (BM25's b)"
    package static let stemming = "\"some\" (words starting with a lower-case letter) or \"all\""
    package static let proximity = "true, false or { window = 10, weight = 0.25, depth = 50 }"
    package static let proximityWindow = "an integer ≥ 2 (word positions)"
    package static let expand = "true, false or { documents = 5, terms = 20, weight = 0.5, min_words = 5 }"
    package static let positiveWeight = "a number > 0"
    package static let synonyms = "a table of words or phrases, each with an array of synonyms, e.g. synonyms = { db = [\"database\"], \"text editor\" = [\"editor\"] }"
    package static let synonymList = "an array of words or phrases, e.g. [\"database\"]"
    package static let atLeastOne = "an integer ≥ 1"
    package static let entities = "a table of entities, e.g. [entities.Package]"
    package static let entity = "a table with key and fields, e.g. [entities.Package]"
    package static let key = "the name of the primary-key column, e.g. key = \"id\""
    package static let columnList = "an array of column names (the key or fields), e.g. [\"name\"]"
    package static let fields = "a table of fields, e.g. [entities.Package.fields]"
    package static let field = "a table such as { type = \"text\" }"
    package static let prefix = "lowercase letters a-z, e.g. \"name\""
    package static let separator = "a non-empty string, e.g. \" \""
    package static let identifier =
        "an identifier of at most \(Identifier.maximumLength) characters: a letter or _ followed by letters, digits or _"

    package static var fieldType: String {
        "one of " + FieldType.allCases.map(\.rawValue).joined(separator: ", ")
    }

    package static var weight: String {
        "an integer from 1 to \(FieldConfiguration.maximumWeight)"
    }

    package static var stopwords: String {
        "one of " + IndexerConfiguration.supportedStopwords.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    package static var language: String {
        let names = StemmerLanguage.acceptedValues.filter { $0 != "none" && $0.count > 2 }
        let codes = StemmerLanguage.acceptedValues.filter { $0.count == 2 }
        return "a Xapian 1.4 stemmer name or code, or \"none\" (names: " + names.joined(separator: ", ")
            + "; codes: " + codes.joined(separator: ", ") + ")"
    }

    /// `known keys are a, b, c`, for unknown-key errors.
    package static func knownKeys(_ keys: [String]) -> String {
        keys.isEmpty ? "this table takes no keys" : "known keys are " + keys.joined(separator: ", ")
    }
}

extension Expectation {
    /// The message for a field option written on a type it does not apply to (`facet` on a text field).
    package static func misplacedOption(_ option: String, on type: FieldType) -> String {
        let owners = FieldType.allCases.filter { $0.optionKeys.contains(option) }.map(\.rawValue)
        return "expected \(option) only on \(owners.joined(separator: " and ")) fields; found it on a \(type) field; "
            + "remove it or change the type to " + owners.map { "\"\($0)\"" }.joined(separator: " or ")
    }
}

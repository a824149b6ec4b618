import Spotlite
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// One configuration that must be refused, and what the refusal must say.
struct MalformedConfiguration: Sendable, CustomTestStringConvertible {
    let label: String
    let toml: String
    /// The key path the error must name (empty for syntax errors).
    let keyPath: String
    let kind: ConfigurationError.Kind
    /// Text the message must contain: what was expected (and often what was found).
    let fragments: [String]

    var testDescription: String { label }

    init(_ label: String, _ toml: String, at keyPath: String, _ kind: ConfigurationError.Kind, _ fragments: String...) {
        self.init(label: label, toml: toml, keyPath: keyPath, kind: kind, fragments: fragments)
    }

    private init(label: String, toml: String, keyPath: String, kind: ConfigurationError.Kind, fragments: [String]) {
        self.label = label
        self.toml = toml
        self.keyPath = keyPath
        self.kind = kind
        self.fragments = fragments
    }

    /// A case built on the one-entity document of ``ConfigurationTestSupport/package(fields:entity:before:)``.
    static func package(
        _ label: String, fields: String = "name = { type = \"text\" }", entity: String = "",
        at keyPath: String, _ kind: ConfigurationError.Kind, _ fragments: String...
    ) -> MalformedConfiguration {
        MalformedConfiguration(
            label: label, toml: ConfigurationTestSupport.package(fields: fields, entity: entity),
            keyPath: keyPath, kind: kind, fragments: fragments
        )
    }
}

@Suite("Configuration errors", .blockingWork)
struct ConfigurationErrorTests {
    static let rootKeys = "known keys are store, index, shards, history, indexer, entities"
    static let fieldKeys = "known keys are type, weight, prefix, positions, store, facet, separator, sortable"
    static let duration = "expected a duration: a whole number greater than zero followed by s, m, h or d"

    static let cases: [MalformedConfiguration] = [
        // Top level.
        .init("unknown top-level key", "colour = \"blue\"\n", at: "colour", .unknownKey, "unknown key \"colour\"", rootKeys),
        .init("misspelt table", "[histroy]\nauthors = []\n", at: "histroy", .unknownKey, rootKeys),
        .init("store is a number", "store = 5\n", at: "store", .wrongType, "expected a non-empty path string; found 5"),
        .init("store is empty", "store = \"\"\n", at: "store", .invalidValue, "expected a non-empty path string", "found \"\""),
        .init("index is a table", "[index]\npath = \"x\"\n", at: "index", .wrongType, "expected a non-empty path string; found a table"),
        .init("store and index are one path", "store = \"Index/x\"\nindex = \"./Index/x\"\n", at: "index", .conflict,
              "expected a path other than the store's"),

        // [history].
        .init("history is a string", "history = \"all\"\n", at: "history", .wrongType, "expected a table ([history]); found \"all\""),
        .init("unknown history key", "[history]\nauthor = \"app\"\n", at: "history.author", .unknownKey,
              "known keys are authors, batch_authors, mirror_authors, deliver_unattributed, maximum_duration, clean"),
        .init("authors is a string", "[history]\nauthors = \"app\"\n", at: "history.authors", .wrongType,
              "expected an array of author names", "found \"app\""),
        .init("author is a number", "[history]\nauthors = [\"app\", 3]\n", at: "history.authors", .wrongType,
              "expected an array of author names", "found 3 at position 2"),
        .init("author is empty", "[history]\nauthors = [\"\"]\n", at: "history.authors", .invalidValue,
              "expected a non-empty author name", "found \"\""),
        .init("author with trailing space", "[history]\nmirror_authors = [\"sync \"]\n", at: "history.mirror_authors",
              .invalidValue, "expected a non-empty author name without leading or trailing spaces", "found \"sync \""),
        .init("author listed twice", "[history]\nauthors = [\"app\", \"app\"]\n", at: "history.authors", .conflict,
              "expected each author once; found \"app\" twice"),
        .init("batch author not among authors", "[history]\nauthors = [\"app\"]\nbatch_authors = [\"importer\"]\n",
              at: "history.batch_authors", .conflict, "expected authors also listed in history.authors", "\"importer\"",
              "add it to history.authors"),
        .init("indexer as a batch author",
              "[history]\nauthors = [\"spotlite.indexer\"]\nbatch_authors = [\"spotlite.indexer\"]\n",
              at: "history.batch_authors", .conflict, "expected no indexer among the write-only authors"),
        .init("duration without unit", "[history]\nmaximum_duration = \"7\"\n", at: "history.maximum_duration",
              .invalidValue, duration, "found \"7\""),
        .init("duration in weeks", "[history]\nmaximum_duration = \"7w\"\n", at: "history.maximum_duration",
              .invalidValue, duration, "found \"7w\""),
        .init("negative duration", "[history]\nmaximum_duration = \"-1d\"\n", at: "history.maximum_duration",
              .invalidValue, duration, "found \"-1d\""),
        .init("empty duration", "[history]\nmaximum_duration = \"\"\n", at: "history.maximum_duration",
              .invalidValue, duration, "found \"\""),
        .init("fractional duration", "[history]\nmaximum_duration = \"1.5d\"\n", at: "history.maximum_duration",
              .invalidValue, duration, "found \"1.5d\""),
        .init("zero duration", "[history]\nmaximum_duration = \"0d\"\n", at: "history.maximum_duration",
              .invalidValue, duration, "found \"0d\""),
        .init("duration with a space", "[history]\nmaximum_duration = \"7 d\"\n", at: "history.maximum_duration",
              .invalidValue, duration),
        .init("duration overflowing", "[history]\nmaximum_duration = \"999999999999999999d\"\n",
              at: "history.maximum_duration", .invalidValue, duration),
        .init("duration as a bare number", "[history]\nmaximum_duration = 7\n", at: "history.maximum_duration",
              .wrongType, duration, "found 7"),
        .init("unknown clean policy", "[history]\nclean = \"daily\"\n", at: "history.clean", .invalidValue,
              "expected \"none\", { every = \"4h\" } or { notifications = 50 }; found \"daily\""),
        .init("clean is a number", "[history]\nclean = 5\n", at: "history.clean", .wrongType,
              "expected \"none\", { every = \"4h\" } or { notifications = 50 }; found 5"),
        .init("clean with both keys", "[history]\nclean = { every = \"4h\", notifications = 5 }\n", at: "history.clean",
              .conflict, "expected exactly one of every or notifications; found both"),
        .init("clean with no key", "[history]\nclean = {}\n", at: "history.clean", .missingKey,
              "expected \"none\", { every = \"4h\" } or { notifications = 50 }; found an empty table"),
        .init("clean with an unknown key", "[history]\nclean = { hourly = true }\n", at: "history.clean.hourly",
              .unknownKey, "known keys are every, notifications"),
        .init("clean every is not a duration", "[history]\nclean = { every = \"soon\" }\n", at: "history.clean.every",
              .invalidValue, duration, "found \"soon\""),
        .init("clean after zero notifications", "[history]\nclean = { notifications = 0 }\n",
              at: "history.clean.notifications", .invalidValue, "expected an integer ≥ 1; found 0"),
        .init("notifications as text", "[history]\nclean = { notifications = \"50\" }\n",
              at: "history.clean.notifications", .wrongType, "expected an integer ≥ 1; found \"50\""),

        // [indexer].
        .init("unknown indexer key", "[indexer]\nthreads = 4\n", at: "indexer.threads", .unknownKey,
              "known keys are author, language, stopwords, batch_size"),
        .init("unknown stemmer", "[indexer]\nlanguage = \"klingon\"\n", at: "indexer.language", .invalidValue,
              "expected a Xapian 1.4 stemmer name or code, or \"none\"", "english", "found \"klingon\""),
        .init("Greek, missing from Xapian 1.4", "[indexer]\nlanguage = \"greek\"\n", at: "indexer.language",
              .invalidValue, "expected a Xapian 1.4 stemmer name", "found \"greek\""),
        .init("capitalised stemmer", "[indexer]\nlanguage = \"English\"\n", at: "indexer.language", .invalidValue,
              "found \"English\""),
        .init("unknown stopword list", "[indexer]\nstopwords = \"fr\"\n", at: "indexer.stopwords", .invalidValue,
              "expected one of \"en\", \"none\"; found \"fr\""),
        .init("empty indexer author", "[indexer]\nauthor = \"\"\n", at: "indexer.author", .invalidValue,
              "expected a non-empty author name"),
        .init("batch size zero", "[indexer]\nbatch_size = 0\n", at: "indexer.batch_size", .invalidValue,
              "expected an integer ≥ 1; found 0"),
        .init("negative batch size", "[indexer]\nbatch_size = -5\n", at: "indexer.batch_size", .invalidValue,
              "expected an integer ≥ 1; found -5"),
        .init("batch size as text", "[indexer]\nbatch_size = \"1000\"\n", at: "indexer.batch_size", .wrongType,
              "expected an integer ≥ 1; found \"1000\""),
        .init("fractional batch size", "[indexer]\nbatch_size = 10.5\n", at: "indexer.batch_size", .wrongType,
              "expected an integer ≥ 1; found 10.5"),

        // Entities.
        .init("entities is a number", "entities = 3\n", at: "entities", .wrongType,
              "expected a table of entities, e.g. [entities.Package]; found 3"),
        .init("entities as an array of tables", "[[entities]]\nname = \"Package\"\n", at: "entities", .wrongType,
              "expected a table of entities", "found an array"),
        .init("entity is a string", "[entities]\nPackage = \"name\"\n", at: "entities.Package", .wrongType,
              "expected a table with key and fields", "found \"name\""),
        .init("SQL in an entity name",
              "[entities.\"Package; DROP TABLE x\"]\nkey = \"name\"\nfields.name.type = \"text\"\n",
              at: "entities.\"Package; DROP TABLE x\"", .invalidValue, "expected an identifier",
              "found \"Package; DROP TABLE x\""),
        .init("entity name starting with a digit", "[entities.9lives]\nkey = \"id\"\nfields.a.type = \"text\"\n",
              at: "entities.9lives", .invalidValue, "expected an identifier", "found \"9lives\""),
        .init("entity name with a dash", "[entities.my-notes]\nkey = \"id\"\nfields.a.type = \"text\"\n",
              at: "entities.my-notes", .invalidValue, "expected an identifier"),
        .init("empty entity name", "[entities.\"\"]\nkey = \"id\"\nfields.a.type = \"text\"\n",
              at: "entities.\"\"", .invalidValue, "expected an identifier", "found \"\""),
        .init("entity name too long", "[entities.\(String(repeating: "a", count: 65))]\nkey = \"id\"\nfields.a.type = \"text\"\n",
              at: "entities.\(String(repeating: "a", count: 65))", .invalidValue, "at most 64 characters"),
        .init("entity name reserved for Spotlite", "[entities.spotlite_history]\nkey = \"id\"\nfields.a.type = \"text\"\n",
              at: "entities.spotlite_history", .invalidValue, "expected a name not starting with spotlite_"),
        .init("entity name reserved for SQLite", "[entities.SQLite_master]\nkey = \"id\"\nfields.a.type = \"text\"\n",
              at: "entities.SQLite_master", .invalidValue, "expected a name not starting with sqlite_"),
        .init("entities differing only in case",
              "[entities.Package]\nkey = \"id\"\nfields.a.type = \"text\"\n[entities.package]\nkey = \"id\"\nfields.a.type = \"text\"\n",
              at: "entities.package", .conflict, "expected entity names that differ ignoring case"),
        .package("unknown entity key", entity: "keys = \"name\"", at: "entities.Package.keys", .unknownKey,
                 "unknown key \"keys\"; known keys are key, preserve_on_delete, fields"),
        .init("missing key", "[entities.Package.fields]\nname = { type = \"text\" }\n", at: "entities.Package.key",
              .missingKey, "missing; expected the name of the primary-key column"),
        .init("key is a number", "[entities.Package]\nkey = 5\nfields.a.type = \"text\"\n", at: "entities.Package.key",
              .wrongType, "expected the name of the primary-key column", "found 5"),
        .init("key is rowid", "[entities.Package]\nkey = \"rowid\"\nfields.a.type = \"text\"\n", at: "entities.Package.key",
              .invalidValue, "expected a column name other than rowid", "found \"rowid\""),
        .init("key with a space", "[entities.Package]\nkey = \"my key\"\nfields.a.type = \"text\"\n",
              at: "entities.Package.key", .invalidValue, "expected an identifier", "found \"my key\""),
        .init("missing fields", "[entities.Package]\nkey = \"name\"\n", at: "entities.Package.fields", .missingKey,
              "missing; expected a table of fields, e.g. [entities.Package.fields]"),
        .init("empty fields", "[entities.Package]\nkey = \"name\"\n[entities.Package.fields]\n",
              at: "entities.Package.fields", .invalidValue, "expected at least one field"),
        .init("fields is an array", "[entities.Package]\nkey = \"name\"\nfields = [\"name\"]\n",
              at: "entities.Package.fields", .wrongType, "expected a table of fields", "found an array"),
        .package("preserve_on_delete names an unknown field", entity: "preserve_on_delete = [\"name\", \"colour\"]",
                 at: "entities.Package.preserve_on_delete", .invalidValue,
                 "expected the key or field names (name); found \"colour\""),
        .package("preserve_on_delete lists a column twice", entity: "preserve_on_delete = [\"name\", \"name\"]",
                 at: "entities.Package.preserve_on_delete", .conflict, "expected each column once"),
        .package("preserve_on_delete is a string", entity: "preserve_on_delete = \"name\"",
                 at: "entities.Package.preserve_on_delete", .wrongType, "expected an array of column names"),

        // Fields.
        .package("field is a string", fields: "name = \"text\"", at: "entities.Package.fields.name", .wrongType,
                 "expected a table such as { type = \"text\" }; found \"text\""),
        .package("field without type", fields: "name = { weight = 2 }", at: "entities.Package.fields.name.type",
                 .missingKey, "missing; expected one of text, keyword, number, date, stored"),
        .package("unknown field type", fields: "name = { type = \"text\" }\nsize = { type = \"integer\" }",
                 at: "entities.Package.fields.size.type", .invalidValue,
                 "expected one of text, keyword, number, date, stored; found \"integer\""),
        .package("field type is a boolean", fields: "name = { type = true }", at: "entities.Package.fields.name.type",
                 .wrongType, "expected one of text, keyword, number, date, stored; found true"),
        .package("unknown field key", fields: "name = { type = \"text\", colour = \"red\" }",
                 at: "entities.Package.fields.name.colour", .unknownKey, "unknown key \"colour\"", fieldKeys),
        .package("SQL in a field name", fields: "name = { type = \"text\" }\n\"x TEXT); DROP TABLE y; --\" = { type = \"text\" }",
                 at: "entities.Package.fields.\"x TEXT); DROP TABLE y; --\"", .invalidValue, "expected an identifier"),
        .package("field named _delete", fields: "name = { type = \"text\" }\n_delete = { type = \"keyword\" }",
                 at: "entities.Package.fields._delete", .invalidValue, "expected a column name other than", "_delete"),
        .package("field name reserved for Spotlite", fields: "name = { type = \"text\" }\nspotlite_x = { type = \"text\" }",
                 at: "entities.Package.fields.spotlite_x", .invalidValue, "expected a name not starting with spotlite_"),
        .package("fields differing only in case", fields: "name = { type = \"text\" }\nName = { type = \"keyword\" }",
                 at: "entities.Package.fields.Name", .conflict, "expected field names that differ ignoring case"),
        .package("weight zero", fields: "name = { type = \"text\", weight = 0 }", at: "entities.Package.fields.name.weight",
                 .invalidValue, "expected an integer from 1 to 1000; found 0"),
        .package("negative weight", fields: "name = { type = \"text\", weight = -2 }",
                 at: "entities.Package.fields.name.weight", .invalidValue, "expected an integer from 1 to 1000; found -2"),
        .package("weight too large", fields: "name = { type = \"text\", weight = 100000 }",
                 at: "entities.Package.fields.name.weight", .invalidValue, "expected an integer from 1 to 1000; found 100000"),
        .package("fractional weight", fields: "name = { type = \"text\", weight = 2.5 }",
                 at: "entities.Package.fields.name.weight", .wrongType, "expected an integer from 1 to 1000; found 2.5"),
        .package("weight on a keyword", fields: "name = { type = \"keyword\", weight = 2 }",
                 at: "entities.Package.fields.name.weight", .invalidValue,
                 "expected weight only on text fields; found it on a keyword field"),
        .package("facet on text", fields: "name = { type = \"text\", facet = true }",
                 at: "entities.Package.fields.name.facet", .invalidValue,
                 "expected facet only on keyword fields; found it on a text field", "change the type to \"keyword\""),
        .package("facet is a string", fields: "name = { type = \"keyword\", facet = \"yes\" }",
                 at: "entities.Package.fields.name.facet", .wrongType, "expected true or false; found \"yes\""),
        .package("empty separator", fields: "name = { type = \"keyword\", separator = \"\" }",
                 at: "entities.Package.fields.name.separator", .invalidValue, "expected a non-empty string"),
        .package("separator on text", fields: "name = { type = \"text\", separator = \",\" }",
                 at: "entities.Package.fields.name.separator", .invalidValue, "expected separator only on keyword fields"),
        .package("sortable on a keyword", fields: "name = { type = \"keyword\", sortable = true }",
                 at: "entities.Package.fields.name.sortable", .invalidValue,
                 "expected sortable only on number and date fields; found it on a keyword field"),
        .package("prefix on a stored field", fields: "name = { type = \"stored\", prefix = \"n\" }",
                 at: "entities.Package.fields.name.prefix", .invalidValue, "expected prefix only on text fields"),
        .package("stored field not stored", fields: "name = { type = \"stored\", store = false }",
                 at: "entities.Package.fields.name.store", .invalidValue, "stored fields are always returned with hits"),
        .package("store is a string", fields: "name = { type = \"text\", store = \"yes\" }",
                 at: "entities.Package.fields.name.store", .wrongType, "expected true or false; found \"yes\""),
        .package("capitalised prefix", fields: "name = { type = \"text\", prefix = \"Name\" }",
                 at: "entities.Package.fields.name.prefix", .invalidValue, "expected lowercase letters a-z", "found \"Name\""),
        .package("prefix with a digit", fields: "name = { type = \"text\", prefix = \"n1\" }",
                 at: "entities.Package.fields.name.prefix", .invalidValue, "expected lowercase letters a-z"),
        .package("empty prefix", fields: "name = { type = \"text\", prefix = \"\" }",
                 at: "entities.Package.fields.name.prefix", .invalidValue, "expected lowercase letters a-z", "found \"\""),
        .package("two text fields with one prefix",
                 fields: "name = { type = \"text\", prefix = \"t\" }\nsummary = { type = \"text\", prefix = \"t\" }",
                 at: "entities.Package.fields.summary.prefix", .conflict,
                 "expected a prefix no other field of Package uses", "already the prefix of field name"),
        .package("text prefix naming a keyword field",
                 fields: "section = { type = \"keyword\" }\nname = { type = \"text\", prefix = \"section\" }",
                 at: "entities.Package.fields.name.prefix", .conflict,
                 "expected \"section\" to mean one kind of search in queries",
                 "as a text prefix here and as a keyword filter at entities.Package.fields.section"),
        .init("keyword in one entity, number in another",
              "[entities.A]\nkey = \"id\"\nfields.size = { type = \"keyword\" }\n[entities.B]\nkey = \"id\"\nfields.size = { type = \"number\" }\n",
              at: "entities.B.fields.size", .conflict, "expected \"size\" to mean one kind of search",
              "a number range field here and as a keyword filter at entities.A.fields.size"),
        .init("text in one entity, keyword in another",
              "[entities.A]\nkey = \"id\"\nfields.name = { type = \"text\" }\n[entities.B]\nkey = \"id\"\nfields.name = { type = \"keyword\" }\n",
              at: "entities.B.fields.name", .conflict, "expected field \"name\" to have one type in every entity",
              "found keyword here and text at entities.A.fields.name"),

        // Syntax.
        .init("unclosed table header", "store = \"x\"\n\n[entities.Package\nkey = \"name\"\n", at: "",
              .syntax(line: 3, column: 18), "invalid TOML"),
        .init("unterminated string", "[history]\nauthors = [\"app]\n", at: "", .syntax(line: 2, column: 17), "invalid TOML"),
        .init("NUL character", "store = \"a\"\nindex = \"b\u{0}\"\n", at: "", .syntax(line: 2, column: 11),
              "invalid TOML: a NUL character is not allowed"),
    ]

    @Test("a malformed configuration is refused with its key path and what was expected", arguments: cases)
    func refused(_ malformed: MalformedConfiguration) throws {
        let error = try #require(ConfigurationTestSupport.error(parsing: malformed.toml, source: "config/test.toml"))
        #expect(error.keyPath == malformed.keyPath, "\(error)")
        #expect(error.kind == malformed.kind, "\(error)")
        #expect(error.source == "config/test.toml")
        for fragment in malformed.fragments {
            #expect(error.message.contains(fragment), "\(error) lacks \(fragment)")
        }
        if case .syntax = error.kind {
            #expect(error.description.hasPrefix("config/test.toml: line "))
        } else {
            #expect(error.description.hasPrefix("config/test.toml: \(malformed.keyPath): "))
            #expect(error.message.contains("expected") || error.message.contains("known keys are"), "\(error)")
        }
    }

    @Test("the corpus is large and covers every error kind")
    func corpusCoverage() {
        #expect(Self.cases.count >= 30)
        let kinds = Set(Self.cases.map { malformed -> String in
            if case .syntax = malformed.kind { return "syntax" }
            return "\(malformed.kind)"
        })
        #expect(kinds == ["syntax", "unknownKey", "missingKey", "wrongType", "invalidValue", "conflict"])
        #expect(Set(Self.cases.map(\.label)).count == Self.cases.count)
    }

    @Test("the error for an unknown field type reads exactly as documented")
    func documentedMessage() throws {
        let toml = ConfigurationTestSupport.package(fields: "name = { type = \"text\" }\nsize = { type = \"integer\" }")
        let error = try #require(ConfigurationTestSupport.error(parsing: toml, source: "config/spotlite.toml"))
        #expect(error.description == "config/spotlite.toml: entities.Package.fields.size.type: "
            + "expected one of text, keyword, number, date, stored; found \"integer\"")
    }

    @Test("a duplicated key is a TOML error on the line of the repetition")
    func duplicateKey() throws {
        let toml = ConfigurationTestSupport.package(fields: "name = { type = \"text\" }\nname = { type = \"keyword\" }")
        let error = try #require(ConfigurationTestSupport.error(parsing: toml))
        let duplicateLine = toml.split(separator: "\n", omittingEmptySubsequences: false)
            .lastIndex { $0.hasPrefix("name = { type = \"keyword\"") }.map { $0 + 1 }
        guard case let .syntax(line, _) = error.kind else {
            Issue.record("expected a syntax error, got \(error)")
            return
        }
        #expect(line == duplicateLine)
        #expect(error.message.hasPrefix("invalid TOML: "))
        #expect(error.message.count > "invalid TOML: ".count)
    }

    @Test("the first problem in file order is the one reported")
    func fileOrder() throws {
        let toml = """
        [entities.Zeta]
        key = "id"
        fields.a = { type = "text", weight = 0 }

        [entities.Alpha]
        key = "id"
        fields.a = { type = "text", weight = 0 }
        """
        let error = try #require(ConfigurationTestSupport.error(parsing: toml))
        #expect(error.keyPath == "entities.Zeta.fields.a.weight")
    }

    @Test("an error from a file names the file as given")
    func namesFile() throws {
        let path = ConfigurationTestSupport.repositoryFile("config/examples/minimal.toml")
        let valid = try SpotliteConfiguration(contentsOf: path)
        #expect(valid.entities.count == 1)
        let error = #expect(throws: ConfigurationError.self) {
            try SpotliteConfiguration(tomlString: "[indexer]\nbatch_size = 0\n", source: "relative/name.toml")
        }
        #expect(error?.description == "relative/name.toml: indexer.batch_size: expected an integer ≥ 1; found 0")
    }
}

/// The configuration file and a model built in Swift accept and refuse the same names: one set of identifier rules.
@Suite("Identifier rules", .blockingWork)
struct IdentifierRuleTests {
    static let names = ["Note", "_private", "n64" + String(repeating: "x", count: 61), "n65" + String(repeating: "x", count: 62),
                        "1abc", "bad-name", "café", "spotlite_notes", "SQLite_x", "rowid", "OID", "_rowid_", "_delete", "body"]

    private func fileAccepts(entity: String = "Note", key: String = "id", field: String = "body") -> Bool {
        let toml = """
            store = "/tmp/store.sqlite"
            index = "/tmp/search"
            [entities.\(entity)]
            key = "\(key)"
            [entities.\(entity).fields]
            \(field) = { type = "text" }
            """
        return (try? SpotliteConfiguration(tomlString: toml, source: "test")) != nil
    }

    private func modelAccepts(entity: String = "Note", key: String = "id", field: String = "body") -> Bool {
        let model = StoreModel(entities: [EntityDescription(name: entity, key: key, attributes: [AttributeDescription(name: field)])])
        return (try? model.validate()) != nil
    }

    @Test("entity names", arguments: names)
    func entityNames(name: String) {
        // TOML table names need quotes around anything but bare keys.
        let quoted = "\"\(name)\""
        #expect(fileAccepts(entity: quoted) == modelAccepts(entity: name), "\(name)")
    }

    @Test("key and field names", arguments: names)
    func columnNames(name: String) {
        #expect(fileAccepts(key: name, field: "\"\(name)\"") == modelAccepts(key: name, field: name), "\(name)")
        #expect(fileAccepts(field: "\"\(name)\"") == modelAccepts(field: name), "\(name)")
    }

    @Test func theRulesRefuseWhatTheyShould() {
        #expect(modelAccepts(entity: "Note") && modelAccepts(field: "_private"))
        #expect(fileAccepts() && fileAccepts(entity: "\"Note\"", field: "\"_private\""), "the sample file is valid")
        for name in ["1abc", "bad-name", "café", "spotlite_notes", "SQLite_x", "n65" + String(repeating: "x", count: 62)] {
            #expect(!modelAccepts(entity: name) && !fileAccepts(entity: "\"\(name)\""), "\(name)")
        }
        for name in ["rowid", "OID", "_rowid_", "_delete"] {
            #expect(modelAccepts(entity: name == "_delete" ? "Deleted" : "Note"))
            #expect(!modelAccepts(field: name) && !fileAccepts(field: "\"\(name)\""), "\(name)")
        }
    }
}

/// A configuration built in Swift and used without `validate(source:)`: the index still refuses fields that cannot
/// share it, with a configuration error naming the key, as the validator would (it used to say "unknown field").
@Suite("Conflicting fields of an unvalidated configuration")
struct UnvalidatedConfigurationConflictTests {
    static let conflicts: [(label: String, entities: [EntityConfiguration], keyPath: String, fragments: [String])] = [
        ("one name, two types",
         [EntityConfiguration(name: "A", key: "id", fields: [.text("name")]),
          EntityConfiguration(name: "B", key: "id", fields: [.keyword("name")])],
         "entities.B.fields.name", ["expected field \"name\" to have one type in every entity", "found keyword here and text"]),
        ("a text prefix naming a keyword field",
         [EntityConfiguration(name: "A", key: "id", fields: [.keyword("section"), .text("title", prefix: "section")])],
         "entities.A.fields.title.prefix", ["expected \"section\" to mean one thing in queries", "the keyword field section"]),
    ]

    @Test("the index refuses them with a ConfigurationError of kind conflict", arguments: 0..<conflicts.count)
    func refused(_ index: Int) throws {
        let conflict = Self.conflicts[index]
        let configuration = SpotliteConfiguration(storePath: "/nonexistent/store.sqlite", indexPath: "/nonexistent/search",
                                                  entities: conflict.entities)
        let error = #expect(throws: ConfigurationError.self, "\(conflict.label)") {
            _ = try IndexSearcher(configuration: configuration)
        }
        #expect(error?.kind == .conflict && error?.keyPath == conflict.keyPath, "\(String(describing: error))")
        for fragment in conflict.fragments {
            #expect(error?.message.contains(fragment) == true, "\(String(describing: error)) lacks \(fragment)")
        }
        #expect(error?.description.contains("unknown field") == false)
        // The validator refuses the same configuration at the same key.
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }
}

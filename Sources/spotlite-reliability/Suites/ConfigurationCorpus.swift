/// Malformed configuration files, each with the key path its error must name. Every one is otherwise a valid file
/// whose store and index would be created under `data/` by the `spotlite import` the suite runs with it, so "nothing
/// created" is checked too.
enum ConfigurationCorpus {
    struct Case {
        var name: String
        var text: String
        /// What the one-line error must contain after the file name: the key path, or `line N` for syntax errors.
        var names: String
    }

    /// A valid file with one section replaced.
    static func file(top: String = "store = \"data/store.sqlite\"\nindex = \"data/search\"",
                     history: String = "authors = [\"app\"]",
                     indexer: String = "batch_size = 10",
                     entity: String = "key = \"id\"\npreserve_on_delete = [\"title\"]",
                     fields: String = "title = { type = \"text\", store = true }\ntag = { type = \"keyword\", facet = true }\nn = { type = \"number\", sortable = true }",
                     entityName: String = "Item") -> String {
        "\(top)\n\n[history]\n\(history)\n\n[indexer]\n\(indexer)\n\n[entities.\(entityName)]\n\(entity)\n\n[entities.\(entityName).fields]\n\(fields)\n"
    }

    static let cases: [Case] = [
        // Wrong types.
        Case(name: "store is a number", text: file(top: "store = 42\nindex = \"data/search\""), names: "store"),
        Case(name: "index is an array", text: file(top: "store = \"data/store.sqlite\"\nindex = [\"data/search\"]"), names: "index"),
        Case(name: "authors is a string", text: file(history: "authors = \"app\""), names: "history.authors"),
        Case(name: "authors holds numbers", text: file(history: "authors = [1, 2]"), names: "history.authors"),
        Case(name: "batch_size is text", text: file(indexer: "batch_size = \"100\""), names: "indexer.batch_size"),
        Case(name: "batch_size is fractional", text: file(indexer: "batch_size = 2.5"), names: "indexer.batch_size"),
        Case(name: "key is a number", text: file(entity: "key = 5"), names: "entities.Item.key"),
        Case(name: "weight is text", text: file(fields: "title = { type = \"text\", weight = \"heavy\" }"), names: "entities.Item.fields.title.weight"),
        Case(name: "facet is text", text: file(fields: "tag = { type = \"keyword\", facet = \"yes\" }"), names: "entities.Item.fields.tag.facet"),
        Case(name: "field is a string", text: file(fields: "title = \"text\""), names: "entities.Item.fields.title"),
        Case(name: "entities is a number", text: "store = \"data/store.sqlite\"\nentities = 3\n", names: "entities"),
        Case(name: "preserve_on_delete is a string", text: file(entity: "key = \"id\"\npreserve_on_delete = \"title\""), names: "entities.Item.preserve_on_delete"),
        // Unknown keys.
        Case(name: "misspelt top-level key", text: file(top: "stroe = \"data/store.sqlite\"\nindex = \"data/search\""), names: "stroe"),
        Case(name: "unknown history key", text: file(history: "authors = [\"app\"]\ncolour = \"blue\""), names: "history.colour"),
        Case(name: "unknown indexer key", text: file(indexer: "threads = 4"), names: "indexer.threads"),
        Case(name: "unknown entity key", text: file(entity: "key = \"id\"\nkeys = \"id\""), names: "entities.Item.keys"),
        Case(name: "unknown field option", text: file(fields: "title = { type = \"text\", colour = \"red\" }"), names: "entities.Item.fields.title.colour"),
        Case(name: "unknown clean key", text: file(history: "clean = { hourly = true }"), names: "history.clean.hourly"),
        // Bad durations.
        Case(name: "duration in weeks", text: file(history: "maximum_duration = \"2w\""), names: "history.maximum_duration"),
        Case(name: "negative duration", text: file(history: "maximum_duration = \"-1d\""), names: "history.maximum_duration"),
        Case(name: "duration without unit", text: file(history: "maximum_duration = \"7\""), names: "history.maximum_duration"),
        Case(name: "duration as a number", text: file(history: "maximum_duration = 7"), names: "history.maximum_duration"),
        Case(name: "duration in words", text: file(history: "maximum_duration = \"seven days\""), names: "history.maximum_duration"),
        Case(name: "clean every is not a duration", text: file(history: "clean = { every = \"soon\" }"), names: "history.clean.every"),
        Case(name: "clean every overflows", text: file(history: "clean = { every = \"99999999999999999999h\" }"), names: "history.clean.every"),
        // Impossible values.
        Case(name: "unknown clean policy", text: file(history: "clean = \"sometimes\""), names: "history.clean"),
        Case(name: "batch size zero", text: file(indexer: "batch_size = 0"), names: "indexer.batch_size"),
        Case(name: "unknown language", text: file(indexer: "language = \"klingon\""), names: "indexer.language"),
        Case(name: "unknown stopwords", text: file(indexer: "stopwords = \"klingon\""), names: "indexer.stopwords"),
        Case(name: "unknown field type", text: file(fields: "n = { type = \"integer\" }"), names: "entities.Item.fields.n.type"),
        Case(name: "weight zero", text: file(fields: "title = { type = \"text\", weight = 0 }"), names: "entities.Item.fields.title.weight"),
        Case(name: "separator on text", text: file(fields: "title = { type = \"text\", separator = \",\" }"), names: "entities.Item.fields.title.separator"),
        Case(name: "missing fields", text: "store = \"data/store.sqlite\"\n[entities.Item]\nkey = \"id\"\n", names: "entities.Item.fields"),
        Case(name: "missing key", text: "store = \"data/store.sqlite\"\n[entities.Item.fields]\ntitle = { type = \"text\" }\n", names: "entities.Item.key"),
        // Unknown entities and columns.
        Case(name: "batch author not among authors", text: file(history: "authors = [\"app\"]\nbatch_authors = [\"ghost\"]"), names: "history.batch_authors"),
        Case(name: "preserve_on_delete names an unknown column", text: file(entity: "key = \"id\"\npreserve_on_delete = [\"ghost\"]"), names: "entities.Item.preserve_on_delete"),
        Case(name: "entities differing only in case", text: file() + "\n[entities.item]\nkey = \"id\"\n[entities.item.fields]\ntitle = { type = \"text\" }\n", names: "entities.item"),
        // SQL-looking names.
        Case(name: "SQL in an entity name", text: file(entityName: "\"Item; DROP TABLE Item; --\""), names: "entities.\"Item; DROP TABLE Item; --\""),
        Case(name: "SQL in a field name", text: file(fields: "\"title TEXT); DROP TABLE x; --\" = { type = \"text\" }"), names: "entities.Item.fields"),
        Case(name: "quote in the key", text: file(entity: "key = \"id' OR '1'='1\""), names: "entities.Item.key"),
        Case(name: "entity name reserved for Spotlite", text: file(entityName: "spotlite_change"), names: "entities.spotlite_change"),
        Case(name: "entity named like SQLite's own tables", text: file(entityName: "sqlite_master"), names: "entities.sqlite_master"),
        // Not TOML at all.
        Case(name: "unterminated string", text: "store = \"data/store.sqlite\nindex = \"x\"\n", names: "line 1"),
        Case(name: "duplicated key", text: "store = \"a\"\nstore = \"b\"\n", names: "line 2"),
        Case(name: "NUL in the file", text: "store = \"data/store\u{0}.sqlite\"\n", names: "line 1"),
    ]
}

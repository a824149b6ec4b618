import Foundation
import GRDB
import Spotlite

extension BadInputSuite {
    /// Names and values that could inject SQL are either refused (entity and field names: see the configuration
    /// corpus) or quoted safely: keys and values with quotes, semicolons and comment markers round-trip through the
    /// store, history, the index and deletion; filters carrying SQL match nothing; and a table another program created
    /// with hostile column and index names is tracked without breaking.
    mutating func injection() throws {
        var problems: [String] = []
        let hostile = ["x'); DROP TABLE Item; --", "\"; DELETE FROM Item; --", "it'\u{301}s", "a\"\u{301}b; --",
                       "Robert'); DROP TABLE Students;--", "%' OR '1'='1", "\\'; SELECT 1; --"]
        let lines = hostile.enumerated().map { index, key -> String in
            let object: [String: Any] = ["id": key, "title": "hostile \(index) \(key)", "tag": key, "rev": 0]
            return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: "hostile.jsonl")
        let imported = try workspace.runSpotlite(["import", workspace.path("hostile.jsonl"), "--entity", "Item"])
        if !imported.succeeded { problems.append("importing hostile keys: \(imported.errorLine)") }
        let update = try workspace.runSpotlite(["index", "update", "--json"])
        if !update.succeeded { problems.append("index update: \(update.errorLine)") }

        let searcher = try IndexSearcher(configuration: configuration)
        for (index, key) in hostile.enumerated() {
            let label = QueryFuzzer.escaped(key)
            for field in ["id", "tag"] {
                let found = try searcher.search(SearchRequest("", filters: [SearchFilter(field: field, value: key)],
                                                              snippet: SnippetOptions(length: 0)))
                let hits = found.hits.map { $0.key.description }
                if hits != [key] { problems.append("filter \(field):\(label) found \(hits.map(QueryFuzzer.escaped))") }
            }
            let command = try workspace.runSpotlite(["search", "--json", "--filter", "id:\(key)"])
            let keys = ((command.jsonObject?["hits"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }
            if keys != [key] { problems.append("spotlite search --filter id:\(label) found \(keys.map(QueryFuzzer.escaped)) \(command.errorLine)") }
            let title = (((command.jsonObject?["hits"] as? [[String: Any]])?.first?["fields"] as? [String: Any])?["title"] as? String)
            if title != "hostile \(index) \(key)" { problems.append("the title of \(label) came back as \(title.map(QueryFuzzer.escaped) ?? "nothing")") }
        }
        for (name, arguments) in [
            ("history list --entity with SQL", ["history", "list", "--json", "--entity", "Item' OR '1'='1"]),
            ("history list --author with SQL", ["history", "list", "--json", "--author", "x' OR 1=1 --"]),
        ] {
            let run = try workspace.runSpotlite(arguments)
            if !run.succeeded {
                // An entity the configuration does not describe is refused, by its name: not read as SQL either.
                if !(arguments.contains("--entity") && run.errorLine.contains("unknown entity \"Item' OR '1'='1\"")) {
                    problems.append("\(name): \(run.errorLine)")
                }
            } else if (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [Any] != nil,
                    let list = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [Any], !list.isEmpty {
                problems.append("\(name) matched \(list.count) transactions: the text was read as SQL")
            }
        }
        let filtered = try workspace.runSpotlite(["search", "--json", "--filter", "tag:x' OR 1=1 --"])
        if ((filtered.jsonObject?["hits"] as? [Any])?.count ?? -1) != 0 { problems.append("a filter carrying SQL matched something: \(filtered.stdout.prefix(200))") }

        // Delete them all again: the tombstones keep the exact values, and the index forgets them.
        let deletes = hostile.map { key -> String in
            String(decoding: try! JSONSerialization.data(withJSONObject: ["id": key, "_delete": true], options: [.sortedKeys]), as: UTF8.self)
        }
        try workspace.write(deletes.joined(separator: "\n") + "\n", to: "hostile-delete.jsonl")
        let deleted = try workspace.runSpotlite(["import", workspace.path("hostile-delete.jsonl"), "--entity", "Item", "--json"])
        if deleted.jsonObject?["deleted"] as? Int != hostile.count { problems.append("deleting the hostile keys: \(deleted.stdout) \(deleted.errorLine)") }
        let history = try workspace.runSpotlite(["history", "list", "--json", "--entity", "Item", "--after", String(Self.newestToken(configuration) - 1)])
        let changes = (((try? JSONSerialization.jsonObject(with: Data(history.stdout.utf8))) as? [[String: Any]])?.last?["changes"] as? [[String: Any]]) ?? []
        let tombstones = Set(changes.compactMap { ($0["tombstone"] as? [String: Any])?["id"] as? String })
        if tombstones != Set(hostile) { problems.append("the tombstones hold \(tombstones.map(QueryFuzzer.escaped).sorted()), not the deleted keys") }
        let after = try workspace.runSpotlite(["index", "update", "--json"])
        if after.jsonObject?["deleted"] as? Int != hostile.count { problems.append("the update after the deletes: \(after.stdout) \(after.errorLine)") }
        problems += invariantProblems()
        report.record("keys and values with quotes, semicolons and comments round-trip; SQL in filters matches nothing", problems: problems)

        try hostileTable()
    }

    /// The newest token of the store.
    static func newestToken(_ configuration: SpotliteConfiguration) throws -> Int64 {
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        return try store.currentToken()?.rawValue ?? 0
    }

    /// A table created by another program, with column and index names full of quotes, semicolons and a combining
    /// mark after a quote (which a quoting function comparing Characters instead of scalars fails to double).
    private mutating func hostileTable() throws {
        var problems: [String] = []
        let directory = workspace.path("hostile-table")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let columns = ["we\"ird; col", "it's", "q\"\u{301}x", "'\u{301}); DROP TABLE Note; --"]
        func quoted(_ name: String) -> String {
            var out = "\""
            for scalar in name.unicodeScalars {
                if scalar == "\"" { out += "\"" }
                out.unicodeScalars.append(scalar)
            }
            return out + "\""
        }
        let create = try workspace.sqlite("""
            CREATE TABLE Note (id TEXT NOT NULL, title TEXT, \(columns.map { quoted($0) + " TEXT" }.joined(separator: ", ")));
            CREATE UNIQUE INDEX \(quoted("ix\"\u{301}; DROP TABLE Note; --")) ON Note(id);
            INSERT INTO Note (id, title) VALUES ('before', 'written before Spotlite');
            """, database: directory + "/notes.sqlite")
        if !create.succeeded { throw HarnessError("cannot create the hostile table: \(create.errorLine)") }
        try workspace.write("""
            store = "notes.sqlite"
            index = "notes-index"
            [entities.Note]
            key = "id"
            preserve_on_delete = ["title"]
            [entities.Note.fields]
            id = { type = "keyword", store = true }
            title = { type = "text", store = true }
            """, to: "hostile-table/spotlite.toml")
        var importLine: [String: Any] = ["id": "n1", "title": "first note"]
        for (index, column) in columns.enumerated() { importLine[column] = "imported \(index)" }
        try workspace.write(Data(try JSONSerialization.data(withJSONObject: importLine)) + Data("\n".utf8),
                            to: "hostile-table/notes.jsonl")
        let imported = try workspace.run(workspace.spotlite, ["import", "notes.jsonl", "--entity", "Note", "--config", "spotlite.toml"],
                                         label: "hostile-import", directory: directory)
        if !imported.succeeded { problems.append("opening a table with hostile column names: \(imported.errorLine)") }
        let written = try workspace.sqlite("SELECT \(columns.map(quoted).joined(separator: " || ',' || ")) FROM Note WHERE id = 'n1';",
                                              database: directory + "/notes.sqlite")
        if written.stdout.trimmingCharacters(in: .whitespacesAndNewlines) != "imported 0,imported 1,imported 2,imported 3" {
            problems.append("the import did not write the hostile columns: \(written.stdout) \(written.errorLine)")
        }
        let update = try workspace.sqlite("UPDATE Note SET \(columns.enumerated().map { "\(quoted($1)) = 'v\($0)'" }.joined(separator: ", ")) WHERE id = 'n1';",
                                          database: directory + "/notes.sqlite")
        if !update.succeeded { problems.append("updating the hostile columns with sqlite3: \(update.errorLine)") }
        let history = try workspace.run(workspace.spotlite, ["history", "list", "--json", "--config", "spotlite.toml"],
                                        label: "hostile-history", directory: directory)
        let transactions = (try? JSONSerialization.jsonObject(with: Data(history.stdout.utf8))) as? [[String: Any]] ?? []
        let recorded = ((transactions.last?["changes"] as? [[String: Any]])?.first?["columns"] as? [String]) ?? []
        if Set(recorded) != Set(columns) {
            problems.append("history recorded the columns \(recorded.map(QueryFuzzer.escaped)), not \(columns.map(QueryFuzzer.escaped)) \(history.errorLine)")
        }
        let indexed = try workspace.run(workspace.spotlite, ["index", "update", "--json", "--config", "spotlite.toml"],
                                        label: "hostile-index", directory: directory)
        if indexed.jsonObject?["indexed"] as? Int != 2 { problems.append("indexing the hostile table: \(indexed.stdout) \(indexed.errorLine)") }
        let tables = try workspace.sqlite("SELECT count(*) FROM Note;", database: directory + "/notes.sqlite")
        if tables.stdout.trimmingCharacters(in: .whitespacesAndNewlines) != "2" { problems.append("the table lost rows: \(tables.stdout) \(tables.errorLine)") }
        report.record("a table created elsewhere with hostile column and index names is tracked and indexed", problems: problems)
    }
}

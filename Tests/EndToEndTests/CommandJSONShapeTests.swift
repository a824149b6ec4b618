import Foundation
import SpotliteTestSupport
import Testing

/// Every command's `--json` output has exactly the documented shape (shared/spec/cli.md).
@Suite("JSON output of every command", .serialized, .blockingWork)
struct CommandJSONShapeTests {
    @Test func importUpdateStatusSearchHistoryShapes() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")

        let imported = try tool.run(["import", "packages.jsonl", "--entity", "Package", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let importObject = try #require(try imported.json() as? [String: Any])
        #expect(Set(importObject.keys) == ["entity", "inserted", "updated", "unchanged", "deleted", "transactions", "token", "seconds"])
        #expect(importObject["entity"] as? String == "Package")
        #expect(importObject["inserted"] as? Int == 5)
        #expect(importObject["transactions"] as? Int == 1)

        let update = try tool.run(["index", "update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let updateObject = try #require(try update.json() as? [String: Any])
        #expect(Set(updateObject.keys) == ["token", "transactions", "changes", "indexed", "deleted", "rebuilt", "reason", "seconds",
                                           "unreadable_values", "unreadable_examples"])
        #expect(updateObject["unreadable_values"] as? Int == 0 && (updateObject["unreadable_examples"] as? [Any])?.isEmpty == true)
        #expect(updateObject["rebuilt"] as? Bool == true)
        #expect(updateObject["reason"] as? String != nil)
        #expect(updateObject["indexed"] as? Int == 5)

        let again = try #require(try tool.run(["index", "update", "--json"]).json() as? [String: Any])
        #expect(again["rebuilt"] as? Bool == false)
        #expect(again["reason"] is NSNull)

        let rebuild = try #require(try tool.run(["index", "rebuild", "--json"]).json() as? [String: Any])
        #expect(rebuild["rebuilt"] as? Bool == true)
        #expect(Set(rebuild.keys) == Set(updateObject.keys))

        let status = try tool.run(["index", "status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let statusObject = try #require(try status.json() as? [String: Any])
        #expect(Set(statusObject.keys) == ["index", "exists", "documents", "token", "store_token", "pending_transactions",
                                           "lag_seconds", "oldest_history_token", "fingerprint", "rebuild_reason",
                                           "checkpoints"])
        #expect(statusObject["lag_seconds"] is NSNull, "nothing pending, no lag")
        #expect(statusObject["exists"] as? Bool == true && statusObject["rebuild_reason"] is NSNull)
        #expect(statusObject["documents"] as? Int == 5)
        #expect(statusObject["pending_transactions"] as? Int == 0)
        let checkpoints = try #require(statusObject["checkpoints"] as? [[String: Any]])
        let indexer = try #require(checkpoints.first { $0["author"] as? String == "spotlite.indexer" })
        #expect(Set(indexer.keys) == ["author", "token", "timestamp"])
        #expect((indexer["timestamp"] as? String)?.contains("T") == true)

        let search = try tool.run(["search", "xapian", "--json", "--facet", "section"])
        #expect(search.status == 0, "\(search.stderr)")
        let searchObject = try #require(try search.json() as? [String: Any])
        #expect(Set(searchObject.keys) == ["query", "total", "corrected", "hits", "facets"])
        let hits = try #require(searchObject["hits"] as? [[String: Any]])
        let hit = try #require(hits.first)
        #expect(Set(hit.keys) == ["entity", "key", "rank", "score", "percent", "fields", "snippet", "keyword_rank", "semantic_rank"])
        #expect(hit["key"] as? String == "xapian-tools")
        #expect(hit["rank"] as? Int == 1)
        let fields = try #require(hit["fields"] as? [String: Any])
        #expect(fields["version"] as? String == "1.4.22-1")
        #expect(fields["description"] == nil, "description is not a stored field")
        let facets = try #require(searchObject["facets"] as? [String: [String: Int]])
        #expect(facets["section"]?["utils"] == 1)

        try tool.write("xapian\nsqlite\n", to: "queries.txt")
        let batch = try tool.run(["search", "--queries", "queries.txt", "--json"])
        #expect(batch.status == 0, "\(batch.stderr)")
        let lines = try batch.jsonLines()
        #expect(lines.count == 2)
        #expect((lines[1] as? [String: Any])?["query"] as? String == "sqlite")

        let history = try tool.run(["history", "list", "--json"])
        #expect(history.status == 0, "\(history.stderr)")
        let transactions = try #require(try history.json() as? [[String: Any]])
        let first = try #require(transactions.first)
        #expect(Set(first.keys) == ["token", "timestamp", "author", "context", "changes"])
        #expect(first["author"] as? String == "importer")
        #expect(first["context"] as? String == "import")
        let change = try #require((first["changes"] as? [[String: Any]])?.first)
        #expect(Set(change.keys) == ["entity", "key", "type", "columns", "tombstone"])
        #expect(change["type"] as? String == "insert")
        #expect(change["tombstone"] is NSNull)

        let stats = try #require(try tool.run(["history", "stats", "--json"]).json() as? [String: Any])
        #expect(Set(stats.keys) == ["transactions", "changes", "oldest_token", "newest_token", "bytes"])
        #expect(stats["transactions"] as? Int == 1)
        #expect(stats["changes"] as? Int == 5)

        let clean = try tool.run(["history", "clean", "--dry-run", "--json"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let cleanObject = try #require(try clean.json() as? [String: Any])
        #expect(Set(cleanObject.keys) == ["watermark", "deleted_transactions", "kept_transactions", "reason",
                                          "kept_foreign_transactions", "kept_unlisted_author_transactions",
                                          "kept_unlisted_authors"])
    }

    @Test func importCountsUpdatesAndDeletes() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        try tool.run(["import", "packages.jsonl", "--entity", "Package"])
        let changes = #"{"name": "gimp", "summary": "GNU Image Manipulation Program, edited"}"# + "\n"
            + #"{"name": "ripgrep", "_delete": true}"# + "\n" + #"{"name": "new-one", "summary": "brand new"}"# + "\n"
        let result = try tool.run(["import", "-", "--entity", "Package", "--author", "app", "--context", "edits", "--json"],
                                  stdin: Data(changes.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        #expect(object["inserted"] as? Int == 1)
        #expect(object["updated"] as? Int == 1)
        #expect(object["deleted"] as? Int == 1)
        let history = try #require(try tool.run(["history", "list", "--author", "app", "--json"]).json() as? [[String: Any]])
        #expect(history.count == 1)
        #expect(history.first?["context"] as? String == "edits")
        let types = (history.first?["changes"] as? [[String: Any]])?.compactMap { $0["type"] as? String }.sorted()
        #expect(types == ["delete", "insert", "update"])
        let delete = (history.first?["changes"] as? [[String: Any]])?.first { $0["type"] as? String == "delete" }
        #expect((delete?["tombstone"] as? [String: Any])?["summary"] as? String == "Recursively search the current directory")
        let update = (history.first?["changes"] as? [[String: Any]])?.first { $0["type"] as? String == "update" }
        #expect(update?["columns"] as? [String] == ["summary"])
    }
}

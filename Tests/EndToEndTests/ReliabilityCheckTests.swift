import Foundation
import Testing

extension ReliabilityTests {
    /// The invariant checker of the suites must catch what it claims to: each test breaks one promise behind
    /// Spotlite's back and expects `spotlite-reliability check` to fail and say which.
    @Suite("Reliability: the invariant checker catches broken promises", .serialized)
    struct CheckTests {
        static let configuration = """
            store = "../store.sqlite"
            index = "../search"

            [entities.Item]
            key = "id"
            preserve_on_delete = ["id", "title"]

            [entities.Item.fields]
            id    = { type = "keyword", store = true }
            title = { type = "text", store = true }
            body  = { type = "text", store = true }
            tag   = { type = "keyword", facet = true, store = true }
            n     = { type = "number", sortable = true, store = true }
            rev   = { type = "number", store = true }

            """

        /// A store with three items and an index that is up to date.
        static func makeIndexedStore() throws -> CommandLineTool {
            let tool = try CommandLineTool(configuration: configuration)
            try tool.write("""
                {"id": "a", "title": "alpha", "body": "first", "tag": "x", "n": 1, "rev": 0}
                {"id": "b", "title": "beta", "body": "second", "tag": "y", "n": 2, "rev": 0}
                {"id": "c", "title": "gamma", "body": "third", "tag": "x", "n": 3, "rev": 0}

                """, to: "items.jsonl")
            let imported = try tool.run(["import", "items.jsonl", "--entity", "Item"])
            #expect(imported.status == 0, "\(imported.stderr)")
            let updated = try tool.run(["index", "update"])
            #expect(updated.status == 0, "\(updated.stderr)")
            return tool
        }

        static func check(_ tool: CommandLineTool, _ options: [String] = []) throws -> ReliabilityRunner.Output {
            try ReliabilityRunner.run(["check", "--config", tool.path("config/spotlite.toml")] + options, in: tool.directory)
        }

        @Test func aConsistentStoreAndIndexPass() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            let output = try Self.check(tool, ["--ledger"])
            #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(output.summary("check")! == (passed: 1, failed: 0))
            #expect(output.numbers(in: "rows") == [3])
            #expect(output.numbers(in: "documents") == [3])
        }

        @Test func aRowTheIndexMissedIsReported() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            #expect(try tool.sqlite("INSERT INTO Item (id, title, rev) VALUES ('d', 'delta', 0);", database: "store.sqlite").status == 0)
            let behind = try Self.check(tool, ["--allow-behind"])
            #expect(behind.status != 0)
            #expect(behind.stderr.contains("t:d has a row but no document"), "\(behind.stderr)")
            // Nothing sealed the sqlite3 shell's write yet: a completed update would have.
            let strict = try Self.check(tool)
            #expect(strict.stderr.contains("1 changes have no transaction (foreign writes left unsealed)"), "\(strict.stderr)")
        }

        @Test func aDeletedRowStillIndexedIsReported() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            #expect(try tool.sqlite("DELETE FROM Item WHERE id = 'b';", database: "store.sqlite").status == 0)
            let output = try Self.check(tool, ["--allow-behind"])
            #expect(output.status != 0)
            #expect(output.stderr.contains("t:b is indexed but has no row"), "\(output.stderr)")
        }

        @Test func aStaleValueIsReported() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            #expect(try tool.sqlite("UPDATE Item SET title = 'ALPHA', rev = rev + 1 WHERE id = 'a';", database: "store.sqlite").status == 0)
            let output = try Self.check(tool, ["--allow-behind"])
            #expect(output.status != 0)
            #expect(output.stderr.contains("field title is alpha in the index, ALPHA in the store"), "\(output.stderr)")
        }

        @Test func aCommitWithoutHistoryIsReported() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            #expect(try tool.sqlite("DROP TRIGGER spotlite_Item_insert; INSERT INTO Item (id, title, rev) VALUES ('ghost', 'unrecorded', 0);",
                                    database: "store.sqlite").status == 0)
            let output = try Self.check(tool, ["--ledger", "--allow-behind"])
            #expect(output.status != 0)
            #expect(output.stderr.contains("row t:ghost (rev 0) has no history: a commit without its history"), "\(output.stderr)")
        }

        @Test func historyWithoutItsCommitIsReported() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            #expect(try tool.sqlite("INSERT INTO spotlite_change (token, entity, \"key\", type) VALUES (1, 'Item', 'phantom', 0);",
                                    database: "store.sqlite").status == 0)
            let output = try Self.check(tool, ["--ledger"])
            #expect(output.status != 0)
            #expect(output.stderr.contains("history says t:phantom exists but it has no row"), "\(output.stderr)")
        }

        @Test func updatesMissingFromHistoryAreReported() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            // One recorded update, but rev claims three: two updates left no history.
            #expect(try tool.sqlite("UPDATE Item SET rev = 3 WHERE id = 'c';", database: "store.sqlite").status == 0)
            let output = try Self.check(tool, ["--ledger", "--allow-behind"])
            #expect(output.status != 0)
            #expect(output.stderr.contains("row t:c has rev 3 but history records 1 updates"), "\(output.stderr)")
        }

        @Test func anUnsealedOrOrphanChangeIsReported() throws {
            let tool = try Self.makeIndexedStore()
            defer { tool.remove() }
            #expect(try tool.sqlite("INSERT INTO spotlite_change (token, entity, \"key\", type) VALUES (999, 'Item', 'a', 1);",
                                    database: "store.sqlite").status == 0)
            let output = try Self.check(tool)
            #expect(output.status != 0)
            #expect(output.stderr.contains("1 changes belong to no transaction"), "\(output.stderr)")
        }
    }
}

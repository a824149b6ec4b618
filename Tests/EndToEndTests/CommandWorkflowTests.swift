import Foundation
import SpotliteTestSupport
import Testing

@Suite("Workflows through the spotlite binary", .serialized, .blockingWork)
struct CommandWorkflowTests {
    @Test func importIndexSearchForeignDeleteUpdateGone() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)

        let found = try #require(try tool.run(["search", "xapian", "--json"]).json() as? [String: Any])
        #expect((found["hits"] as? [[String: Any]])?.first?["key"] as? String == "xapian-tools")

        let deleted = try tool.sqlite("DELETE FROM Package WHERE name = 'xapian-tools';")
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let update = try #require(try tool.run(["index", "update", "--json"]).json() as? [String: Any])
        #expect(update["deleted"] as? Int == 1)
        #expect(update["rebuilt"] as? Bool == false)

        let gone = try #require(try tool.run(["search", "xapian", "--json"]).json() as? [String: Any])
        #expect((gone["hits"] as? [[String: Any]])?.contains { $0["key"] as? String == "xapian-tools" } == false)

        // The foreign delete is history without an author, with its tombstone.
        let history = try #require(try tool.run(["history", "list", "--author", "-", "--json"]).json() as? [[String: Any]])
        #expect(history.count == 1)
        #expect(history.first?["author"] is NSNull)
        let change = (history.first?["changes"] as? [[String: Any]])?.first
        #expect((change?["tombstone"] as? [String: Any])?["name"] as? String == "xapian-tools")
    }

    @Test func humanOutputIsReadableWhenPiped() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        let imported = try tool.run(["import", "packages.jsonl", "--entity", "Package"])
        #expect(imported.stdout.contains("5 inserted"))
        #expect(imported.stderr.isEmpty, "no progress bar when stderr is not a terminal")
        #expect(try tool.run(["index", "update"]).stdout.contains("Rebuilt"))
        let search = try tool.run(["search", "database", "--facet", "section", "--sort=-size"])
        #expect(search.status == 0, "\(search.stderr)")
        let order = ["xapian-tools", "sqlite3", "postgresql"].compactMap { search.stdout.range(of: $0)?.lowerBound }
        #expect(order.count == 3 && order == order.sorted(), "sorted by size, descending: 120, 80, 40\n\(search.stdout)")
        #expect(search.stdout.contains("section: database (2)"))
        #expect(!search.stdout.contains("\u{1B}["), "no escape sequences when piped")
        let status = try tool.run(["index", "status"])
        #expect(status.stdout.contains("Documents"))
        #expect(status.stdout.contains("spotlite.indexer"))
        let misspelled = try tool.run(["search", "databse"])
        #expect(misspelled.stdout.contains("showing results for database"), "\(misspelled.stdout)")
    }

    @Test func watchPicksUpForeignWriteAndStopsOnSIGTERM() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        let watch = try tool.start(["index", "watch", "--json"])
        // Wait for the catch-up rebuild before writing.
        #expect(eventually(timeout: 30) { (try? tool.run(["index", "status", "--json"]).json() as? [String: Any])?["documents"] as? Int == 5 })
        let insert = try tool.sqlite("INSERT INTO Package(name, summary, section) VALUES ('zstd', 'fast lossless compression algorithm', 'utils');")
        #expect(insert.status == 0)
        let indexed = eventually(timeout: 30) {
            let result = try? tool.run(["search", "compression", "--json"]).json() as? [String: Any]
            return (result?["hits"] as? [[String: Any]])?.contains { $0["key"] as? String == "zstd" } == true
        }
        #expect(indexed, "the watcher indexed a write of the sqlite3 shell")
        watch.signal(SIGTERM)
        let output = watch.finish()
        #expect(output.status == 0, "exit 0 after SIGTERM; stderr: \(output.stderr)")
        let lines = try output.jsonLines()
        #expect(!lines.isEmpty, "one JSON line per applied batch")
        #expect(lines.allSatisfy { ($0 as? [String: Any])?["token"] != nil })
        // Each line is that batch's own share: the foreign insert is one document, indexed in measurable time.
        let objects = lines.compactMap { $0 as? [String: Any] }
        #expect(objects.contains { $0["indexed"] as? Int == 1 && $0["rebuilt"] as? Bool == false && $0["transactions"] as? Int == 1 },
                "\(objects)")
        #expect(objects.allSatisfy { ($0["seconds"] as? Double ?? 0) > 0 }, "seconds is measured: \(objects)")
    }

    @Test func demoRunsWithTheSampleCatalog() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let demo = try tool.run(["demo", "--sample", "--directory", "Index/demo"])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("Using the built-in sample catalog"))
        #expect(demo.stdout.contains("Recorded without an author"))
        #expect(demo.stdout.contains("Rebuilt"))
        #expect(demo.stdout.contains("spotlite.indexer"))
        let status = try tool.run(["index", "status", "--config", "Index/demo/spotlite.toml", "--json"])
        let object = try #require(try status.json() as? [String: Any])
        #expect(object["pending_transactions"] as? Int == 0)
        #expect((object["documents"] as? Int ?? 0) > 30)
    }
}

@Suite("Index lifecycle and progress through the spotlite binary", .serialized, .blockingWork)
struct CommandLifecycleTests {
    @Test func deleteRemovesIndexAndPositionThenUpdateRebuilds() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let deleted = try tool.run(["index", "delete"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index/search/XAPIANDB")))
        let status = try #require(try tool.run(["index", "status", "--json"]).json() as? [String: Any])
        #expect(status["documents"] as? Int == 0)
        #expect((status["checkpoints"] as? [[String: Any]])?.contains { $0["author"] as? String == "spotlite.indexer" } == false)
        let search = try tool.run(["search", "xapian"])
        #expect(search.status != 0)
        #expect(search.stderr.contains("no index"), "\(search.stderr)")
        let update = try #require(try tool.run(["index", "update", "--json"]).json() as? [String: Any])
        #expect(update["rebuilt"] as? Bool == true)
        #expect(update["reason"] as? String == "there is no index yet")
    }

    @Test func progressFlagShowsBarsOnStderrOnly() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let many = (0..<3000).map { #"{"name": "pkg\#($0)", "summary": "package number \#($0)"}"# }.joined(separator: "\n") + "\n"
        try tool.write(many, to: "many.jsonl")
        let imported = try tool.run(["import", "many.jsonl", "--entity", "Package", "--progress", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("Importing"), "\(imported.stderr)")
        #expect((try imported.json() as? [String: Any])?["inserted"] as? Int == 3000, "stdout stays one JSON document")
        let update = try tool.run(["index", "update", "--progress", "--json"])
        #expect(update.stderr.contains("3,000/3,000 records"), "\(update.stderr)")
        #expect((try update.json() as? [String: Any])?["indexed"] as? Int == 3000)
    }
}

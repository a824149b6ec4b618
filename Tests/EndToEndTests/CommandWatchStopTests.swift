import Foundation
import SpotliteTestSupport
import Testing

/// `index watch` stops at the next batch boundary on SIGINT, not after its whole backlog: what it committed is
/// exact, and the next update applies the rest.
@Suite("index watch stops promptly", .serialized, .blockingWork)
struct CommandWatchStopTests {
    @Test("SIGINT during a large backlog stops after the batch in progress")
    func sigintDuringBacklog() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        // One transaction of 20,000 rows from the sqlite3 shell: 200 batches of 100 for the watcher.
        let inserted = try tool.sqlite("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO Package (name, summary) SELECT 'bulk-' || i, 'bulk package number ' || i FROM n;
            """)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let watch = try tool.start(["index", "watch", "--json"])
        // The first applied batch prints its line; stop right after it.
        let first = watch.stdout.fileHandleForReading.availableData
        #expect(!first.isEmpty, "the watcher applied a batch")
        watch.signal(SIGINT)
        let output = watch.finish()
        #expect(output.status == 0, "\(output.stderr)")
        let status = try tool.run(["index", "status", "--json"])
        let object = try #require(try status.json() as? [String: Any])
        let documents = try #require(object["documents"] as? Int)
        #expect(documents < 20_005, "stopped before the end of the backlog (\(documents) documents)")
        // Nothing lost: the next update applies the rest.
        let update = try tool.run(["index", "update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let after = try #require(try tool.run(["index", "status", "--json"]).json() as? [String: Any])
        #expect(after["documents"] as? Int == 20_005)
        #expect(after["pending_transactions"] as? Int == 0)
    }
}

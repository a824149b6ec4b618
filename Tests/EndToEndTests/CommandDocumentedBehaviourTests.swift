import Foundation
import SpotliteTestSupport
import Testing

/// What docs/cli.md promises and a first run showed the binary did otherwise: each test ran red before its fix.
@Suite("What the command reference promises", .serialized, .blockingWork)
struct CommandDocumentedBehaviourTests {
    /// A store with the test packages imported, indexed, and one foreign change pending.
    private func indexedTool() throws -> CommandLineTool {
        let tool = try CommandLineTool()
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        return tool
    }

    /// `history mark` used to accept the indexer's author and say cleanup did not wait for it: the next clean then
    /// deleted history the index had not read, and the update after it had to rebuild.
    @Test func historyMarkLeavesTheIndexersPositionToTheIndex() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        #expect(try tool.sqlite("UPDATE Package SET summary = 'changed' WHERE name = 'gimp';").status == 0)
        try tool.run(["history", "mark", "app"])
        for arguments in [["history", "mark", "spotlite.indexer"], ["history", "mark", "spotlite.indexer", "--remove"]] {
            let mark = try tool.run(arguments)
            expectOneLineError(mark, mentioning: ["spotlite.indexer", "index update", "index delete"])
            #expect(mark.status == 3)
        }
        let clean = try tool.run(["history", "clean", "--json"])
        let cleaned = try #require(try clean.json() as? [String: Any])
        #expect(cleaned["kept_transactions"] as? Int == 1, "the pending change stays for the index: \(clean.stdout)")
        let update = try #require(try tool.run(["index", "update", "--json"]).json() as? [String: Any])
        #expect(update["rebuilt"] as? Bool == false && update["indexed"] as? Int == 1, "\(update)")
    }

    /// The note after `history mark` says whether cleanup waits for the author, as `history clean` then does.
    @Test func historyMarkSaysWhetherCleanupWaits() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        let required = try tool.run(["history", "mark", "app"])
        #expect(required.status == 0 && !required.stdout.contains("does not wait"), "\(required.stdout)")
        let batch = try tool.run(["history", "mark", "importer"])
        #expect(batch.stdout.contains("batch_authors: cleanup does not wait"), "\(batch.stdout)")
        let unlisted = try tool.run(["history", "mark", "script"])
        #expect(unlisted.stdout.contains("not among the configuration's [history] authors"), "\(unlisted.stdout)")
    }

    /// A query beside `--queries FILE` used to be dropped without a word.
    @Test func queryBesideQueriesFileIsAUsageError() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        try tool.write("xapian\n", to: "queries.txt")
        let output = try tool.run(["search", "gimp", "--queries", "queries.txt", "--json"])
        expectOneLineError(output, mentioning: ["--queries", "gimp"])
        #expect(output.status == 2 && output.stdout.isEmpty)
    }

    /// The missing store's line names where its path came from: `--store`, not the configuration file.
    @Test func missingStoreNamesTheOptionItCameFrom() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let output = try tool.run(["history", "stats", "--store", "elsewhere.sqlite"])
        expectOneLineError(output, mentioning: ["elsewhere.sqlite", "(from --store)"])
        #expect(!output.stderr.contains("config/spotlite.toml"))
    }

    /// An import that changed nothing recorded no transaction: its JSON token is null, not a token 0 the store
    /// never issued, and the human summary says nothing changed.
    @Test func importThatChangesNothingHasNoToken() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        let line = Data((#"{"name": "zzz-absent", "_delete": true}"# + "\n").utf8)
        let json = try tool.run(["import", "-", "--entity", "Package", "--json"], stdin: line)
        let summary = try #require(try json.json() as? [String: Any])
        #expect(summary["token"] is NSNull, "\(json.stdout)")
        #expect(summary["transactions"] as? Int == 0)
        let human = try tool.run(["import", "-", "--entity", "Package"], stdin: line)
        #expect(human.status == 0 && human.stdout.contains("changed nothing") && !human.stdout.contains("token none"),
                "\(human.stdout)")
    }

    /// A page past the last hit used to print only "About 2 results in …", as if the hits had been left out.
    @Test func aPagePastTheLastHitSaysSo() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        let output = try tool.run(["search", "database", "--offset", "50"])
        #expect(output.status == 0, "the search matched: \(output.stderr)")
        #expect(output.stdout.contains("(none shown: --offset 50 is past the last)"), "\(output.stdout)")
    }

    /// Usage errors point at the help of the command given, with one piece of punctuation before the advice.
    @Test func usageErrorsPointAtTheCommandsHelp() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        // A message that ends a sentence is followed by another ("…'never'.; see" and "…'--entity'?; see" before).
        let color = try tool.run(["search", "x", "--color", "bogus"])
        expectOneLineError(color, mentioning: ["'never'. See `spotlite help search`."])
        let option = try tool.run(["import", "packages.jsonl", "--entiy", "Package"])
        expectOneLineError(option, mentioning: ["Did you mean '--entity'? See `spotlite help import`."])
        let limit = try tool.run(["history", "list", "--limit", "0"])
        expectOneLineError(limit, mentioning: ["; see `spotlite help history list`"])
        for output in [color, option, limit] {
            #expect(!output.stderr.contains(".;") && !output.stderr.contains("?;"), "\(output.stderr)")
        }
    }
}

import Foundation
import SpotliteTooling
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// Rebuilding placed shards in place (generation tag and sweep) while searches keep answering, with the real
/// `spotlite` command killed (SIGKILL) in the middle.
@Suite("Remote shards: rebuild in place", .serialized, .blockingWork)
struct RemoteShardRebuildTests {
    @Test("kill -9 during a rebuild over 3 loopback shards: searches answer throughout, the next update is exact")
    func killedRebuild() async throws {
        let spotlite = try ProgramRun.spotliteExecutable()
        let shards = try RemoteShardSandbox()
        let packages = ShardedIndexTests.generatedPackages(count: 1500)
        try shards.write(packages)
        try await shards.sandbox.makeIndexer().update()
        let generation = try #require(shards.map).generation
        // Rows deleted before the rebuild: its sweep (or, after the kill, the update) must remove them.
        try shards.delete(packages[0..<50].map(\.name))
        try await shards.local.makeIndexer().update()

        let searcher = try shards.sandbox.makeSearcher()
        let rebuild = try RunningChild(spotlite, ["index", "rebuild", "--progress", "--config", shards.sandbox.configurationPath])
        var searches = 0
        // Search while it runs, until it has indexed its first thousand rows: searching again and again is the test,
        // and the other process's progress reaches this one only through its output file.
        let started = try await eventually(timeout: .seconds(120)) {
            let results = try searcher.search(SearchRequest("search engine", limit: 10, correctsSpelling: false))
            #expect(!results.hits.isEmpty && !results.isPartial)
            let count = try searcher.documentCount()
            #expect((packages.count - 50)...packages.count ~= count, "every document once, old or new: \(count)")
            searches += 1
            return rebuild.standardError.contains("1000") || rebuild.standardError.contains("1,000") || !rebuild.process.isRunning
        }
        #expect(started, "the rebuild reported progress: \(rebuild.standardError)")
        rebuild.signal(SIGKILL)
        _ = await rebuild.waitForExit()
        #expect(searches > 0)

        // Killed: the map (and so the live generation tag) is the old one, and searches still answer.
        if rebuild.process.terminationReason == .uncaughtSignal {
            #expect(try #require(shards.map).generation == generation)
        }
        let during = try searcher.search(SearchRequest("search engine", limit: 10, correctsSpelling: false))
        #expect(!during.hits.isEmpty)

        let update = try ProgramRun.run(spotlite, ["index", "update", "--config", shards.sandbox.configurationPath])
        #expect(update.status == 0, "\(update.standardError)")
        try shards.expectSameAnswers()

        let again = try ProgramRun.run(spotlite, ["index", "rebuild", "--config", shards.sandbox.configurationPath])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try #require(shards.map).generation != generation)
        try shards.expectSameAnswers()
    }

    @Test("a rebuild over a server holding the index rewrites each document under its id, keeps one of duplicates, sweeps deleted rows")
    func rebuildOverTheExistingIndex() async throws {
        let shards = try RemoteShardSandbox(shards: 1)
        let server = shards.servers[0]
        let packages = ShardedIndexTests.generatedPackages(count: 400)
        try shards.write(packages)
        try await shards.sandbox.makeIndexer().update()
        func listing() throws -> [String: [UInt32]] {
            let writer = try XapianWritableDatabase(remote: XapianRemote(host: "127.0.0.1", port: server.port))
            defer { try? writer.close() }
            return try writer.documentIDs(prefix: DocumentIdentity.termPrefix)
        }
        let before = try listing()
        #expect(before.count == packages.count && before.values.allSatisfy { $0.count == 1 })

        // Behind the index's back, a second document with one record's id term; in the store, rows deleted and changed.
        let duplicated = DocumentIdentity.term(entity: "Package", keyText: packages[100].name)
        #expect(before[duplicated] != nil, "the id terms are the indexer's: \(before.keys.first ?? "none")")
        do {
            let writer = try XapianWritableDatabase(remote: XapianRemote(host: "127.0.0.1", port: server.port))
            try writer.addDocument(uniqueTerm: duplicated, document: XapianDocument())
            try writer.commit()
            try writer.close()
        }
        try shards.delete(packages[0..<20].map(\.name))
        var changed = Array(packages[20..<40])
        for index in changed.indices { changed[index].summary = "rewritten summary quasar \(index)" }
        try shards.write(changed)

        let summary = try await shards.sandbox.makeIndexer().rebuild()
        #expect(summary.rebuilt && summary.indexed == packages.count - 20)
        try await shards.local.makeIndexer().update()
        let after = try listing()
        #expect(after.count == packages.count - 20, "the deleted rows were swept")
        #expect(after[duplicated]?.count == 1, "one document is left of the duplicates")
        let moved = after.filter { $0.key != duplicated && $0.value != before[$0.key] }
        #expect(moved.isEmpty, "documents rewritten under their own ids: \(moved.prefix(3))")
        #expect(try shards.sandbox.makeSearcher().search(SearchRequest("quasar", limit: 50, correctsSpelling: false)).total == 20)
        try shards.expectSameAnswers()
    }

    @Test("`spotlite search` with a shard server down fails naming HOST:PORT, or answers partially with --allow-partial")
    func commandLinePartialSearch() async throws {
        let spotlite = try ProgramRun.spotliteExecutable()
        let shards = try RemoteShardSandbox()
        try shards.write(ShardedIndexTests.generatedPackages(count: 200))
        let built = try ProgramRun.run(spotlite, ["index", "update", "--config", shards.sandbox.configurationPath])
        #expect(built.status == 0, "\(built.standardError)")
        let victim = shards.servers[1]
        victim.stop()

        let failed = try ProgramRun.run(spotlite, ["search", "search", "engine", "--config", shards.sandbox.configurationPath])
        #expect(failed.status != 0)
        let line = failed.standardError.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("spotlite: shard \(victim.hostAndPort) is unavailable"), "\(line)")
        #expect(!line.contains("\n"), "one line: \(line)")

        let partial = try ProgramRun.run(spotlite, ["search", "search", "engine", "--json", "--allow-partial",
                                                     "--config", shards.sandbox.configurationPath])
        #expect(partial.status == 0, "\(partial.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(partial.standardOutput.utf8)) as? [String: Any])
        #expect(object["partial"] as? Bool == true)
        #expect(object["unavailable_shards"] as? [String] == [victim.hostAndPort])
        #expect(partial.standardError.hasPrefix("spotlite: warning: partial results: shard \(victim.hostAndPort)"),
                "\(partial.standardError)")

        let update = try ProgramRun.run(spotlite, ["index", "update", "--config", shards.sandbox.configurationPath])
        #expect(update.status != 0)
        #expect(update.standardError.contains(victim.hostAndPort) && update.standardError.hasPrefix("spotlite: "),
                "\(update.standardError)")
    }
}

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

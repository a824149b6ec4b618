import Foundation
import GRDB
import SpotliteTooling
import SpotliteTestSupport
import SpotliteJSON
import Testing
@testable import SpotliteSearch
import Spotlite

/// Three `xapian-tcpsrv --writable` servers on 127.0.0.1 and an index whose shards are placed on them.
final class RemoteShardSandbox {
    let servers: [XapianTcpServer]
    let sandbox: IndexerSandbox
    /// A local index of the same store, the reference every answer is compared with.
    let local: IndexerSandbox
    private let serverDirectory: XapianTestDirectory

    /// `remote`: more top-level TOML after the `shards` list, e.g. a `[remote]` table.
    init(shards: Int = 3, remote: String = "") throws {
        serverDirectory = try XapianTestDirectory()
        var servers: [XapianTcpServer] = []
        for shard in 0..<shards {
            servers.append(try XapianTcpServer(databasePath: serverDirectory.database("shard-\(shard)"), lifetime: .seconds(300)))
        }
        self.servers = servers
        let list = servers.map { "\"\($0.location)\"" }.joined(separator: ", ")
        sandbox = try IndexerSandbox(top: "shards = [\(list)]\n\(remote)")
        local = try IndexerSandbox(top: "shards = 1")
    }

    deinit {
        for server in servers { server.stop() }
    }

    /// Writes `packages` to both stores.
    func write(_ packages: [SamplePackage]) throws {
        for target in [sandbox, local] {
            for start in stride(from: 0, to: packages.count, by: 100) {
                try target.write(Array(packages[start..<min(start + 100, packages.count)]))
            }
        }
    }

    func delete(_ names: [String]) throws {
        for target in [sandbox, local] { try target.delete(names) }
    }

    /// Every query of the sharded-index suite answers the same over the servers as from the local index.
    func expectSameAnswers(_ searcher: IndexSearcher? = nil) throws {
        let remote = try searcher ?? sandbox.makeSearcher(), reference = try local.makeSearcher()
        #expect(try remote.documentCount() == reference.documentCount())
        for query in ShardedIndexTests.queries {
            // Every match: hits of equal weight are ordered by document id, which differs between layouts, so a page
            // cut inside a run of equal weights could hold different documents.
            let request = SearchRequest(query, limit: 5000, facets: ["section"], correctsSpelling: false)
            let expected = try reference.search(request), got = try remote.search(request)
            #expect(got.total == expected.total, "total of \(query)")
            #expect(got.facets == expected.facets, "facets of \(query)")
            #expect(!got.isPartial)
            try ShardedIndexTests.expectSameRanking(got.hits, expected.hits, query: query)
        }
    }

    var map: ShardMap? { ShardMap.read(in: IndexDirectory(path: sandbox.indexPath)) }
}

@Suite("Remote shards over loopback", .serialized, .blockingWork)
struct RemoteShardTests {
    @Test("3 shards on xapian-tcpsrv answer as one local index: same hits, order, weights and facets, after updates too")
    func remoteEqualsLocal() async throws {
        let shards = try RemoteShardSandbox()
        var packages = ShardedIndexTests.generatedPackages(count: 300)
        try shards.write(packages)
        let first = try await shards.sandbox.makeIndexer().update()
        try await shards.local.makeIndexer().update()
        #expect(first.rebuilt && first.reason == "there is no index yet")
        let map = try #require(shards.map)
        #expect(map.shards.map(\.location) == shards.servers.map(\.location))
        #expect(Set(map.shards.map(\.uuid)).count == 3 && !map.shards.contains { $0.uuid.isEmpty })
        #expect(!FileManager.default.fileExists(atPath: shards.sandbox.indexPath + "/XAPIANDB"),
                "the index directory holds the lock and the map, no local generation")
        try shards.expectSameAnswers()

        // Updates through history: changed rows, new ones, deleted ones.
        for index in stride(from: 0, to: 60, by: 3) { packages[index].summary = "renamed search tool \(index)" }
        try shards.write(Array(packages[0..<60]) + ShardedIndexTests.generatedPackages(count: 340).suffix(40))
        try shards.delete((100..<120).map { packages[$0].name })
        let update = try await shards.sandbox.makeIndexer().update()
        try await shards.local.makeIndexer().update()
        #expect(!update.rebuilt)
        #expect(try shards.sandbox.makeIndexer().indexedToken() == (try shards.sandbox.store.currentToken()))
        try shards.expectSameAnswers()

        // A forced rebuild in place (generation tag and sweep) keeps the same answers and records a new tag.
        try shards.delete((120..<130).map { packages[$0].name })
        try await shards.local.makeIndexer().update()
        let rebuilt = try await shards.sandbox.makeIndexer().rebuild()
        #expect(rebuilt.rebuilt)
        #expect(try #require(shards.map).generation != map.generation)
        #expect(try #require(shards.map).shards == map.shards, "same databases, same UUIDs")
        try shards.expectSameAnswers()
    }

    @Test("a shard server killed between two shards' commits fails the update naming HOST:PORT; the next update catches up")
    func killedShardServer() async throws {
        let shards = try RemoteShardSandbox()
        try shards.write(ShardedIndexTests.generatedPackages(count: 150))
        try await shards.sandbox.makeIndexer().update()
        let before = try shards.sandbox.makeIndexer().indexedToken()

        try shards.write(ShardedIndexTests.generatedPackages(count: 260).suffix(110))
        let victim = shards.servers[2]
        let indexer = try shards.sandbox.makeIndexer()
        // Killed right after another shard committed this update's batch: that shard is ahead, the victim is not.
        await indexer.setShardCommitHook { shard, _ in if shard == 0 { victim.stop() } }
        let error = await #expect(throws: SearchError.self) { try await indexer.update() }
        guard case let .shardUnavailable(shard, _)? = error else {
            Issue.record("expected shardUnavailable, got \(String(describing: error))")
            return
        }
        #expect(shard == victim.hostAndPort)
        #expect(error?.description.contains(victim.hostAndPort) == true)
        #expect(error?.description.contains("\n") == false)
        await indexer.setShardCommitHook(nil)
        let position = try #require(try shards.sandbox.store.positions()
            .first { $0.author == shards.sandbox.configuration.indexer.author }?.token)
        #expect(position >= (before ?? HistoryToken(rawValue: 0)))
        #expect(position < (try #require(try shards.sandbox.store.currentToken())), "the update did not complete")

        // Searches fail clearly, or answer from the two others when partial results are allowed.
        let searchError = #expect(throws: SearchError.self) { try shards.sandbox.makeSearcher().search(SearchRequest("search")) }
        #expect(searchError?.description.contains(victim.hostAndPort) == true, "\(String(describing: searchError))")
        let partial = try IndexSearcher(configuration: shards.sandbox.configuration, allowsPartialResults: true)
        let answer = try partial.search(SearchRequest("search engine", limit: 10))
        #expect(answer.isPartial && answer.unavailableShards == [victim.hostAndPort])
        #expect(!answer.hits.isEmpty)
        #expect((answer.jsonObject["partial"] as? Bool) == true)

        try victim.start()
        // The store position never passed what the killed shard had committed.
        let victimToken = try XapianDatabase(remote: XapianRemote(host: "127.0.0.1", port: victim.port))
            .metadata(forKey: IndexMetadata.tokenKey).flatMap { Int64($0) } ?? 0
        #expect(position.rawValue <= victimToken)
        try await shards.local.makeIndexer().update()
        let caughtUp = try await shards.sandbox.makeIndexer().update()
        #expect(!caughtUp.rebuilt)
        #expect(try shards.sandbox.makeIndexer().indexedToken() == (try shards.sandbox.store.currentToken()))
        try shards.expectSameAnswers()
        let again = try partial.search(SearchRequest("search engine", limit: 10))
        #expect(!again.isPartial, "the partial searcher uses the shard again once it is back")
    }

    @Test("a shard answering with another database's UUID is refused until a rebuild records it")
    func replacedShardDatabase() async throws {
        let shards = try RemoteShardSandbox()
        try shards.write(ShardedIndexTests.generatedPackages(count: 120))
        try await shards.sandbox.makeIndexer().update()
        try await shards.local.makeIndexer().update()
        let victim = shards.servers[1]
        victim.stop()
        try FileManager.default.removeItem(atPath: victim.databasePath)
        try victim.start()  // serves a new, empty database at the same address

        let error = await #expect(throws: SearchError.self) { try await shards.sandbox.makeIndexer().update() }
        guard case let .shardIdentityChanged(shard, expected, found)? = error else {
            Issue.record("expected shardIdentityChanged, got \(String(describing: error))")
            return
        }
        #expect(shard == victim.hostAndPort && expected != found)
        #expect(throws: SearchError.self) { try shards.sandbox.makeSearcher().search(SearchRequest("search")) }

        try await shards.sandbox.makeIndexer().rebuild()
        #expect(try #require(shards.map).shards[1].uuid == found)
        try shards.expectSameAnswers()
    }

    @Test("an unreachable shard on the first update is a one-line error naming HOST:PORT, and nothing is recorded")
    func unreachableOnFirstUse() async throws {
        let shards = try RemoteShardSandbox()
        try shards.write(ShardedIndexTests.generatedPackages(count: 20))
        shards.servers[0].stop()
        let error = await #expect(throws: SearchError.self) { try await shards.sandbox.makeIndexer().update() }
        #expect(error?.description.contains(shards.servers[0].hostAndPort) == true, "\(String(describing: error))")
        #expect(shards.map == nil)
        #expect(throws: SearchError.indexMissing(path: shards.sandbox.indexPath)) {
            try shards.sandbox.makeSearcher().search(SearchRequest("search"))
        }
    }

    @Test("[remote] timeouts reach every connection: a server that stopped answering fails searches and updates naming it")
    func configuredTimeouts() async throws {
        let shards = try RemoteShardSandbox(remote: "[remote]\nconnect_timeout = \"1s\"\ntimeout = \"1500ms\"")
        let limits = RemoteConfiguration(connectTimeout: .seconds(1), timeout: .milliseconds(1500))
        #expect(shards.sandbox.configuration.remote == limits)
        try shards.write(ShardedIndexTests.generatedPackages(count: 60))
        try await shards.sandbox.makeIndexer().update()
        // The layouts that searches, updates and the status open carry the configured limits.
        let directory = IndexDirectory(path: shards.sandbox.indexPath, remote: shards.sandbox.configuration.remote)
        #expect(try #require(directory.liveLayout()).remote == limits)

        let victim = shards.servers[1]
        victim.signal(SIGSTOP)  // accepts connections in the kernel, answers nothing, as a hung host would
        defer { victim.signal(SIGCONT) }
        let searchError = #expect(throws: SearchError.self) {
            try shards.sandbox.makeSearcher().search(SearchRequest("search", correctsSpelling: false))
        }
        guard case let .shardUnavailable(shard, reason)? = searchError else {
            Issue.record("expected shardUnavailable, got \(String(describing: searchError))")
            return
        }
        #expect(shard == victim.hostAndPort)
        #expect(reason.contains("Timeout"), "\(reason)")
        try shards.write(ShardedIndexTests.generatedPackages(count: 70).suffix(10))
        let updateError = await #expect(throws: SearchError.self) { try await shards.sandbox.makeIndexer().update() }
        guard case .shardUnavailable(victim.hostAndPort, _)? = updateError else {
            Issue.record("expected the shard unavailable, got \(String(describing: updateError))")
            return
        }

        victim.signal(SIGCONT)
        try await shards.local.makeIndexer().update()
        try await shards.sandbox.makeIndexer().update()
        try shards.expectSameAnswers()
    }

    @Test("shards at local paths are placed like remote ones: written in place, searched as one, rebuilt by tag and sweep")
    func localPathLocations() async throws {
        let places = try XapianTestDirectory()
        let sandbox = try IndexerSandbox(top: "shards = [\"\(places.database("a"))\", \"\(places.database("b"))\"]")
        let reference = try IndexerSandbox(top: "shards = 1")
        let packages = ShardedIndexTests.generatedPackages(count: 200)
        for target in [sandbox, reference] {
            try target.write(packages)
            try await target.makeIndexer().update()
        }
        let map = try #require(ShardMap.read(in: IndexDirectory(path: sandbox.indexPath)))
        #expect(map.shards.map(\.location) == [places.database("a"), places.database("b")])
        #expect(try XapianDatabase(path: places.database("a")).documentCount() + XapianDatabase(path: places.database("b")).documentCount() == 200)
        for target in [sandbox, reference] {
            try target.delete(packages[0..<20].map(\.name))
        }
        try await reference.makeIndexer().update()
        try await sandbox.makeIndexer().rebuild()
        for query in ShardedIndexTests.queries {
            let request = SearchRequest(query, limit: 500, correctsSpelling: false)
            let expected = try reference.makeSearcher().search(request), got = try sandbox.makeSearcher().search(request)
            #expect(got.total == expected.total, "total of \(query)")
            try ShardedIndexTests.expectSameRanking(got.hits, expected.hits, query: query)
        }
        #expect(try sandbox.makeSearcher().documentCount() == 180, "the sweep removed the deleted rows")
    }
}

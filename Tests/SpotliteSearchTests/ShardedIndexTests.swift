import Synchronization
import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// The index as N Xapian databases: documents routed by a stable hash, searched as one database, each shard
/// committing its own token.
@Suite("Sharded index", .blockingWork)
struct ShardedIndexTests {
    /// Records with a small shared vocabulary, so that queries match many documents with varied weights, from a
    /// fixed seed (every run writes the same records).
    static func generatedPackages(count: Int) -> [SamplePackage] {
        let words = ["search", "engine", "text", "editor", "library", "tool", "network", "file", "system", "python",
                     "data", "graphics", "server", "client", "fast", "small", "terminal", "database", "index", "query",
                     "compress", "archive", "image", "audio", "video", "font", "shell", "kernel", "driver", "game"]
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func phrase(_ length: Int) -> String { (0..<length).map { _ in words[next(words.count)] }.joined(separator: " ") }
        let sections = ["utils", "editors", "net", "libs", "games"]
        return (0..<count).map { number in
            SamplePackage(name: "pkg-\(number)-\(words[next(words.count)])", summary: phrase(2 + next(5)),
                          description: phrase(5 + next(30)), section: sections[next(sections.count)],
                          tags: "role::\(words[next(words.count)])", size: 100 + next(10_000))
        }
    }

    static let queries = ["search engine", "text editor", "fast", "library for python", "network server client",
                          "\"text editor\"", "name:pkg", "database AND index", "graphics -game",
                          "compress archive image", "section:net shell", "kernel driver audio video font"]

    @Test("an index of 3 shards answers exactly as one database: same hits, same order, same weights, same facets")
    func shardedEqualsSingle() async throws {
        let single = try IndexerSandbox(top: "shards = 1")
        let sharded = try IndexerSandbox(top: "shards = 3")
        let packages = Self.generatedPackages(count: 400)
        for sandbox in [single, sharded] {
            for start in stride(from: 0, to: packages.count, by: 100) {
                try sandbox.write(Array(packages[start..<min(start + 100, packages.count)]))
            }
            try await sandbox.makeIndexer().update()
        }
        let layout = try #require(try sharded.liveLayout)
        #expect(layout.count == 3)
        #expect(try single.liveLayout?.count == 1)
        let one = try single.makeSearcher(), three = try sharded.makeSearcher()
        #expect(try one.documentCount() == packages.count && three.documentCount() == packages.count)
        for query in Self.queries {
            let request = SearchRequest(query, limit: 400, facets: ["section"], correctsSpelling: false)
            let expected = try one.search(request), got = try three.search(request)
            #expect(got.total == expected.total, "total of \(query)")
            #expect(got.facets == expected.facets, "facets of \(query)")
            try Self.expectSameRanking(got.hits, expected.hits, query: query)
        }
        // Xapian 1.4 expands a wildcard in each database on its own, so the expanded terms are weighted with each
        // shard's statistics: the same documents match, ranked a little differently.
        for query in ["file* system", "comp*"] {
            let request = SearchRequest(query, limit: 400, correctsSpelling: false)
            let expected = try one.search(request), got = try three.search(request)
            #expect(got.total == expected.total, "total of \(query)")
            #expect(Set(got.hits.map(\.key.description)) == Set(expected.hits.map(\.key.description)), "hits of \(query)")
        }
        // Spelling data is spread over the shards; corrections read them as one.
        let corrected = try three.search(SearchRequest("serch engnie", limit: 5))
        #expect(corrected.corrected == (try one.search(SearchRequest("serch engnie", limit: 5))).corrected)
        #expect(corrected.corrected == "search engine")
    }

    /// Same hits in the same order, weights equal within floating-point tolerance. Hits of equal weight are ordered
    /// by document id, which differs between layouts, so within a run of equal weights only the keys must agree.
    static func expectSameRanking(_ got: [SearchHit], _ expected: [SearchHit], query: String) throws {
        #expect(got.count == expected.count, "hit count of \(query)")
        guard got.count == expected.count else { return }
        var start = 0
        while start < expected.count {
            var end = start + 1
            while end < expected.count, abs(expected[end].score - expected[start].score) < 1e-9 { end += 1 }
            for index in start..<end {
                #expect(abs(got[index].score - expected[index].score) <= 1e-9 * max(1, abs(expected[index].score)),
                        "weight of hit \(index + 1) of \(query): \(got[index].score) vs \(expected[index].score)")
            }
            #expect(Set(got[start..<end].map(\.key.description)) == Set(expected[start..<end].map(\.key.description)),
                    "hits \(start + 1)-\(end) of \(query)")
            start = end
        }
    }

    @Test("each document is in the shard its id term hashes to, and only there, after updates and deletes too")
    func documentsLiveInTheirShard() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 4")
        let packages = Self.generatedPackages(count: 120)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        var changed = packages[0..<30].map { package in
            var copy = package
            copy.summary += " updated"
            return copy
        }
        changed.append(SamplePackage(name: "newcomer", summary: "a new package"))
        try sandbox.write(changed)
        try sandbox.delete(packages[30..<40].map(\.name))
        try await indexer.update()
        let layout = try #require(try sandbox.liveLayout)
        let shards = try layout.shardPaths.map { try XapianDatabase(path: $0) }
        var total = 0
        for (number, shard) in shards.enumerated() { total += try shard.documentCount(); _ = number }
        #expect(total == packages.count - 10 + 1)
        for name in (packages.map(\.name) + ["newcomer"]) {
            let term = DocumentIdentity.term(entity: "Package", keyText: name)
            let home = ShardLayout.shard(of: term, among: 4)
            let deleted = packages[30..<40].contains { $0.name == name }
            for (number, shard) in shards.enumerated() {
                let data = try shard.documentData(uniqueTerm: term)
                #expect((data != nil) == (number == home && !deleted), "\(name) in shard \(number) (home \(home))")
            }
        }
        #expect(try sandbox.keys("updated").count == 30)
    }

    @Test("every shard records the token with its documents; the index's token is the smallest")
    func tokenPerShard() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 3")
        try sandbox.write(Array(Self.generatedPackages(count: 60)))
        try await sandbox.makeIndexer().update()
        let newest = try sandbox.store.currentToken()
        let layout = try #require(try sandbox.liveLayout)
        #expect(try layout.metadata().map(\.token) == [newest, newest, newest])
        #expect(try layout.metadata().map(\.shard) == ["0/3", "1/3", "2/3"])
        #expect(try sandbox.indexToken() == newest)
        #expect(try IndexStatus(store: sandbox.store, configuration: sandbox.configuration).token == newest)
    }

    @Test("a shard left behind by a crash between shard commits is caught up by replaying from its token")
    func crashBetweenShardCommits() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 3")
        let packages = Self.generatedPackages(count: 90)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let before = try #require(try sandbox.store.currentToken())
        var edited = packages.map { package in
            var copy = package
            copy.summary = "rewritten zanzibar"
            return copy
        }
        edited.removeLast(10)
        try sandbox.write(edited)
        try sandbox.delete(packages.suffix(10).map(\.name))
        let newest = try #require(try sandbox.store.currentToken())

        // What a crash between shard commits leaves: shards 0 and 2 committed the new token with their documents;
        // shard 1 still holds its documents and token of before. Built here by updating a copy of the old shard 1.
        let layout = try #require(try sandbox.liveLayout)
        let saved = sandbox.directory + "/shard-1-before"
        try FileManager.default.copyItem(atPath: layout.shardPath(1), toPath: saved)
        try await indexer.update()
        try FileManager.default.removeItem(atPath: layout.shardPath(1))
        try FileManager.default.moveItem(atPath: saved, toPath: layout.shardPath(1))
        #expect(try layout.metadata().map(\.token) == [newest, before, newest])
        #expect(try sandbox.indexToken() == before, "the index is only as far as its slowest shard")
        #expect(try IndexStatus(store: sandbox.store, configuration: sandbox.configuration).token == before)
        let stale = try sandbox.keys("zanzibar").count
        #expect(stale < edited.count, "shard 1's documents are the old ones")

        let summary = try await sandbox.makeIndexer().update()
        #expect(!summary.rebuilt)
        #expect(summary.token == newest)
        #expect(try layout.metadata().map(\.token) == [newest, newest, newest])
        #expect(Set(try sandbox.keys("zanzibar", limit: 200)) == Set(edited.map(\.name)))
        #expect(try sandbox.makeSearcher().documentCount() == edited.count)
    }

    @Test("a write that keeps failing in one shard: the index token stays where every shard was; the next update finishes")
    func persistentFailureInOneShard() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 3", indexer: "batch_size = 50")
        let packages = Self.generatedPackages(count: 40)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let before = try #require(try sandbox.store.currentToken())
        let victim = packages[7].name
        let saboteur = IndexerFailureTests.WriteSaboteur(keys: [victim], times: .max)
        await indexer.setDocumentWriteHook(saboteur.hook)
        let edited = packages.map { package in
            var copy = package
            copy.summary = "zanzibar"
            return copy
        }
        try sandbox.write(edited)
        let newest = try sandbox.store.currentToken()
        await #expect(throws: SearchError.self) { try await indexer.update() }
        #expect(try sandbox.indexToken() == before, "the failing shard never committed past the last good token")
        #expect(try sandbox.store.position(of: sandbox.configuration.indexer.author)?.token == before)
        #expect(!(try sandbox.keys("zanzibar", limit: 100)).contains(victim))

        saboteur.stop()
        let summary = try await indexer.update()
        #expect(!summary.rebuilt && summary.token == newest)
        #expect(Set(try sandbox.keys("zanzibar", limit: 100)) == Set(packages.map(\.name)))
    }

    @Test("an index written before sharding (one database) is rebuilt by the next update, saying why")
    func singleDatabaseIndexIsUpgraded() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        try sandbox.write(Array(SamplePackage.catalogue))
        // The layout of earlier versions: the generation directory is itself the Xapian database.
        let directory = IndexDirectory(path: sandbox.indexPath)
        try directory.create()
        do {
            let writer = try XapianWritableDatabase(path: directory.generationPath(1), action: .createOrOverwrite)
            let document = try XapianDocument()
            try document.addBooleanTerm("QPackage:old")
            try writer.addDocument(uniqueTerm: "QPackage:old", document: document)
            try writer.setMetadata("2", forKey: IndexMetadata.formatKey)
            try writer.setMetadata(sandbox.store.storeID, forKey: IndexMetadata.storeIDKey)
            try writer.commit()
            try writer.close()
        }
        try directory.makeLive(1)
        let summary = try await sandbox.makeIndexer().update()
        #expect(summary.rebuilt)
        #expect(summary.reason?.contains("one database written by an earlier version") == true, "reason: \(summary.reason ?? "")")
        #expect(try sandbox.liveLayout?.count == 2)
        #expect(try sandbox.makeSearcher().documentCount() == SamplePackage.catalogue.count)
        #expect(directory.generations() == [2], "the old generation is removed")
        let again = try await sandbox.makeIndexer().update()
        #expect(!again.rebuilt)
    }

    @Test("changing the configured shard count rebuilds with that reason; leaving it out keeps the index's count")
    func shardCountChange() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        try sandbox.write(Array(SamplePackage.catalogue))
        try await sandbox.makeIndexer().update()
        let four = try SpotliteConfiguration(tomlString: IndexerSandbox.toml(directory: sandbox.directory, top: "shards = 4",
                                                                      entities: IndexerSandbox.packageEntity,
                                                                      indexer: "batch_size = 100", history: ""),
                                     source: "four shards")
        let summary = try await sandbox.makeIndexer(configuration: four).update()
        #expect(summary.rebuilt)
        #expect(summary.reason == "the configured shard count changed (the index has 2, the configuration asks for 4)")
        #expect(try sandbox.liveLayout?.count == 4)
        let automatic = try SpotliteConfiguration(tomlString: IndexerSandbox.toml(directory: sandbox.directory, top: "",
                                                                           entities: IndexerSandbox.packageEntity,
                                                                           indexer: "batch_size = 100", history: ""),
                                          source: "no shard count")
        let kept = try await sandbox.makeIndexer(configuration: automatic).update()
        #expect(!kept.rebuilt)
        #expect(try sandbox.liveLayout?.count == 4)
        #expect(try sandbox.keys("editor").count >= 2)
    }

    @Test("a backlog with more changes than documents is applied by a rebuild, saying so; an UPDATE of every row incrementally; most rows deleted: a rebuild of the rest")
    func largeBacklogRebuilds() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        let packages = Self.generatedPackages(count: IndexRebuildPolicy.minimumDocuments + 200)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let some = packages.prefix(packages.count / 2).map { package in
            var copy = package
            copy.summary = "zanzibar"
            return copy
        }
        try sandbox.write(Array(some))
        let partial = try await indexer.update()
        #expect(!partial.rebuilt && partial.indexed == some.count)
        let all = packages.map { package in
            var copy = package
            copy.summary = "quetzal"
            return copy
        }
        try sandbox.write(all)
        let every = try await indexer.update()
        #expect(!every.rebuilt && every.indexed == packages.count, "one UPDATE of every row is cheaper to apply")
        // Every row twice (two transactions), then once more: more changes than documents.
        for summary in ["axolotl", "quetzal"] {
            try sandbox.write(packages.map { package in
                var copy = package
                copy.summary = summary
                return copy
            })
        }
        let full = try await indexer.update()
        #expect(full.rebuilt)
        // Counts grouped by threes, as the command line prints every count.
        #expect(packages.count == 1200)
        #expect(full.reason == "2,400 pending inserts and updates outnumber the 1,200 documents: a rebuild is faster than applying them one by one")
        #expect(full.token == (try sandbox.store.currentToken()))
        #expect(try sandbox.keys("quetzal", limit: 2000).count == packages.count)
        // A few deletes are applied; deleting most of the rows rebuilds what is left, which is cheaper.
        try sandbox.delete(packages[0..<100].map(\.name))
        let fewDeleted = try await indexer.update()
        #expect(!fewDeleted.rebuilt && fewDeleted.deleted == 100, "\(fewDeleted.reason ?? "")")
        try sandbox.delete(packages[100..<800].map(\.name))
        let mostDeleted = try await indexer.update()
        #expect(mostDeleted.rebuilt)
        #expect(mostDeleted.reason == "700 pending inserts, updates and deletes outnumber the 400 documents a rebuild would write: a rebuild is faster than applying them one by one")
        #expect(try sandbox.makeSearcher().documentCount() == 400)
        #expect(try sandbox.keys("quetzal", limit: 2000).count == 400)
    }

    @Test("an UPDATE of a column no field reads, on every row, is applied in place: no rebuild, no document touched")
    func largeBacklogOfUnindexedColumns() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2", prepareSQL: """
            CREATE TABLE Package (name TEXT PRIMARY KEY NOT NULL, summary TEXT, description TEXT, maintainer TEXT,
              section TEXT, tags TEXT, version TEXT, released, size, popularity INTEGER);
            """)
        let packages = Self.generatedPackages(count: IndexRebuildPolicy.minimumDocuments + 200)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        await indexer.setDocumentWriteHook { _, _ in
            // Counts every document handed to Xapian (the hook runs on the shards' threads).
            Self.writtenDocuments.add(1, ordering: .relaxed)
        }
        let before = Self.writtenDocuments.load(ordering: .relaxed)
        try sandbox.store.write(author: "app") { db in try db.execute(sql: "UPDATE Package SET popularity = 7") }
        let token = try sandbox.store.currentToken()
        let unindexed = try await indexer.update()
        let written = Self.writtenDocuments.load(ordering: .relaxed) - before
        #expect(!unindexed.rebuilt, "\(unindexed.reason ?? "")")
        #expect(unindexed.changes == packages.count && unindexed.indexed == 0 && unindexed.deleted == 0)
        #expect(written == 0, "no document is rebuilt for a column no field reads")
        #expect(unindexed.token == token, "the token moves past them")
        #expect(try sandbox.indexToken() == token)

        // An indexed column changed on every row twice outnumbers the documents: that still rebuilds.
        for round in 8...9 {
            try sandbox.store.write(author: "app") { db in
                try db.execute(sql: "UPDATE Package SET popularity = \(round), summary = summary || ' quetzal'")
            }
        }
        let indexed = try await indexer.update()
        #expect(indexed.rebuilt, "\(indexed)")
        #expect(try sandbox.keys("quetzal", limit: 2000).count == packages.count)
    }

    @Test("updates of a stored column alone weigh a quarter against the rebuild line: three on every row are applied, five rebuild")
    func largeBacklogOfStoredColumns() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        let packages = Self.generatedPackages(count: IndexRebuildPolicy.minimumDocuments + 200)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        func updateVersions(_ times: Int) throws {
            for _ in 0..<times {
                try sandbox.store.write(author: "app") { db in try db.execute(sql: "UPDATE Package SET version = version || '+'") }
            }
        }
        try updateVersions(3)
        let applied = try await indexer.update()
        #expect(!applied.rebuilt, "\(applied.reason ?? "")")
        #expect(applied.changes == 3 * packages.count && applied.indexed == 3 * packages.count, "\(applied)")
        try updateVersions(5)
        let rebuilt = try await indexer.update()
        #expect(rebuilt.rebuilt)
        #expect(rebuilt.reason == "6,000 pending inserts and updates (6,000 of them of stored, number or date fields alone, each counted as a quarter) outnumber the 1,200 documents: a rebuild is faster than applying them one by one")
        for package in [packages[0], packages[packages.count - 1]] {
            let hits = try sandbox.makeSearcher().search(SearchRequest("", filters: [], limit: 2000)).hits
            let hit = try #require(hits.first { $0.key.description == package.name })
            #expect(hit.fields["version"] == .text(package.version + "++++++++"), "every update is in the index")
        }
    }

    /// Documents written through the write hook of ``largeBacklogOfUnindexedColumns()``.
    static let writtenDocuments = Atomic<Int>(0)

    @Test("the shard of an id term is the same on every run and spreads keys evenly")
    func stableRouting() {
        // Fixed values: a change here would strand every document of existing indexes in the wrong shard.
        #expect(ShardLayout.shard(of: "QPackage:vim", among: 1) == 0)
        #expect(ShardLayout.shard(of: "QPackage:vim", among: 4) == 2)
        #expect(ShardLayout.shard(of: "QPackage:nano", among: 4) == 0)
        #expect(ShardLayout.shard(of: "QItem:r-1", among: 2) == 1)
        #expect(ShardLayout.shard(of: "QItem:r-1", among: 3) == 2)
        let routed = (0..<4000).map { ShardLayout.shard(of: "QPackage:pkg-\($0)", among: 4) }
        for shard in 0..<4 {
            let count = routed.filter { $0 == shard }.count
            #expect(count > 850 && count < 1150, "shard \(shard) got \(count) of 4000")
        }
    }
}

extension IndexerSandbox {
    /// The live generation's shard layout, or nil when there is none (or it predates sharding).
    var liveLayout: ShardLayout? {
        get throws {
            let directory = IndexDirectory(path: indexPath)
            guard let generation = directory.liveGeneration else { return nil }
            return ShardLayout.read(generationPath: directory.generationPath(generation))
        }
    }
}

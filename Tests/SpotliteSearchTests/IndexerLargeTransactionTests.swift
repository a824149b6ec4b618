import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// A transaction bigger than a batch is read and committed in pieces, and an update that stops inside it resumes
/// after the last piece every shard committed, while the position cleanup respects stays before the transaction.
@Suite("Indexer: large transactions", .blockingWork)
struct IndexerLargeTransactionTests {
    @Test("an update failing inside a large transaction resumes inside it; the position stays before it")
    func resumesInsideTransaction() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 3", indexer: "batch_size = 10")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let before = try #require(try sandbox.store.currentToken())
        let author = sandbox.configuration.indexer.author
        let saboteur = IndexerFailureTests.WriteSaboteur(keys: ["big25"], times: .max)
        await indexer.setDocumentWriteHook(saboteur.hook)

        let names = (0..<35).map { "big\($0)" }
        let newest = try #require(try sandbox.write(names.map { SamplePackage(name: $0, summary: "one big transaction") }))
        await #expect(throws: SearchError.self) { try await indexer.update() }

        // Pages of ten changes: the first two pieces are committed by every shard, the third failed in one.
        let checkpoint = try sandbox.indexCheckpoint()
        #expect(checkpoint.token == before, "inside the transaction, the token is the one before it")
        let changeIDs = try sandbox.store.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM spotlite_change WHERE token = ? ORDER BY id", arguments: [newest])
        }
        #expect(changeIDs.count == 35)
        #expect(checkpoint.changeID == changeIDs[19], "through the twentieth change: \(String(describing: checkpoint.changeID))")
        #expect(try sandbox.store.position(of: author)?.token == before, "the position never enters a transaction")
        let indexedBefore = Set(try sandbox.keys("transaction", limit: 100))
        #expect(indexedBefore.isSuperset(of: names.prefix(20)))
        #expect(!indexedBefore.contains("big25") && indexedBefore.isDisjoint(with: names.suffix(5)))

        saboteur.stop()
        let summary = try await indexer.update()
        #expect(!summary.rebuilt)
        #expect(summary.changes == 15, "only the changes after the checkpoint are read again")
        #expect(summary.transactions == 1)
        #expect(summary.token == newest)
        #expect(try sandbox.indexCheckpoint() == IndexCheckpoint(token: newest), "between transactions: no change id")
        #expect(Set(try sandbox.keys("transaction", limit: 100)) == Set(names))
        #expect(try sandbox.makeSearcher().documentCount() == 36)
        #expect(try sandbox.store.position(of: author)?.token == newest)
    }

    @Test("a large transaction between small ones is applied whole, every change once, in bounded pages")
    func largeBetweenSmall() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 7")
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        try sandbox.write([SamplePackage(name: "small0", summary: "around")])
        try sandbox.write((0..<50).map { SamplePackage(name: "large\($0)", summary: "around") })
        try sandbox.delete(["large3", "large4"])
        let newest = try sandbox.write([SamplePackage(name: "small1", summary: "around")])
        let summary = try await indexer.update()
        #expect(summary.transactions == 4 && summary.changes == 54)
        #expect(summary.indexed + summary.deleted == 54, "no change missed, none applied twice")
        #expect(summary.token == newest)
        #expect(try sandbox.indexCheckpoint() == IndexCheckpoint(token: newest))
        #expect(try sandbox.makeSearcher().search(SearchRequest("around", limit: 0)).total == 50)
    }
}

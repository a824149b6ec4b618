import Foundation
import Spotlite
import SpotliteJSON
import Testing

/// Each error says its way out once, as a case; the library and the command line name its actions differently.
@Suite("Search errors carry their way out")
struct SearchRecoveryTests {
    static let damage = XapianError(code: .databaseCorrupt, type: "DatabaseCorruptError", message: "bad block")
    static let network = XapianError(code: .network, type: "NetworkError", message: "REMOTE:refused (context: remote:tcp(127.0.0.1:7011))")
    static let disk = XapianError(code: .database, type: "DatabaseError", message: "No space left on device")

    @Test("every error maps to the recovery its problem calls for")
    func cases() {
        let expected: [(SearchError, SearchRecovery?)] = [
            (.indexMissing(path: "/i"), .buildIndex),
            (.indexCorrupt(path: "/i", reason: "truncated"), .rebuildIndex),
            (.indexLocked(path: "/i", holderPID: nil), .waitForOtherIndexer),
            (.indexLocked(path: "/i", holderPID: getpid()), .stopIndexerInProcess),
            (.cannotWrite(path: "/i", reason: "read-only"), .checkWritable),
            (.historyDeletedWhileRebuilding(path: "/i", purgedThrough: HistoryToken(9), rebuilds: 6), .keepHistoryThroughRebuilds),
            (.invalidQuery(query: "a AND", reason: .syntax(engineMessage: "syntax error")), .checkQuerySyntax),
            (.invalidQuery(query: "size:1..x", reason: .refused(explanation: "x is not a number; write size:1..10")), nil),
            (.overBudget(query: "a", exceeded: .words(count: 1001, maximum: 1000)), nil),
            (.unknownEntity("X", known: ["Package"]), nil),
            (.engine(Self.damage), .rebuildIndex),
            (.engine(Self.network), .checkShardServer),
            (.engine(Self.disk), .checkDiskOrRebuild),
            (.indexingRunning, .stopIndexing),
            (.shardUnavailable(shard: "h:1", reason: "refused"), .startShardServer),
            (.shardIdentityChanged(shard: "h:1", expected: "a", found: "b"), .repointShardOrRebuild),
            (.indexPartlyDeleted(shard: "h:1", error: Self.network), .deleteIndexAgain(startServerFirst: true)),
            (.indexPartlyDeleted(shard: "/s", error: Self.disk), .deleteIndexAgain(startServerFirst: false)),
        ]
        for (error, recovery) in expected {
            #expect(error.recovery == recovery, "\(error)")
            if let recovery {
                #expect(error.description == "\(error.problem); \(recovery.text(.library))")
            } else {
                #expect(error.description == error.problem)
            }
        }
    }

    @Test("the library names methods, the command line names commands, for the same recovery")
    func vocabularies() {
        let missing = SearchError.indexMissing(path: "/i")
        #expect(missing.description == "no index at /i; update the index (SpotliteIndexer.update()) to build it")
        #expect(missing.commandLineDescription == "no index at /i; run `spotlite index update` to build it")
        let damaged = SearchError.engine(Self.damage)
        #expect(damaged.commandLineDescription == "search engine error (DatabaseCorruptError): bad block; run `spotlite index rebuild` to build it again from the store")
        let deleted = SearchError.indexPartlyDeleted(shard: "/s", error: Self.disk)
        #expect(deleted.commandLineDescription.hasSuffix("; fix the shard, then run `spotlite index delete` again"))
        let locked = SearchError.indexLocked(path: "/i", holderPID: nil)
        #expect(locked.commandLineDescription.hasSuffix("(a stopped `index watch` releases it)"))
        #expect(locked.description.hasSuffix("(a stopped live indexer releases it)"))
    }

    @Test("history deleted faster than rebuilds: the advice is about keeping history, in each front end's terms")
    func historyDeletedWhileRebuilding() {
        let error = SearchError.historyDeletedWhileRebuilding(path: "/i", purgedThrough: HistoryToken(9), rebuilds: 6)
        #expect(error.commandLineDescription == "the store's history is deleted faster than the index at /i is rebuilt (deleted through token 9 before the index could read what followed its rebuild; 6 rebuilds in this update); raise [history] maximum_duration so that it outlasts a rebuild, or keep the index up to date with `spotlite index watch`")
        #expect(error.description.hasSuffix("; raise the history's maximum duration (HistoryDeletionPolicy.maximumDuration) so that it outlasts a rebuild, or keep the index up to date with live indexing (SpotliteIndexer.start())"))
    }

    @Test("the command line shows the engine's words without the index's internals")
    func readableProblem() {
        let error = SearchError.engine(Self.network)
        #expect(error.description.contains("REMOTE:"), "the library keeps the engine's message as it is")
        #expect(error.commandLineDescription == "search engine error (NetworkError): refused; check that the shard's server is running and reachable")
    }
}

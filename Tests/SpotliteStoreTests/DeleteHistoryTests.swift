import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("Deleting history", .blockingWork)
struct DeleteHistoryTests {
    /// Five transactions: app, importer, shell (no author), importer, app.
    static func makeScenario() throws -> (TestStore, [HistoryTransaction]) {
        let test = try TestStore()
        try test.insertPackage("p1", author: "app")
        try test.insertPackage("p2", author: "importer")
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('p3');")
        try test.store.sealPendingChanges()
        try test.insertPackage("p4", author: "importer")
        try test.insertPackage("p5", author: "app")
        try test.spaceOutTimestamps()
        return (test, try test.allHistory())
    }

    @Test func deleteBeforeTokenKeepsThatToken() throws {
        let (test, history) = try Self.makeScenario()
        let t = history.map(\.token)
        #expect(try test.store.deleteHistory(.before(t[2])) == 2)
        #expect(try test.allHistory().map(\.token) == [t[2], t[3], t[4]])
        #expect(try test.store.countChanges(.allRetained) == 3)
        #expect(try test.store.oldestToken() == t[2])
        #expect(try test.store.deleteHistory(.before(t[2])) == 0, "deleting again finds nothing")
    }

    @Test func deleteThroughTokenIncludesIt() throws {
        let (test, history) = try Self.makeScenario()
        let t = history.map(\.token)
        #expect(try test.store.deleteHistory(.through(t[2])) == 3)
        #expect(try test.allHistory().map(\.token) == [t[3], t[4]])
        #expect(try test.store.currentToken() == t[4])
    }

    @Test func deleteBeforeDate() throws {
        let (test, history) = try Self.makeScenario()
        let t = history.map(\.token)
        #expect(try test.store.deleteHistory(.before(history[3].timestamp)) == 3)
        #expect(try test.allHistory().map(\.token) == [t[3], t[4]])
    }

    @Test func deleteOnlySomeAuthors() throws {
        let (test, history) = try Self.makeScenario()
        let t = history.map(\.token)
        #expect(try test.store.deleteHistory(.through(t[3]).onlyAuthors(["importer"])) == 2)
        #expect(try test.allHistory().map(\.token) == [t[0], t[2], t[4]])
        #expect(try test.store.deleteHistory(.through(t[4]).onlyAuthors([nil])) == 1)
        #expect(try test.allHistory().map(\.author) == ["app", "app"])
        #expect(try test.store.deleteHistory(.through(t[4]).onlyAuthors([])) == 0)
    }

    @Test func dryRunCountsWithoutDeleting() throws {
        let (test, history) = try Self.makeScenario()
        #expect(try test.store.deleteHistory(.through(history[3].token), dryRun: true) == 4)
        #expect(try test.allHistory().count == 5)
        #expect(try test.store.fetchHistory(.after(nil)).count == 5, "a dry run expires nothing")
    }

    @Test func deleteConsumedByEveryAuthorWaitsForAllPositions() throws {
        let (test, history) = try Self.makeScenario()
        let t = history.map(\.token)
        #expect(try test.store.deleteHistory(.consumed(by: ["indexer", "app"])) == 0, "no position yet")
        try test.store.setPosition(t[3], for: "indexer")
        #expect(try test.store.deleteHistory(.consumed(by: ["indexer", "app"])) == 0, "app has no position yet")
        try test.store.setPosition(t[1], for: "app")
        #expect(try test.store.commonPosition(of: ["indexer", "app"]) == t[1])
        #expect(try test.store.deleteHistory(.consumed(by: ["indexer", "app"])) == 2)
        #expect(try test.allHistory().map(\.token) == [t[2], t[3], t[4]])
        #expect(try test.store.deleteHistory(.consumed(by: [])) == 0)
        // Both consumers continue without an expiry error.
        #expect(try test.store.fetchHistory(.after(t[1])).count == 3)
    }

    @Test func readOnlyStoreCannotDeleteButCanDryRun() throws {
        let (test, history) = try Self.makeScenario()
        let reader = try test.reopen(options: StoreOptions(readOnly: true))
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .deleteHistory)) {
            try reader.deleteHistory(.through(history[4].token))
        }
        #expect(try reader.deleteHistory(.through(history[4].token), dryRun: true) == 5)
    }
}

@Suite("Tokens", .blockingWork)
struct TokenTests {
    @Test func tokensIncreaseAndSurviveDeletingTheNewestHistory() throws {
        let test = try TestStore()
        try test.insertPackage("one")
        try test.insertPackage("two")
        let newest = try #require(try test.store.currentToken())
        #expect(try test.store.deleteHistory(.through(newest)) == 2)
        #expect(try test.store.currentToken() == newest, "the current token does not go back")
        #expect(try test.store.oldestToken() == nil)

        try test.insertPackage("three")
        let next = try #require(try test.store.currentToken())
        #expect(next > newest)
        #expect(try test.store.fetchHistory(.after(newest)).map(\.token) == [next])
    }

    @Test func tokensIncreaseAcrossReopeningAfterDeletingEverything() throws {
        let test = try TestStore()
        try test.insertPackage("one")
        let first = try #require(try test.store.currentToken())
        try test.store.deleteHistory(.through(first))
        let reopened = try test.reopen()
        try reopened.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('two')") }
        #expect(try #require(try reopened.currentToken()) > first)
    }

    @Test func tokenCodableAndDescription() throws {
        let token = HistoryToken(42)
        let data = try JSONEncoder().encode(token)
        #expect(String(decoding: data, as: UTF8.self) == "42")
        #expect(try JSONDecoder().decode(HistoryToken.self, from: data) == token)
        #expect(token.description == "42")
        #expect(HistoryToken(1) < HistoryToken(2))
    }
}

@Suite("Expired positions", .blockingWork)
struct ExpiredTokenTests {
    @Test func fetchAfterDeletedHistoryThrowsExpiredToken() throws {
        let test = try TestStore()
        for name in ["a", "b", "c", "d"] { try test.insertPackage(name) }
        let t = try test.allHistory().map(\.token)
        try test.store.deleteHistory(.through(t[1]))

        #expect(throws: SpotliteStoreError.expiredToken(requested: t[0], purgedThrough: t[1])) {
            try test.store.fetchHistory(.after(t[0]))
        }
        #expect(throws: SpotliteStoreError.expiredToken(requested: nil, purgedThrough: t[1])) {
            try test.store.fetchHistory(.after(nil))
        }
        #expect(throws: SpotliteStoreError.self) { try test.store.fetchChanges(.after(t[0])) }
        #expect(throws: SpotliteStoreError.self) { try test.store.countHistory(.after(nil)) }
        #expect(throws: SpotliteStoreError.self) { try test.store.countChanges(.after(t[0])) }
        // A consumer that processed the deleted history continues normally.
        #expect(try test.store.fetchHistory(.after(t[1])).map(\.token) == [t[2], t[3]])
        #expect(try test.store.fetchHistory(.after(t[2])).map(\.token) == [t[3]])
        // Inspection of what is left never fails.
        #expect(try test.store.fetchHistory(.allRetained).map(\.token) == [t[2], t[3]])
    }

    @Test func authorFilteredDeleteAlsoExpiresOlderPositions() throws {
        let test = try TestStore()
        try test.insertPackage("a", author: "app")
        try test.insertPackage("b", author: "importer")
        try test.insertPackage("c", author: "app")
        let t = try test.allHistory().map(\.token)
        try test.store.deleteHistory(.through(t[1]).onlyAuthors(["importer"]))
        // A consumer at t[0] would never see the importer's deleted transaction: it must be told.
        #expect(throws: SpotliteStoreError.expiredToken(requested: t[0], purgedThrough: t[1])) {
            try test.store.fetchHistory(.after(t[0]))
        }
    }

    @Test func fetchAfterDeletedDateThrowsExpiredDate() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.insertPackage("b")
        try test.spaceOutTimestamps()
        let history = try test.allHistory()
        try test.store.deleteHistory(.through(history[0].token))
        let before = history[0].timestamp.addingTimeInterval(-1)
        #expect(throws: SpotliteStoreError.expiredDate(requested: before, purgedThrough: history[0].timestamp)) {
            try test.store.fetchHistory(.after(before))
        }
        #expect(try test.store.fetchHistory(.after(history[0].timestamp)).map(\.token) == [history[1].token])
    }

    @Test func tokenNewerThanTheStoreIsRejected() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        let current = try #require(try test.store.currentToken())
        let future = HistoryToken(current.rawValue + 100)
        #expect(throws: SpotliteStoreError.unknownToken(requested: future, current: current)) {
            try test.store.fetchHistory(.after(future))
        }
        let empty = try TestStore()
        #expect(throws: SpotliteStoreError.unknownToken(requested: HistoryToken(1), current: nil)) {
            try empty.store.fetchHistory(.after(HistoryToken(1)))
        }
    }

    /// Their words are checked once, with the store's other sentences, in `StoreErrorTests.causeSentences`.
    @Test func errorsTellTheWayOut() {
        let expired = SpotliteStoreError.expiredToken(requested: HistoryToken(3), purgedThrough: HistoryToken(9))
        #expect(expired.recovery == .resynchronizeAndContinue)
        #expect(SpotliteStoreError.unknownToken(requested: HistoryToken(5), current: nil).recovery == .resynchronize)
        #expect(SpotliteStoreError.invalidLimit(0).recovery == .leaveOutLimit)
    }
}

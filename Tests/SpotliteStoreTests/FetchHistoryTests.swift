import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("Fetching history", .blockingWork)
struct FetchHistoryTests {
    /// Four transactions: app/ctxA, importer/import (two entities), a shell write, app/ctxB.
    struct Scenario {
        let test: TestStore
        let transactions: [HistoryTransaction]

        init() throws {
            test = try TestStore()
            try test.insertPackage("a", author: "app", context: "ctxA")
            try test.store.write(author: "importer", context: "import") { db in
                try db.execute(sql: "INSERT INTO Item (id, label) VALUES (1, 'one')")
                try db.execute(sql: "UPDATE Package SET summary = 'changed' WHERE name = 'a'")
            }
            try SQLiteShell.run(test.path, "DELETE FROM Package WHERE name = 'a';")
            try test.store.sealPendingChanges()
            try test.store.write(author: "app", context: "ctxB") { db in
                try db.execute(sql: "INSERT INTO Item (id, label) VALUES (2, 'two')")
            }
            try test.spaceOutTimestamps()
            transactions = try test.store.fetchHistory(.after(nil))
        }

        var tokens: [HistoryToken] { transactions.map(\.token) }

        func tokens(_ request: HistoryRequest) throws -> [HistoryToken] {
            try test.store.fetchHistory(request).map(\.token)
        }
    }

    @Test func scenarioHasFourTransactionsInOrder() throws {
        let scenario = try Scenario()
        #expect(scenario.transactions.map(\.author) == ["app", "importer", nil, "app"])
        #expect(scenario.transactions.map(\.changes.count) == [1, 2, 1, 1])
        #expect(scenario.tokens == scenario.tokens.sorted())
    }

    @Test func afterTokenReturnsOnlyLaterTransactions() throws {
        let scenario = try Scenario()
        let t = scenario.tokens
        #expect(try scenario.tokens(.after(t[1])) == [t[2], t[3]])
        #expect(try scenario.tokens(.after(t[3])) == [])
        #expect(try scenario.tokens(.after(scenario.transactions[0])) == [t[1], t[2], t[3]])
    }

    @Test func afterDateReturnsOnlyLaterTransactions() throws {
        let scenario = try Scenario()
        let t = scenario.tokens
        #expect(try scenario.tokens(.after(scenario.transactions[1].timestamp)) == [t[2], t[3]])
        #expect(try scenario.tokens(.after(Date(timeIntervalSince1970: 0))) == t)
        #expect(try scenario.tokens(.after(Date().addingTimeInterval(3600))) == [])
    }

    @Test func authorFilters() throws {
        let scenario = try Scenario()
        let t = scenario.tokens
        #expect(try scenario.tokens(.after(nil).including(authors: ["app"])) == [t[0], t[3]])
        #expect(try scenario.tokens(.after(nil).including(authors: [nil])) == [t[2]])
        #expect(try scenario.tokens(.after(nil).including(authors: ["importer", nil])) == [t[1], t[2]])
        #expect(try scenario.tokens(.after(nil).excluding(authors: ["app"])) == [t[1], t[2]])
        #expect(try scenario.tokens(.after(nil).excluding(authors: ["app", nil])) == [t[1]])
        #expect(try scenario.tokens(.after(nil).excluding(authors: [nil])) == [t[0], t[1], t[3]])
        #expect(try scenario.tokens(.after(nil).including(authors: [])) == [])
        #expect(try scenario.tokens(.after(nil).excluding(authors: [])) == t)
    }

    @Test func contextFilter() throws {
        let scenario = try Scenario()
        let t = scenario.tokens
        #expect(try scenario.tokens(.after(nil).contexts(["import"])) == [t[1]])
        #expect(try scenario.tokens(.after(nil).contexts(["ctxA", "ctxB"])) == [t[0], t[3]])
        #expect(try scenario.tokens(.after(nil).contexts([nil])) == [t[2]])
    }

    @Test func entityAndChangeTypeFiltersSelectChanges() throws {
        let scenario = try Scenario()
        let t = scenario.tokens
        let items = try scenario.test.store.fetchHistory(.after(nil).entities(["Item"]))
        #expect(items.map(\.token) == [t[1], t[3]])
        #expect(items.allSatisfy { $0.changes.allSatisfy { $0.entity == "Item" } })
        #expect(items.first?.changes.count == 1)

        let updates = try scenario.test.store.fetchHistory(.after(nil).changeTypes([.update]))
        #expect(updates.map(\.token) == [t[1]])
        #expect(updates.first?.changes.map(\.changeType) == [.update])

        let packageDeletes = try scenario.test.store.fetchChanges(
            .after(nil).entities(["Package"]).changeTypes([.delete]))
        #expect(packageDeletes.map(\.token) == [t[2]])
        #expect(try scenario.tokens(.after(nil).entities(["Nothing"])) == [])
        #expect(try scenario.tokens(.after(nil).changeTypes([])) == [])
    }

    @Test func combinedTransactionAndChangeFilters() throws {
        let scenario = try Scenario()
        let t = scenario.tokens
        let request = HistoryRequest.after(t[0]).excluding(authors: ["importer"]).entities(["Item"])
        let result = try scenario.test.store.fetchHistory(request)
        #expect(result.map(\.token) == [t[3]])
        #expect(try scenario.test.store.countHistory(request) == 1)
        #expect(try scenario.test.store.countChanges(request) == 1)
    }

    @Test func limitPagesThroughTransactions() throws {
        let scenario = try Scenario()
        let t = scenario.tokens
        let firstPage = try scenario.test.store.fetchHistory(.after(nil).limit(2))
        #expect(firstPage.map(\.token) == [t[0], t[1]])
        #expect(firstPage[1].changes.count == 2, "a page holds whole transactions")
        let secondPage = try scenario.test.store.fetchHistory(.after(firstPage.last?.token).limit(2))
        #expect(secondPage.map(\.token) == [t[2], t[3]])
        #expect(try scenario.test.store.fetchHistory(.after(secondPage.last?.token).limit(2)).isEmpty)
        // With an author filter, the limit counts matching transactions only.
        #expect(try scenario.tokens(.after(nil).including(authors: ["app"]).limit(1)) == [t[0]])
    }

    @Test func limitOnChangesCountsChanges() throws {
        let scenario = try Scenario()
        let changes = try scenario.test.store.fetchChanges(.after(nil).limit(3))
        #expect(changes.count == 3)
        #expect(changes.map(\.changeID) == changes.map(\.changeID).sorted())
        #expect(changes.map(\.token) == [scenario.tokens[0], scenario.tokens[1], scenario.tokens[1]])
        #expect(try scenario.test.store.countChanges(.after(nil)) == 5)
        #expect(try scenario.test.store.countChanges(.after(nil).limit(3)) == 3)
        #expect(try scenario.test.store.countHistory(.after(nil)) == 4)
    }

    @Test func invalidLimitIsRejected() throws {
        let scenario = try Scenario()
        #expect(throws: SpotliteStoreError.invalidLimit(0)) { try scenario.test.store.fetchHistory(.after(nil).limit(0)) }
        #expect(throws: SpotliteStoreError.invalidLimit(-5)) { try scenario.test.store.fetchChanges(.after(nil).limit(-5)) }
    }

    @Test func emptyStoreHasNoHistory() throws {
        let test = try TestStore()
        #expect(try test.store.fetchHistory(.after(nil)).isEmpty)
        #expect(try test.store.currentToken() == nil)
        #expect(try test.store.oldestToken() == nil)
        #expect(try test.store.countHistory(.after(nil)) == 0)
    }
}

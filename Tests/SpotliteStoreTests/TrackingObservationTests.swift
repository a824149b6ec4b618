import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Observing specific changes as an `AsyncSequence` (SwiftData style): filters, waiting for later commits by other
/// processes, resuming from a saved position, and expiry.
@Suite("Tracking: observing changes", .blockingWork)
struct TrackingObservationTests {
    @Test func nowStartsAfterTheCurrentTokenAndLeavesOutExcludedAuthors() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        try widget.insertPackages(["before"], author: "widget")
        var iterator = test.store.observeHistory(excludingAuthors: ["app"], from: .now).makeAsyncIterator()
        try test.store.insertPackages(["mine"], author: "app")
        let theirs = try widget.insertPackages(["after"], author: "widget")

        let first = try #require(try await iterator.next(within: "the next observed transaction"))
        #expect(first.token == theirs)
        #expect(first.changes.map(\.key) == ["after".databaseValue])
    }

    @Test func filtersByEntityAndChangeType() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let inserted = try widget.run("INSERT INTO Package (name) VALUES ('a')", author: "widget")
        try test.store.run("INSERT INTO Package (name) VALUES ('b')", author: "app")
        try widget.run("INSERT INTO Item (id) VALUES (1); UPDATE Package SET size = 1 WHERE name = 'a'", author: "widget")
        let mixed = try widget.run("""
            INSERT INTO Item (id) VALUES (2); DELETE FROM Package WHERE name = 'a'; INSERT INTO Package (name) VALUES ('c')
            """, author: "widget")

        var iterator = test.store.observeHistory(
            excludingAuthors: ["app"], entities: ["Package"], changeTypes: [.insert, .delete], from: .after(nil)
        ).makeAsyncIterator()
        let first = try #require(try await iterator.next(within: "the next observed transaction"))
        let second = try #require(try await iterator.next(within: "the next observed transaction"))

        #expect(first.token == inserted)
        #expect(first.changes.map(\.changeType) == [.insert])
        // The transaction with only an Item insert and a Package update has nothing to show and is left out.
        #expect(second.token == mixed)
        #expect(second.changes.map(\.changeType) == [.delete, .insert])
        #expect(second.changes.allSatisfy { $0.entity == "Package" })
        #expect(second.changes.first?.tombstone?["name"] == "a".databaseValue)
    }

    @Test func waitsForCommitsByOtherProcesses() async throws {
        let test = try TestStore()
        try test.store.insertPackages(["seed"], author: "app")
        let start = try test.store.currentToken()
        let widget = try test.reopen()
        let store = test.store
        let (received, receiving) = AsyncStream.makeStream(of: HistoryToken.self)
        let waiting = Task { () -> HistoryTransaction? in
            for try await transaction in store.observeHistory(excludingAuthors: ["app"], from: .after(start)) {
                guard transaction.author == nil else {
                    receiving.yield(transaction.token)
                    continue
                }
                return transaction
            }
            return nil
        }
        // The observer has read all the history there is, then asks for more: the shell's commit comes after.
        let first = try widget.insertPackages(["widget"], author: "widget")
        var tokens = received.makeAsyncIterator()
        #expect(try await tokens.next(within: "the widget's transaction") == first)
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('from-the-shell');")

        let transaction = try #require(try await within("the sqlite3 shell's transaction") { try await waiting.value })
        #expect(transaction.author == nil)
        #expect(transaction.changes.map(\.key) == ["from-the-shell".databaseValue])
    }

    @Test func resumesFromTheSavedPositionAndRedeliversTheUnfinishedElement() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let tokens = try ["1", "2", "3"].map { try widget.insertPackages([$0], author: "widget") }

        do {
            var iterator = test.store.observeHistory(from: .savedPosition("thumbnails")).makeAsyncIterator()
            #expect(try await iterator.next(within: "the next observed transaction")?.token == tokens[0])
            #expect(try test.store.position(of: "thumbnails") == nil, "the first element is not handled yet")
            #expect(try await iterator.next(within: "the next observed transaction")?.token == tokens[1])
            // Asking for the second element means the first was handled. The consumer stops while handling the
            // second: it must come again.
            #expect(try test.store.position(of: "thumbnails")?.token == tokens[0])
        }

        var resumed = test.store.observeHistory(from: .savedPosition("thumbnails")).makeAsyncIterator()
        #expect(try await resumed.next(within: "the next observed transaction")?.token == tokens[1])
        #expect(try await resumed.next(within: "the next observed transaction")?.token == tokens[2])
        #expect(try test.store.position(of: "thumbnails")?.token == tokens[1])
    }

    @Test func anExpiredPositionThrowsAndEndsTheSequence() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let t1 = try widget.insertPackages(["1"], author: "widget")
        let t2 = try widget.insertPackages(["2"], author: "widget")
        try test.store.setPosition(t1, for: "thumbnails")
        try test.store.deleteHistory(.through(t2))

        var iterator = test.store.observeHistory(from: .savedPosition("thumbnails")).makeAsyncIterator()
        await #expect(throws: SpotliteStoreError.expiredToken(requested: t1, purgedThrough: t2)) {
            _ = try await iterator.next(within: "the next observed transaction")
        }
        #expect(try await iterator.next(within: "the next observed transaction") == nil)
    }

    @Test func cancellingTheObservingTaskEndsTheSequence() async throws {
        let test = try TestStore()
        let store = test.store
        let observing = Task { () -> Int in
            var count = 0
            for try await _ in store.observeHistory(from: .now) { count += 1 }
            return count
        }
        // Cancelled while it waits for a notification (it has subscribed, and there is no history to read).
        #expect(await pollUntil { test.store.hub.subscriberCount == 1 })
        observing.cancel()
        #expect(try await observing.value == 0)
        #expect(await pollUntil { test.store.hub.subscriberCount == 0 })
    }
}

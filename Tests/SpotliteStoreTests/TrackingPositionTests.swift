import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Positions: tokens (not timestamps), kept in the store under the key prefix, and the common watermark.
@Suite("Tracking: positions", .blockingWork)
struct TrackingPositionTests {
    @Test func positionsAreStoredPerAuthorUnderTheKeyPrefix() async throws {
        let test = try TestStore()
        let widgetStore = try test.reopen()
        let authors = ["app", "widget"]
        let app = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: authors, autoStart: false) { $0.positionKeyPrefix = "kit." })
        let widget = try HistoryTracker(
            store: widgetStore,
            configuration: trackerConfiguration("widget", allAuthors: authors, autoStart: false) { $0.positionKeyPrefix = "kit." })

        let fromApp = try test.store.insertPackages(["a"], author: "app")
        let fromWidget = try widgetStore.insertPackages(["w"], author: "widget")
        try await app.processPendingHistory()
        try await widget.processPendingHistory()

        let positions = try test.store.positions()
        #expect(positions.map(\.author) == ["kit.app", "kit.widget"])
        #expect(positions.allSatisfy { $0.token == fromWidget })
        #expect(try test.store.position(of: "app") == nil)
        #expect(app.consumerName == "kit.app")
        #expect(app.deletionPolicy.requiredAuthors == ["kit.app", "kit.widget"])
        // Cleanup deletes by transaction author, which carries no prefix.
        #expect(app.deletionPolicy.listedAuthors == ["app", "widget"])
        #expect(fromApp < fromWidget)
    }

    @Test func theCommonWatermarkIsTheMinimumOverRequiredAuthorsAndNilWhenOneIsMissing() async throws {
        let test = try TestStore()
        let authors = ["app", "widget", "importer"]
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: authors, autoStart: false) {
                $0.batchAuthors = ["importer"]
                $0.consumers = ["spotlite.indexer"]
            })
        let t1 = try test.store.insertPackages(["1"], author: "importer")
        let t2 = try test.store.insertPackages(["2"], author: "importer")
        let t3 = try test.store.insertPackages(["3"], author: "importer")
        #expect(try tracker.commonPosition() == nil)

        try test.store.setPosition(t3, for: "app")
        try test.store.setPosition(t1, for: "widget")
        #expect(try tracker.commonPosition() == nil, "the indexer has no position yet")
        try test.store.setPosition(t2, for: "spotlite.indexer")
        #expect(try tracker.commonPosition() == t1, "the importer is write-only and not waited for")
        try test.store.setPosition(t3, for: "widget")
        #expect(try tracker.commonPosition() == t2)

        struct Embedder: HistoryPositionHolder { let consumerName = "embeddings" }
        tracker.register(consumer: Embedder())
        #expect(try tracker.commonPosition() == nil, "a registered consumer without a position holds cleanup back")
        try test.store.setPosition(t3, for: "embeddings")
        #expect(try Embedder().position(in: test.store)?.token == t3)
        #expect(try tracker.commonPosition() == t2)
    }

    @Test func positionsAreTokensSoTiedOrBackwardTimestampsSkipNothing() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let inbox = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [inbox])
        let t1 = try widget.insertPackages(["one"], author: "widget")
        try await tracker.processPendingHistory()
        #expect(try tracker.position()?.token == t1)

        let t2 = try widget.insertPackages(["two"], author: "widget")
        let t3 = try widget.insertPackages(["three"], author: "widget")
        // The clock ties (t2 committed in the same instant as t1) and then steps back (t3 before both).
        try await test.store.databasePool.write { db in
            try db.execute(sql: """
                UPDATE spotlite_transaction SET timestamp = (SELECT timestamp FROM spotlite_transaction WHERE token = ?)
                WHERE token = ?;
                UPDATE spotlite_transaction SET timestamp = timestamp - 60 WHERE token = ?;
                """, arguments: [t1, t2, t3])
        }
        let first = try #require(try test.store.fetchHistory(.after(HistoryToken(0))).first)
        // A position kept as a timestamp, as PersistentHistoryTrackingKit keeps it, would skip both.
        #expect(try test.store.fetchHistory(.after(first.timestamp)).isEmpty)

        try await tracker.processPendingHistory()
        #expect(inbox.tokens == [t1, t2, t3])
        #expect(try tracker.position()?.token == t3)
    }

    @Test func positionsLiveInTheStoreWhereEveryProcessSeesThem() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false) {
                $0.positionKeyPrefix = "kit."
            })
        let token = try widget.insertPackages(["w"], author: "widget")
        try await tracker.processPendingHistory()

        #expect(try widget.position(of: "kit.app")?.token == token)
        let printed = try SQLiteShell.run(test.path, "SELECT token FROM spotlite_position WHERE author = 'kit.app';")
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == String(token.rawValue))
        // No separate defaults file next to the store: the folder holds the store and its WAL files only.
        let files = try FileManager.default.contentsOfDirectory(atPath: test.directory.url.path)
        #expect(files.allSatisfy { $0.hasPrefix("store.sqlite") })
    }

    @Test func resetPositionTakesTheCurrentTokenOrAGivenOne() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let inbox = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [inbox])
        try tracker.resetPosition()
        #expect(try tracker.position() == nil, "an empty store has no token to start from")

        let t1 = try widget.insertPackages(["a"], author: "widget")
        let t2 = try widget.insertPackages(["b"], author: "widget")
        try tracker.resetPosition()
        #expect(try tracker.position()?.token == t2)
        try await tracker.processPendingHistory()
        #expect(inbox.tokens.isEmpty)

        try tracker.resetPosition(to: t1)
        try await tracker.processPendingHistory()
        #expect(inbox.tokens == [t2])
        #expect(throws: SpotliteStoreError.unknownToken(requested: HistoryToken(t2.rawValue + 100), current: t2)) {
            try tracker.resetPosition(to: HistoryToken(t2.rawValue + 100))
        }
    }
}

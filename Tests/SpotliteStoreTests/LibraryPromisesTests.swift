import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// What the documentation promises embedders, checked through the public API: migrations reach trackers, a write
/// says which token it committed, and an observation starts when it is created.
@Suite("Library promises", .blockingWork)
struct LibraryPromisesTests {
    @Test func aTrackerPositionedBeforeAMigrationReceivesTheMigrationsDataChanges() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let before = try SpotliteStore(path: path, migrationManager: try StagedMigrationManager(version: NoteVersions.v1))
        try before.write(author: "widget") { db in
            try db.execute(sql: "INSERT INTO Note (id, title, body, legacy) VALUES (1, 'groceries', 'milk', 'old')")
        }
        let inbox = RecordingSubscriber()
        let early = try HistoryTracker(
            store: before, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [inbox])
        try await early.processPendingHistory()
        let position = try #require(try early.position()?.token)

        let stage = MigrationStage.custom(
            migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle],
            willMigrate: { db in try db.execute(sql: "UPDATE Note SET body = body || ' / ' || legacy") },
            didMigrate: { db in try db.execute(sql: "UPDATE Note SET tags = 'inbox'") })
        let after = try SpotliteStore(path: path, migrationManager: try StagedMigrationManager([stage]))
        let migrated = try HistoryTracker(
            store: after, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [inbox])
        try await migrated.processPendingHistory()

        let delivered = inbox.transactions.filter { $0.token > position }
        #expect(delivered.map(\.author) == [StagedMigrationManager.author])
        #expect(delivered.first?.changes.allSatisfy { $0.entity == "Note" && $0.changeType == .update } == true)
        #expect(try migrated.position()?.token == delivered.last?.token)
    }

    @Test func aWriteReturnsItsOwnTokenNotAForeignOneSealedWithIt() throws {
        let test = try TestStore()
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('from-the-shell');")
        let (value, token) = try test.store.writeReturningToken(author: "app") { db in
            try db.execute(sql: "INSERT INTO Package (name) VALUES ('mine')")
            return 42
        }
        #expect(value == 42)
        let history = try test.store.fetchHistory(.allRetained)
        #expect(history.map(\.author) == [nil, "app"], "the foreign change was sealed first, under its own token")
        #expect(token == history.last?.token)
        #expect(token == (try test.store.currentToken()))
    }

    @Test func aWriteThatChangesNoTrackedRowReturnsNoToken() throws {
        let test = try TestStore()
        try test.store.insertPackages(["vim"], author: "app")
        let result = try test.store.writeReturningToken(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET summary = summary WHERE name = 'nothing-by-that-name'")
        }
        #expect(result.token == nil)
    }

    @Test func anObservationFromNowStartsWhenCreatedNotWhenIterated() async throws {
        let test = try TestStore()
        try test.store.insertPackages(["before"], author: "app")
        let observation = test.store.observeHistory()
        // Written after creating the observation, before iterating it: observed.
        let written = try test.store.insertPackages(["after-creation"], author: "app")
        let first = try await within("the observation's first transaction") {
            var iterator = observation.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(first?.token == written)
    }
}

import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Change ids are unique and increasing over the store's whole life (``HistoryChange/changeID``), although
/// `spotlite_change.id` has no `AUTOINCREMENT`: deleting the newest changes leaves a keeper row behind.
@Suite("Change ids after history is deleted", .blockingWork)
struct ChangeIDTests {
    static func changeIDs(_ store: SpotliteStore) throws -> [Int64] {
        try store.fetchHistory(.allRetained).flatMap { $0.changes.map(\.changeID) }
    }

    static func keeperCount(_ path: String) throws -> Int {
        Int(try SQLiteShell.run(path, "SELECT count(*) FROM spotlite_change WHERE token = 0;")
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func newStoresHaveNoAutoincrementOnChanges() throws {
        let test = try TestStore()
        let sql = try SQLiteShell.run(test.path, "SELECT sql FROM sqlite_master WHERE name = 'spotlite_change';")
        #expect(sql.contains("INTEGER PRIMARY KEY"))
        #expect(!sql.contains("AUTOINCREMENT"))
    }

    @Test func idsStayAboveDeletedOnesAfterAllHistoryIsDeleted() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.insertPackage("b")
        try test.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET summary = 'changed'")
        }
        let before = try Self.changeIDs(test.store)
        #expect(before.count == 4)
        let highest = try #require(before.max())

        #expect(try test.store.deleteHistory(.through(try #require(try test.store.currentToken()))) == 3)
        #expect(try test.allHistory().isEmpty)
        #expect(try test.store.countChanges(.allRetained) == 0)
        #expect(try test.store.historyStatistics().changes == 0, "the keeper row is not a change")
        #expect(try Self.keeperCount(test.path) == 1)

        try test.insertPackage("c")
        try test.insertPackage("d")
        let after = try Self.changeIDs(test.store)
        #expect(after.count == 2)
        #expect(after.allSatisfy { $0 > highest })
        #expect(after == after.sorted())
        #expect(try test.store.historyStatistics().changes == 2)

        // Deleting everything again, keeper included, still keeps ids above every one given.
        #expect(try test.store.deleteHistory(.through(try #require(try test.store.currentToken()))) == 2)
        try test.insertPackage("e")
        #expect(try Self.changeIDs(test.store).allSatisfy { $0 > after.max()! })
        #expect(try Self.keeperCount(test.path) <= 1)
    }

    @Test func deletingOlderHistoryLeavesNoKeeper() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.insertPackage("b")
        let history = try test.allHistory()
        #expect(try test.store.deleteHistory(.through(history[0].token)) == 1)
        #expect(try Self.keeperCount(test.path) == 0)
        #expect(try test.store.historyStatistics().changes == 1)
    }

    @Test func aKeeperThatNoLongerHoldsTheHighestIDGoesWithTheNextDeletion() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.store.deleteHistory(.through(try #require(try test.store.currentToken())))
        #expect(try Self.keeperCount(test.path) == 1)
        try test.insertPackage("b")
        try test.insertPackage("c")
        let tokens = try test.allHistory().map(\.token)
        try test.store.deleteHistory(.through(tokens[0]))
        #expect(try Self.keeperCount(test.path) == 0)
        #expect(try test.allHistory().map(\.token) == [tokens[1]])
    }

    @Test func sqliteShellWritesAfterAllHistoryIsDeletedGetLaterIDs() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.insertPackage("b")
        let highest = try #require(try Self.changeIDs(test.store).max())
        try test.store.deleteHistory(.through(try #require(try test.store.currentToken())))

        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('shell-1');")
        try SQLiteShell.run(test.path, "UPDATE Package SET summary = 'shell' WHERE name = 'a'; DELETE FROM Package WHERE name = 'b';")
        try test.insertPackage("app")
        let history = try test.allHistory()
        #expect(history.map(\.author) == [nil, "app"])
        let ids = history.flatMap { $0.changes.map(\.changeID) }
        #expect(history[0].changes.map(\.changeType) == [.insert, .update, .delete])
        #expect(ids.count == 4)
        #expect(ids.allSatisfy { $0 > highest })
        #expect(ids == ids.sorted())
    }

    /// Deleting history rows is Spotlite's job, but a program that deletes the newest changes directly does not
    /// make Spotlite hand their ids out again: the next write or seal leaves a keeper first.
    @Test func idsStayAboveChangesAnotherProgramDeleted() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.insertPackage("b")
        let highest = try #require(try Self.changeIDs(test.store).max())
        try SQLiteShell.run(test.path, "DELETE FROM spotlite_change; DELETE FROM spotlite_transaction;")
        try test.insertPackage("c")
        #expect(try Self.changeIDs(test.store).allSatisfy { $0 > highest })
    }
}

/// Stores written before history schema 2 (`spotlite_change.id` with `AUTOINCREMENT`) are upgraded when opened.
@Suite("Upgrading the change table of version 1 stores", .blockingWork)
struct ChangeTableUpgradeTests {
    /// The model of the version 1 store.
    static let model = StoreModel(entities: [Fixtures.package])

    /// Version 1 of Spotlite's history tables, as that version created them.
    static let version1Schema = """
        CREATE TABLE spotlite_meta ("key" TEXT PRIMARY KEY NOT NULL, value);
        CREATE TABLE spotlite_transaction (
            token INTEGER PRIMARY KEY AUTOINCREMENT,
            timestamp REAL NOT NULL,
            author TEXT,
            context TEXT,
            pid INTEGER);
        CREATE INDEX spotlite_transaction_timestamp ON spotlite_transaction(timestamp);
        CREATE TABLE spotlite_change (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            token INTEGER,
            entity TEXT NOT NULL,
            "key",
            type INTEGER NOT NULL,
            columns TEXT,
            tombstone TEXT,
            ts REAL);
        CREATE INDEX spotlite_change_token ON spotlite_change(token);
        CREATE TABLE spotlite_current (id INTEGER PRIMARY KEY CHECK (id = 1), token INTEGER);
        INSERT INTO spotlite_current (id, token) VALUES (1, NULL);
        CREATE TABLE spotlite_position (
            author TEXT PRIMARY KEY NOT NULL,
            token INTEGER NOT NULL,
            timestamp REAL NOT NULL);
        INSERT INTO spotlite_meta ("key", value) VALUES ('history_schema_version', 1), ('store_id', 'version-1-store');
        """

    /// An attributed write as version 1 recorded it: a transaction row, the triggers pointed at it, the rows.
    static func write(author: String, timestamp: Int, _ statements: String) -> String {
        """
        BEGIN IMMEDIATE;
        INSERT INTO spotlite_transaction (timestamp, author, context, pid) VALUES (\(timestamp), '\(author)', NULL, 1);
        UPDATE spotlite_current SET token = last_insert_rowid() WHERE id = 1;
        \(statements)
        UPDATE spotlite_current SET token = NULL WHERE id = 1;
        INSERT INTO spotlite_meta ("key", value) VALUES ('sealed_through_change', (SELECT max(id) FROM spotlite_change))
            ON CONFLICT("key") DO UPDATE SET value = excluded.value;
        COMMIT;
        """
    }

    /// A version 1 store made by the `sqlite3` shell: three transactions (changes 1 to 5), then the newest one
    /// (changes 4 and 5, by the importer) deleted as version 1 deleted history, so `AUTOINCREMENT` alone
    /// remembered that ids 4 and 5 were given.
    static func makeVersion1Store(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("version1.sqlite")
        let table = EntitySchema.createTableSQL(Fixtures.package)
        let columns = Fixtures.package.columns.map(\.name)
        let triggers = HistoryTriggers.definitions(for: Fixtures.package, columns: columns).map { $0.sql + ";" }
        try SQLiteShell.run(path, "PRAGMA journal_mode = WAL;\n" + version1Schema + "\n" + table + ";\n" + triggers.joined(separator: "\n"))
        try SQLiteShell.run(path, [
            write(author: "app", timestamp: 1000, "INSERT INTO Package (name, summary) VALUES ('p1', 'one'), ('p2', 'two');"),
            write(author: "app", timestamp: 1001, "DELETE FROM Package WHERE name = 'p2';"),
            write(author: "importer", timestamp: 1002,
                  "INSERT INTO Package (name) VALUES ('p3'); UPDATE Package SET summary = 'first' WHERE name = 'p1';"),
            """
            DELETE FROM spotlite_change WHERE token IN (SELECT token FROM spotlite_transaction WHERE author = 'importer');
            DELETE FROM spotlite_transaction WHERE author = 'importer';
            INSERT INTO spotlite_meta ("key", value) VALUES ('purged_through', 3);
            """,
        ].joined(separator: "\n"))
        return path
    }

    @Test func upgradeKeepsHistoryAndIDsContinueAboveTheOldSequence() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        #expect(try SQLiteShell.run(path, "SELECT max(id), (SELECT seq FROM sqlite_sequence WHERE name = 'spotlite_change') FROM spotlite_change;")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "3|5")

        let store = try SpotliteStore(path: path, model: Self.model)
        #expect(try store.captureGap().count == 0, "the triggers stayed in place through the upgrade")
        let version = try SQLiteShell.run(path, "SELECT value FROM spotlite_meta WHERE \"key\" = 'history_schema_version';")
        #expect(version.trimmingCharacters(in: .whitespacesAndNewlines) == String(HistorySchema.version))
        let sql = try SQLiteShell.run(path, "SELECT sql FROM sqlite_master WHERE name = 'spotlite_change';")
        #expect(!sql.contains("AUTOINCREMENT"))
        let indexes = try SQLiteShell.run(path, "SELECT name FROM sqlite_master WHERE tbl_name = 'spotlite_change';")
        #expect(indexes.contains("spotlite_change_pending") && !indexes.contains("spotlite_change_token"), "upgraded on to schema 3")
        #expect(store.storeID == "version-1-store")

        // The retained history is intact, ids included.
        let retained = try store.fetchHistory(.allRetained)
        #expect(retained.map(\.author) == ["app", "app"])
        #expect(retained.flatMap { $0.changes.map(\.changeID) } == [1, 2, 3])
        #expect(retained[1].changes.first?.tombstone == ["name": "p2".databaseValue, "summary": "two".databaseValue])
        #expect(try store.historyStatistics().changes == 3)
        #expect(throws: SpotliteStoreError.self) { try store.fetchHistory(.after(HistoryToken(1))) }

        // Ids 4 and 5 were given before the upgrade: new changes come after them, whoever writes.
        try store.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('p4')") }
        try SQLiteShell.run(path, "INSERT INTO Package (name) VALUES ('shell');")
        let newer = try store.fetchHistory(.after(HistoryToken(3))).flatMap { $0.changes.map(\.changeID) }
        #expect(newer == [6, 7])
        #expect(try #require(try store.currentToken()) > HistoryToken(3), "tokens continue above the deleted transaction")

        // And after deleting everything.
        try store.deleteHistory(.through(try #require(try store.currentToken())))
        try store.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('p5')") }
        #expect(try ChangeIDTests.changeIDs(store) == [8])
    }

    @Test func reopeningAnUpgradedStoreChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        _ = try SpotliteStore(path: path, model: Self.model)
        let dump = try SQLiteShell.run(path, "SELECT * FROM spotlite_change ORDER BY id;")
        let store = try SpotliteStore(path: path, model: Self.model)
        #expect(try SQLiteShell.run(path, "SELECT * FROM spotlite_change ORDER BY id;") == dump)
        try store.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('p4')") }
        #expect(try ChangeIDTests.changeIDs(store) == [1, 2, 3, 6])
    }

    @Test func aReadOnlyHandleReadsAVersion1StoreWithoutUpgradingIt() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        let reader = try SpotliteStore(path: path, model: Self.model, options: StoreOptions(readOnly: true))
        #expect(try ChangeIDTests.changeIDs(reader) == [1, 2, 3])
        let sql = try SQLiteShell.run(path, "SELECT sql FROM sqlite_master WHERE name = 'spotlite_change';")
        #expect(sql.contains("AUTOINCREMENT"))
    }
}

import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("Opening a store", .blockingWork)
struct StoreOpeningTests {
    @Test func createsTablesWithTheModelsColumnsInWALMode() throws {
        let test = try TestStore()
        let (journal, columns, itemKeyIsRowID) = try test.store.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Row.fetchAll(db, sql: "PRAGMA table_info(Package)").map { "\($0["name"] as String) \($0["type"] as String)" },
                try Int.fetchOne(db, sql: "SELECT pk FROM pragma_table_info('Item') WHERE name = 'id'")
            )
        }
        #expect(journal == "wal")
        #expect(columns == ["name TEXT", "summary TEXT", "section TEXT", "size INTEGER"])
        #expect(itemKeyIsRowID == 1)
        let version = try test.store.read { db in
            try Int.fetchOne(db, sql: "SELECT value FROM spotlite_meta WHERE key = 'history_schema_version'")
        }
        #expect(version == HistorySchema.version)
    }

    @Test func storeIDIsStableAcrossHandlesAndNewForANewFile() throws {
        let test = try TestStore()
        let reopened = try test.reopen()
        #expect(reopened.storeID == test.store.storeID)
        #expect(UUID(uuidString: test.store.storeID) != nil)
        let other = try TestStore()
        #expect(other.store.storeID != test.store.storeID)
    }

    @Test func pathIsStandardized() throws {
        let test = try TestStore()
        let messy = test.directory.url.path + "/./sub/../store.sqlite"
        let store = try SpotliteStore(path: messy, model: Fixtures.model)
        #expect(store.path == test.path)
        #expect(store.storeID == test.store.storeID)
    }

    @Test func missingDirectoryIsAnError() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("no/such/folder")
        let error = #expect(throws: SpotliteStoreError.missingDirectory(path: missing)) {
            try SpotliteStore(path: missing + "/store.sqlite", model: Fixtures.model)
        }
        #expect(error?.recovery == .createFolder(path: missing))
    }

    @Test func existingTableThatDoesNotFitNamesTableAndColumns() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        try SQLiteShell.run(path, "CREATE TABLE Package (name TEXT PRIMARY KEY, summary TEXT, size TEXT);")
        let error = #expect(throws: SpotliteStoreError.self) { try SpotliteStore(path: path, model: Fixtures.model) }
        #expect(error == .schemaMismatch(
            table: "Package", missingColumns: ["section"],
            mismatchedColumns: [.init(column: "size", expected: .integer, declaredType: "TEXT")]))
        let text = error?.description ?? ""
        #expect(text.contains("Package") && text.contains("section") && text.contains("size"))
        #expect(text.contains("ALTER TABLE"))
        // Nothing was left half-done: the history tables were not created.
        let tables = try SQLiteShell.run(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'spotlite%';")
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func existingTableWithExtraColumnsIsTrackedOnEveryColumn() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        try SQLiteShell.run(path, """
            CREATE TABLE Package (name VARCHAR(80) PRIMARY KEY NOT NULL, summary TEXT, section TEXT, size INT, notes TEXT);
            INSERT INTO Package (name) VALUES ('existing');
            """)
        let store = try SpotliteStore(path: path, model: StoreModel(entities: [Fixtures.package]))
        try store.write(author: "app") { db in try db.execute(sql: "UPDATE Package SET notes = 'extra'") }
        let change = try #require(try store.fetchHistory(.after(nil)).first?.changes.first)
        #expect(change.updatedColumns == ["notes"])
        #expect(change.key == "existing".databaseValue)
    }

    @Test func columnAddedLaterIsTrackedAfterReopening() throws {
        let test = try TestStore()
        try test.insertPackage("zsh")
        try test.store.write(author: "app") { db in try db.execute(sql: "ALTER TABLE Package ADD COLUMN homepage TEXT") }
        let reopened = try test.reopen()
        try reopened.write(author: "app") { db in try db.execute(sql: "UPDATE Package SET homepage = 'https://zsh.org'") }
        #expect(try reopened.fetchHistory(.after(nil)).last?.changes.first?.updatedColumns == ["homepage"])
    }

    @Test func changedTombstoneColumnsReplaceTheTriggers() throws {
        let test = try TestStore()
        var package = Fixtures.package
        package.preserveOnDelete = ["section"]
        let reopened = try test.reopen(model: StoreModel(entities: [package, Fixtures.item]))
        try reopened.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Package (name, section) VALUES ('zsh', 'shells')")
        }
        try reopened.write(author: "app") { db in try db.execute(sql: "DELETE FROM Package") }
        #expect(try reopened.fetchHistory(.after(nil)).last?.changes.first?.tombstone == ["section": "shells".databaseValue])
    }

    @Test func keyWithoutUniquenessIsRejected() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        try SQLiteShell.run(path, "CREATE TABLE Package (name TEXT, summary TEXT, section TEXT, size INTEGER);")
        #expect(throws: SpotliteStoreError.keyNotUnique(table: "Package", column: "name")) {
            try SpotliteStore(path: path, model: StoreModel(entities: [Fixtures.package]))
        }
        try SQLiteShell.run(path, "CREATE UNIQUE INDEX package_name ON Package(name);")
        let store = try SpotliteStore(path: path, model: StoreModel(entities: [Fixtures.package]))
        try store.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('zsh')") }
        #expect(try store.countChanges(.after(nil)) == 1)
    }

    @Test func viewIsNotAnEntity() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        try SQLiteShell.run(path, "CREATE VIEW Package AS SELECT 1 AS name;")
        #expect(throws: SpotliteStoreError.notATable("Package", kind: "view")) {
            try SpotliteStore(path: path, model: StoreModel(entities: [Fixtures.package]))
        }
    }

    @Test func newerHistorySchemaIsRefused() throws {
        let test = try TestStore()
        try test.store.write(author: nil) { db in
            try db.execute(sql: "UPDATE spotlite_meta SET value = 99 WHERE key = 'history_schema_version'")
        }
        #expect(throws: SpotliteStoreError.unsupportedHistorySchema(found: 99, supported: HistorySchema.version)) {
            try test.reopen()
        }
        #expect(throws: SpotliteStoreError.unsupportedHistorySchema(found: 99, supported: HistorySchema.version)) {
            try test.reopen(options: StoreOptions(readOnly: true))
        }
    }

    @Test func readOnlyStoreRequiresAnExistingSpotliteFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.sqlite")
        #expect(throws: SpotliteStoreError.missingStore(path: missing)) {
            try SpotliteStore(path: missing, model: Fixtures.model, options: StoreOptions(readOnly: true))
        }
        let plain = directory.path("plain.sqlite")
        try SQLiteShell.run(plain, "PRAGMA journal_mode = WAL; CREATE TABLE t (x);")
        #expect(throws: SpotliteStoreError.notASpotliteStore(path: plain)) {
            try SpotliteStore(path: plain, model: Fixtures.model, options: StoreOptions(readOnly: true))
        }
    }

    @Test func readOnlyStoreOpensAFileNoOtherHandleHasOpen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        do {
            let writer = try SpotliteStore(path: path, model: Fixtures.model)
            try writer.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('zsh')") }
        }
        let reader = try SpotliteStore(path: path, model: Fixtures.model, options: StoreOptions(readOnly: true))
        #expect(try reader.fetchHistory(.after(nil)).first?.author == "app")
    }

    @Test func readOnlyStoreRequiresTheModelsTables() throws {
        let test = try TestStore(model: StoreModel(entities: [Fixtures.package]))
        #expect(throws: SpotliteStoreError.missingTable("Item")) {
            try test.reopen(model: Fixtures.model, options: StoreOptions(readOnly: true))
        }
    }

    @Test func readOnlyStoreRefusesWrites() throws {
        let test = try TestStore()
        try test.insertPackage("zsh")
        let reader = try test.reopen(options: StoreOptions(readOnly: true))
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .write)) {
            try reader.write(author: "app") { db in try db.execute(sql: "DELETE FROM Package") }
        }
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .sealPendingChanges)) { try reader.sealPendingChanges() }
        #expect(try reader.fetchHistory(.after(nil)).count == 1)
        #expect(try reader.currentToken() == test.store.currentToken())
        #expect(try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Package") } == 1)
    }
}

@Suite("Model validation", .blockingWork)
struct ModelValidationTests {
    func open(_ entities: [EntityDescription]) throws {
        let directory = try TemporaryDirectory()
        _ = try SpotliteStore(path: directory.path("store.sqlite"), model: StoreModel(entities: entities))
    }

    @Test func invalidIdentifiersAreRejected() throws {
        #expect(throws: SpotliteStoreError.invalidIdentifier("1abc", role: .entityName)) {
            try open([EntityDescription(name: "1abc", key: "id")])
        }
        #expect(throws: SpotliteStoreError.invalidIdentifier("bad-name", role: .attribute(entity: "Thing"))) {
            try open([EntityDescription(name: "Thing", key: "id", attributes: [AttributeDescription(name: "bad-name")])])
        }
        #expect(throws: SpotliteStoreError.invalidIdentifier("", role: .key(entity: "Thing"))) {
            try open([EntityDescription(name: "Thing", key: "")])
        }
        #expect(throws: SpotliteStoreError.invalidIdentifier("Thing\"; DROP TABLE x; --", role: .entityName)) {
            try open([EntityDescription(name: "Thing\"; DROP TABLE x; --", key: "id")])
        }
    }

    @Test func reservedPrefixIsRejectedForTables() throws {
        let error = #expect(throws: SpotliteStoreError.reservedIdentifier("Spotlite_change", role: .entityName)) {
            try open([EntityDescription(name: "Spotlite_change", key: "id")])
        }
        #expect(error?.recovery == .rename)
    }

    @Test("columns follow the same rules as the configuration: no reserved prefix, no SQLite or importer name, 64 at most")
    func reservedColumnsAndLongNamesAreRejected() throws {
        for name in ["spotlite_rev", "SQLITE_x", "rowid", "OID", "_rowid_", "_delete"] {
            let error = #expect(throws: SpotliteStoreError.reservedIdentifier(name, role: .attribute(entity: "Thing"))) {
                try open([EntityDescription(name: "Thing", key: "id", attributes: [AttributeDescription(name: name)])])
            }
            #expect(error?.recovery == .rename, "\(name)")
        }
        #expect(throws: SpotliteStoreError.reservedIdentifier("sqlite_notes", role: .entityName)) {
            try open([EntityDescription(name: "sqlite_notes", key: "id")])
        }
        let long = String(repeating: "n", count: 65)
        let error = #expect(throws: SpotliteStoreError.invalidIdentifier(long, role: .entityName)) {
            try open([EntityDescription(name: long, key: "id")])
        }
        #expect(error?.recovery == .useValidIdentifier)
        try open([EntityDescription(name: String(repeating: "n", count: 64), key: "id",
                                    attributes: [AttributeDescription(name: "rowid_copy")])])
    }

    @Test func duplicateNamesDifferingOnlyByCaseAreRejected() throws {
        #expect(throws: SpotliteStoreError.duplicateName("package", scope: .entities)) {
            try open([EntityDescription(name: "Package", key: "id"), EntityDescription(name: "package", key: "id")])
        }
        #expect(throws: SpotliteStoreError.duplicateName("Label", scope: .attributes(entity: "Thing"))) {
            try open([EntityDescription(
                name: "Thing", key: "id", attributes: [AttributeDescription(name: "label"), AttributeDescription(name: "Label")])])
        }
    }

    @Test func tombstoneColumnsMustExistAndNotBeBlobs() throws {
        #expect(throws: SpotliteStoreError.unknownColumn("missing", entity: "Thing", role: .preserveOnDelete)) {
            try open([EntityDescription(name: "Thing", key: "id", preserveOnDelete: ["missing"])])
        }
        #expect(throws: SpotliteStoreError.blobInTombstone(entity: "Thing", column: "data")) {
            try open([EntityDescription(
                name: "Thing", key: "id", attributes: [AttributeDescription(name: "data", type: .blob)],
                preserveOnDelete: ["data"])])
        }
    }

    @Test func keyListedAsAttributeMustAgreeOnType() throws {
        #expect(throws: SpotliteStoreError.conflictingKeyType(entity: "Thing", key: "id", keyType: .integer, attributeType: .text)) {
            try open([EntityDescription(
                name: "Thing", key: "id", keyType: .integer, attributes: [AttributeDescription(name: "id", type: .text)])])
        }
        // Listing it with the same type is fine, and the column is created once.
        let directory = try TemporaryDirectory()
        let entity = EntityDescription(
            name: "Thing", key: "id", keyType: .integer,
            attributes: [AttributeDescription(name: "id", type: .integer), AttributeDescription(name: "label")])
        let store = try SpotliteStore(path: directory.path("store.sqlite"), model: StoreModel(entities: [entity]))
        let columns = try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Thing')") }
        #expect(columns == ["id", "label"])
    }

    @Test func entityLookupByName() {
        #expect(Fixtures.model.entity(named: "Item")?.key == "id")
        #expect(Fixtures.model.entity(named: "Nope") == nil)
    }
}

import Foundation
import GRDB
import Synchronization
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// A failure a test injects into a stage.
struct InjectedFailure: Error, CustomStringConvertible {
    var description: String { "injected failure" }
}

@Suite("Migrating stores", .blockingWork)
struct MigrationStoreTests {
    /// A v1 store with three notes written by the app, closed again.
    private static func makeVersion1Store(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("store.sqlite")
        let store = try SpotliteStore(path: path, migrationManager: try StagedMigrationManager(version: NoteVersions.v1))
        try store.write(author: "app") { db in
            for (id, title) in [(1, "groceries"), (2, "ideas"), (3, "travel")] {
                try db.execute(sql: "INSERT INTO Note (id, title, body, legacy) VALUES (?, ?, ?, ?)",
                               arguments: [id, title, "body of \(title)", "old \(id)"])
            }
        }
        return path
    }

    private static func columns(of table: String, in store: SpotliteStore) throws -> [String] {
        try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) }
    }

    @Test func aNewStoreIsCreatedAtTheNewestVersion() throws {
        let directory = try TemporaryDirectory()
        let manager = try StagedMigrationManager(NoteVersions.lightweightStages())
        let store = try SpotliteStore(path: directory.path("store.sqlite"), migrationManager: manager)
        #expect(try store.currentModelVersion() == NoteVersions.v3.id)
        #expect(try Self.columns(of: "Memo", in: store) == ["id", "heading", "body", "tags"])
        #expect(try store.read { db in try db.tableExists("Note") } == false)
        let log = try store.migrationLog()
        #expect(log.map(\.event) == [.created])
        #expect(log.first?.to == NoteVersions.v3.id)
        #expect(log.first?.from == nil)
        #expect(store.model == NoteVersions.v3.model)
    }

    @Test func aPlainStoreRecordsNoVersion() throws {
        let test = try TestStore()
        #expect(try test.store.currentModelVersion() == nil)
        #expect(try test.store.migrationLog().isEmpty)
    }

    @Test func lightweightStagesKeepRowsAndHistoryAndRefitCapture() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        let historyBefore = try SpotliteStore(path: path, model: NoteVersions.v1.model).fetchHistory(.allRetained)

        let store = try SpotliteStore(path: path, migrationManager: try StagedMigrationManager(NoteVersions.lightweightStages()))
        #expect(try store.currentModelVersion() == NoteVersions.v3.id)
        #expect(try Self.columns(of: "Memo", in: store) == ["id", "heading", "body", "tags"])
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, heading, body, tags FROM Memo ORDER BY id")
        }
        #expect(rows.map { $0["heading"] as String } == ["groceries", "ideas", "travel"])
        #expect(rows.map { $0["body"] as String } == ["body of groceries", "body of ideas", "body of travel"])
        #expect(rows.allSatisfy { ($0["tags"] as String?) == nil })
        #expect(try store.read { db in try db.tableExists("Folder") || db.tableExists("Note") } == false)

        // Nothing of the old history is lost, and schema-only stages add no transaction.
        #expect(try store.fetchHistory(.allRetained) == historyBefore)
        let log = try store.migrationLog()
        #expect(log.map(\.event) == [.created, .lightweight, .lightweight])
        #expect(log.dropFirst().map { "\($0.from!.name)→\($0.to.name)" } == ["v1→v2", "v2→v3"])
        #expect(log.dropFirst().allSatisfy { $0.token == nil })

        // Capture now fits the new tables: the renamed entity and the added and renamed columns are recorded.
        let last = historyBefore.last!.token
        try store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Memo SET tags = 'home', heading = 'food' WHERE id = 1")
            try db.execute(sql: "DELETE FROM Memo WHERE id = 3")
        }
        let changes = try store.fetchChanges(.after(last))
        #expect(changes.map(\.entity) == ["Memo", "Memo"])
        #expect(changes.first?.updatedColumns == ["heading", "tags"])
        #expect(changes.last?.changeType == .delete)
        let triggers = try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name NOT LIKE 'spotlite%' ORDER BY name")
        }
        #expect(triggers == ["spotlite_Memo_delete", "spotlite_Memo_insert", "spotlite_Memo_rekey", "spotlite_Memo_update"])
    }

    @Test func customStageRunsAroundTheSchemaChangeAndRecordsItsChangesUnderTheMigrationAuthor() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        // A foreign writer's change waits unsealed: it must stay apart from the migration's changes.
        try SQLiteShell.run(path, "UPDATE Note SET body = 'edited in the shell' WHERE id = 2;")
        let seen = Mutex<[String]>([])
        let stage = MigrationStage.custom(
            migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle],
            willMigrate: { db in
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Note')")
                seen.withLock { $0.append("will: " + columns.joined(separator: ",")) }
                // Legacy values move into the body before the column goes.
                try db.execute(sql: "UPDATE Note SET body = body || ' / ' || legacy WHERE legacy IS NOT NULL")
            },
            didMigrate: { db in
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Note')")
                seen.withLock { $0.append("did: " + columns.joined(separator: ",")) }
                try db.execute(sql: "INSERT INTO Folder (id, name) VALUES ('inbox', 'Inbox')")
                try db.execute(sql: "UPDATE Note SET tags = 'inbox'")
            })
        let store = try SpotliteStore(path: path, migrationManager: try StagedMigrationManager([stage]))

        #expect(seen.withLock { $0 } == ["will: id,title,body,legacy", "did: id,heading,body,tags"])
        let bodies = try store.read { db in try String.fetchAll(db, sql: "SELECT body FROM Note ORDER BY id") }
        #expect(bodies == ["body of groceries / old 1", "edited in the shell / old 2", "body of travel / old 3"])

        let history = try store.fetchHistory(.allRetained)
        #expect(history.map(\.author) == ["app", nil, StagedMigrationManager.author])
        #expect(history[1].changes.map(\.entity) == ["Note"])
        let migration = try #require(history.last)
        #expect(migration.contextName == "migration v1 → v2")
        let summary = migration.changes.map { "\($0.changeType) \($0.entity) \($0.key.storage)" }
        #expect(summary.filter { $0.hasPrefix("update Note") }.count == 6, "\(summary)")
        #expect(migration.changes.filter { $0.entity == "Folder" }.map(\.changeType) == [.insert])
        // Updates made after the schema change name the new columns.
        #expect(migration.changes.last?.updatedColumns == ["tags"])
        #expect(try store.migrationLog().last?.token == migration.token)
        #expect(try store.migrationLog().last?.event == .custom)
    }

    @Test func aFailingStageLeavesTheStoreAtThePreviousVersionAndTheNextOpenResumes() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        let failing = Atomic<Bool>(true)
        let stages: [MigrationStage] = [
            .custom(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle],
                    didMigrate: { db in try db.execute(sql: "INSERT INTO Folder (id, name) VALUES ('inbox', 'Inbox')") }),
            .custom(migratingFrom: NoteVersions.v2, to: NoteVersions.v3, renames: [NoteVersions.renameNote],
                    didMigrate: { db in
                        try db.execute(sql: "UPDATE Memo SET tags = 'migrated'")
                        if failing.load(ordering: .relaxed) { throw InjectedFailure() }
                    }),
        ]
        let manager = try StagedMigrationManager(stages)
        let error = #expect(throws: SpotliteStoreError.stageFailed(stage: "v2 → v3", phase: .didMigrate, message: "injected failure")) {
            try SpotliteStore(path: path, migrationManager: manager)
        }
        #expect(error?.recovery == .fixStageAndReopen)

        // Stage 1 committed; stage 2 left no trace: not its rename, not its updates, not its history.
        let between = try SpotliteStore(path: path, model: NoteVersions.v2.model)
        #expect(try between.currentModelVersion() == NoteVersions.v2.id)
        #expect(try between.read { db in try db.tableExists("Memo") } == false)
        #expect(try between.read { db in try String.fetchAll(db, sql: "SELECT name FROM Folder") } == ["Inbox"])
        #expect(try between.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Note WHERE tags IS NOT NULL") } == 0)
        let migrationTransactions = try between.fetchHistory(.allRetained).filter { $0.author == StagedMigrationManager.author }
        #expect(migrationTransactions.map(\.contextName) == ["migration v1 → v2"])
        #expect(try between.read { db in try Int.fetchOne(db, sql: "SELECT token FROM spotlite_current") } == nil)
        let status = try manager.status(ofStoreAtPath: path)
        #expect(status.storeVersion == NoteVersions.v2.id)
        #expect(status.pendingStages.map(\.name) == ["v2 → v3"])

        failing.store(false, ordering: .relaxed)
        let store = try SpotliteStore(path: path, migrationManager: manager)
        #expect(try store.currentModelVersion() == NoteVersions.v3.id)
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT tags FROM Memo") } == ["migrated"])
        let contexts = try store.fetchHistory(.allRetained).filter { $0.author == StagedMigrationManager.author }.map(\.contextName)
        #expect(contexts == ["migration v1 → v2", "migration v2 → v3"])
        #expect(try store.migrationLog().map(\.event) == [.created, .custom, .custom])
    }

    @Test(arguments: [SpotliteStoreError.MigrationPhase.willMigrate, .schemaChange])
    func failuresNameTheirPhase(phase: SpotliteStoreError.MigrationPhase) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        let stage: MigrationStage
        if phase == .willMigrate {
            stage = .custom(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle],
                            willMigrate: { _ in throw InjectedFailure() })
        } else {
            // An index on a column blocks SQLite's DROP COLUMN: a real failure of the schema change.
            try SQLiteShell.run(path, "CREATE INDEX Note_legacy ON Note(legacy);")
            stage = .lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle])
        }
        let error = #expect(throws: SpotliteStoreError.self) {
            try SpotliteStore(path: path, migrationManager: try StagedMigrationManager([stage]))
        }
        guard case let .stageFailed(name, failedPhase, message)? = error else {
            Issue.record("expected stageFailed, got \(String(describing: error))")
            return
        }
        #expect(name == "v1 → v2")
        #expect(failedPhase == phase)
        if phase == .schemaChange { #expect(message.contains("legacy")) }
        let store = try SpotliteStore(path: path, model: NoteVersions.v1.model)
        #expect(try store.currentModelVersion() == NoteVersions.v1.id)
        #expect(try Self.columns(of: "Note", in: store) == ["id", "title", "body", "legacy"])
        // Capture of the old schema is intact after the rollback.
        try store.write(author: "app") { db in try db.execute(sql: "UPDATE Note SET legacy = 'x' WHERE id = 1") }
        #expect(try store.fetchChanges(.allRetained).last?.updatedColumns == ["legacy"])
    }

    // MARK: - Versions the app does not reach

    @Test func aStoreNewerThanTheAppIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        _ = try SpotliteStore(path: path, migrationManager: try StagedMigrationManager(NoteVersions.lightweightStages()))
        let olderApp = try StagedMigrationManager([
            .lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle])])
        let error = #expect(throws: SpotliteStoreError.storeIsNewer(store: NoteVersions.v3.id, newest: NoteVersions.v2.id)) {
            try SpotliteStore(path: path, migrationManager: olderApp)
        }
        #expect(error?.recovery == .useNewerApp)
        #expect(throws: SpotliteStoreError.self) { try olderApp.status(ofStoreAtPath: path) }
    }

    @Test func aVersionNoStageStartsFromIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        let laterStagesOnly = try StagedMigrationManager([
            .lightweight(migratingFrom: NoteVersions.v2, to: NoteVersions.v3, renames: [NoteVersions.renameNote])])
        let error = #expect(throws: SpotliteStoreError.unknownStoreVersion(NoteVersions.v1.id, known: ["v2", "v3"])) {
            try SpotliteStore(path: path, migrationManager: laterStagesOnly)
        }
        #expect(error?.recovery == .addStage(from: "v1"))
        // Nothing was touched.
        #expect(try SpotliteStore(path: path, model: NoteVersions.v1.model).currentModelVersion() == NoteVersions.v1.id)
    }

    @Test func aVersionWhoseModelChangedIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        var edited = NoteVersions.v1
        edited.model.entities[0].attributes.append(AttributeDescription(name: "extra", type: .text))
        let error = #expect(throws: SpotliteStoreError.checksumMismatch(
            version: "v1", store: NoteVersions.v1.checksum, model: edited.checksum)) {
            try SpotliteStore(path: path, migrationManager: try StagedMigrationManager(version: edited))
        }
        #expect(error?.recovery == .restoreVersionModel)
    }

    // MARK: - Stores that record no version

    @Test func anUnversionedStoreIsRecognisedByItsTablesAndMigrated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let plain = try SpotliteStore(path: path, model: NoteVersions.v1.model)
        try plain.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Note (id, title, body, legacy) VALUES (1, 'a', 'b', 'c')")
        }
        let manager = try StagedMigrationManager(NoteVersions.lightweightStages())
        let status = try manager.status(ofStoreAtPath: path)
        #expect(status.recordedVersion == nil)
        #expect(status.storeVersion == NoteVersions.v1.id)
        #expect(status.pendingStages.count == 2)
        #expect(try plain.currentModelVersion() == nil, "status must not record anything")

        let records = try manager.migrateStore(atPath: path)
        #expect(records.map(\.event) == [.adopted, .lightweight, .lightweight])
        #expect(records.first?.to == NoteVersions.v1.id)
        #expect(try plain.currentModelVersion() == NoteVersions.v3.id)
        #expect(try plain.read { db in try String.fetchOne(db, sql: "SELECT heading FROM Memo WHERE id = 1") } == "a")
        #expect(try manager.migrateStore(atPath: path).isEmpty, "a second run has nothing to do")
    }

    @Test func anUnversionedStoreThatMatchesNoVersionNeedsToBeNamed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        try SQLiteShell.run(path, "CREATE TABLE Note (id INTEGER PRIMARY KEY, title TEXT, body TEXT, legacy TEXT, extra TEXT);")
        let manager = try StagedMigrationManager(NoteVersions.lightweightStages())
        let error = #expect(throws: SpotliteStoreError.unrecognizedSchema(path: path, matching: [], known: ["v1", "v2", "v3"])) {
            try manager.migrateStore(atPath: path)
        }
        #expect(error?.recovery == .assumeVersion(tablesMatchSeveral: false))
        #expect(throws: SpotliteStoreError.unknownVersionName("v7", known: ["v1", "v2", "v3"])) {
            try manager.migrateStore(atPath: path, assumingVersion: "v7")
        }

        let records = try manager.migrateStore(atPath: path, assumingVersion: "v1")
        #expect(records.map(\.event) == [.adopted, .lightweight, .lightweight])
        let store = try SpotliteStore(path: path, migrationManager: manager)
        // The extra column is the app's business: it is kept, and tracked.
        #expect(try Self.columns(of: "Memo", in: store) == ["id", "heading", "body", "extra", "tags"])
    }

    @Test func anUnversionedStoreThatMatchesSeveralVersionsNeedsToBeNamed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        _ = try SpotliteStore(path: path, model: NoteVersions.v1.model)
        let sameShape = ModelVersion(name: "v1-fixed", model: NoteVersions.v1.model)
        let manager = try StagedMigrationManager([.custom(migratingFrom: NoteVersions.v1, to: sameShape, didMigrate: { _ in })])
        #expect(throws: SpotliteStoreError.unrecognizedSchema(path: path, matching: ["v1", "v1-fixed"], known: ["v1", "v1-fixed"])) {
            try manager.migrateStore(atPath: path)
        }
        #expect(try manager.migrateStore(atPath: path, assumingVersion: "v1-fixed").map(\.event) == [.adopted])
    }

    // MARK: - Read-only, status and concurrency

    @Test func aReadOnlyStoreThatNeedsMigratingIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        let manager = try StagedMigrationManager(NoteVersions.lightweightStages())
        let error = #expect(throws: SpotliteStoreError.migrationRequired(store: NoteVersions.v1.id, newest: NoteVersions.v3.id)) {
            try SpotliteStore(path: path, migrationManager: manager, options: StoreOptions(readOnly: true))
        }
        #expect(error?.recovery == .migrate)
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .migrate)) {
            try manager.migrateStore(atPath: path, options: StoreOptions(readOnly: true))
        }
        try manager.migrateStore(atPath: path)
        let reader = try SpotliteStore(path: path, migrationManager: manager, options: StoreOptions(readOnly: true))
        #expect(try reader.currentModelVersion() == NoteVersions.v3.id)
    }

    @Test func statusOfAMissingStoreSaysItWillBeCreated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let status = try StagedMigrationManager(NoteVersions.lightweightStages()).status(ofStoreAtPath: path)
        #expect(!status.storeExists)
        #expect(status.isUpToDate)
        #expect(status.storeVersion == nil)
        #expect(status.newestVersion == NoteVersions.v3.id)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aMissingFolderIsAStoreError() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("absent")
        #expect(throws: SpotliteStoreError.missingDirectory(path: folder)) {
            try StagedMigrationManager(version: NoteVersions.v1).migrateStore(atPath: folder + "/store.sqlite")
        }
    }

    @Test func concurrentOpenersRunEachStageOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeVersion1Store(in: directory)
        let runs = Atomic<Int>(0)
        let manager = try StagedMigrationManager([
            .custom(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle],
                    didMigrate: { db in
                        runs.add(1, ordering: .relaxed)
                        try db.execute(sql: "INSERT INTO Folder (id, name) VALUES ('inbox', 'Inbox')")
                    }),
            .lightweight(migratingFrom: NoteVersions.v2, to: NoteVersions.v3, renames: [NoteVersions.renameNote]),
        ])
        let results = try await withThrowingTaskGroup(of: [MigrationRecord].self) { group in
            for _ in 0..<4 {
                group.addTask { try manager.migrateStore(atPath: path, options: StoreOptions(busyTimeout: 60)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(results.flatMap { $0 }.map(\.event).sorted { $0.rawValue < $1.rawValue } == [.custom, .lightweight])
        let store = try SpotliteStore(path: path, migrationManager: manager)
        #expect(try store.migrationLog().map(\.event) == [.created, .custom, .lightweight])
    }
}

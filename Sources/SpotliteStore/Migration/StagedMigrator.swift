import Foundation
import GRDB

/// Runs a ``StagedMigrationManager``'s stages on one store file, one SQLite transaction per stage.
///
/// The version is read and the next stage chosen inside each stage's write transaction, so processes migrating the
/// same store at once take turns and never run a stage twice.
struct StagedMigrator {
    /// Runs inside a stage's transaction just before it commits: lets tests interrupt a stage at its last moment.
    typealias CommitHook = @Sendable (Database, MigrationStage) throws -> Void

    let manager: StagedMigrationManager
    let path: String
    let options: StoreOptions
    let assumedVersion: String?
    var beforeCommit: CommitHook?

    init(manager: StagedMigrationManager, path: String, options: StoreOptions, assumedVersion: String?,
         beforeCommit: CommitHook? = nil) {
        self.manager = manager
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        self.options = options
        self.assumedVersion = assumedVersion
        self.beforeCommit = beforeCommit
    }

    func migrate() throws -> [MigrationRecord] {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .migrate) }
        try checkDirectory()
        let pool = try openPool(readOnly: false)
        var records: [MigrationRecord] = []
        while let record = try pool.writeWithoutTransaction({ db in try step(db) }) {
            records.append(record)
            options.logger?.info("migrated \(path): \(record.event.rawValue) \(record.from.map { "\($0.name) → " } ?? "")\(record.to.name)")
        }
        return records
    }

    func status() throws -> MigrationStatus {
        let newest = manager.newestVersion.id
        guard FileManager.default.fileExists(atPath: path) else {
            return MigrationStatus(storeExists: false, recordedVersion: nil, storeVersion: nil, newestVersion: newest,
                                   pendingStages: [], log: [])
        }
        let pool = try openPool(readOnly: true)
        return try pool.read { db in
            let recorded = try MigrationLog.recordedVersion(db)
            let log = try MigrationLog.records(db)
            switch try manager.locate(in: db, path: path, assumedVersion: assumedVersion) {
            case .empty:
                return MigrationStatus(storeExists: true, recordedVersion: recorded, storeVersion: nil,
                                       newestVersion: newest, pendingStages: [], log: log)
            case let .at(index, _):
                return MigrationStatus(storeExists: true, recordedVersion: recorded,
                                       storeVersion: manager.versions[index].id, newestVersion: newest,
                                       pendingStages: Array(manager.stages[index...]), log: log)
            }
        }
    }

    private func checkDirectory() throws {
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SpotliteStoreError.missingDirectory(path: directory)
        }
    }

    private func openPool(readOnly: Bool) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.maximumReaderCount = 1
        configuration.label = "spotlite.migration"
        return try DatabasePool(path: path, configuration: configuration)
    }

    // MARK: - One step

    /// In one transaction: records the version of a new or unversioned store, or runs the next stage. Returns nil
    /// when the store is at the newest version.
    private func step(_ db: Database) throws -> MigrationRecord? {
        var record: MigrationRecord?
        try db.inTransaction(.immediate) {
            _ = try HistorySchema.install(db)
            try MigrationLog.install(db)
            switch try manager.locate(in: db, path: path, assumedVersion: assumedVersion) {
            case .empty:
                record = try create(manager.newestVersion, in: db)
            case let .at(index, recorded: false):
                record = try adopt(manager.versions[index], in: db)
            case let .at(index, recorded: true) where index < manager.stages.count:
                record = try run(manager.stages[index], in: db)
            case .at:
                record = nil
            }
            return .commit
        }
        return record
    }

    private func create(_ version: ModelVersion, in db: Database) throws -> MigrationRecord {
        try fitCapture(to: version.model, in: db)
        let record = MigrationRecord(event: .created, from: nil, to: version.id, token: nil, date: Date())
        try MigrationLog.append(record, in: db)
        return record
    }

    private func adopt(_ version: ModelVersion, in db: Database) throws -> MigrationRecord {
        try fitCapture(to: version.model, in: db)
        let record = MigrationRecord(event: .adopted, from: nil, to: version.id, token: nil, date: Date())
        try MigrationLog.append(record, in: db)
        return record
    }

    private func run(_ stage: MigrationStage, in db: Database) throws -> MigrationRecord {
        options.logger?.info("migrating \(path): stage \(stage)")
        let changes = try stage.schemaChanges()
        let token = try phase(.preparation, of: stage) {
            // Foreign changes made before the migration are theirs, not the migration's.
            _ = try HistoryRecorder.sealPendingChanges(db)
            try fitCapture(to: stage.currentVersion.model, in: db)
            return try HistoryRecorder.begin(db, author: StagedMigrationManager.author, context: "migration \(stage.name)")
        }
        try phase(.willMigrate, of: stage) {
            try stage.willMigrateHandler?(db)
        }
        try phase(.schemaChange, of: stage) {
            // Capture triggers name the columns they record: they would block DROP COLUMN and miss added columns.
            for entity in stage.currentVersion.model.entities {
                for definition in HistoryTriggers.definitions(for: entity, columns: []) {
                    try db.execute(sql: "DROP TRIGGER IF EXISTS \(Identifier.quoted(definition.name))")
                }
            }
            try SchemaChanger.apply(changes, in: db)
            try fitCapture(to: stage.nextVersion.model, in: db)
        }
        try phase(.didMigrate, of: stage) {
            try stage.didMigrateHandler?(db)
        }
        return try phase(.recording, of: stage) {
            try beforeCommit?(db, stage)
            let recordedToken = try HistoryRecorder.end(db, token: token)
            let event: MigrationRecord.Event = stage.kind == .custom ? .custom : .lightweight
            let record = MigrationRecord(event: event, from: stage.currentVersion.id, to: stage.nextVersion.id,
                                         token: recordedToken, date: Date())
            try MigrationLog.append(record, in: db)
            return record
        }
    }

    /// Creates missing tables, checks the others, and installs capture triggers that fit their columns.
    private func fitCapture(to model: StoreModel, in db: Database) throws {
        for entity in model.entities {
            let columns = try EntitySchema.prepare(entity, in: db, creatingTable: true)
            try HistoryTriggers.install(for: entity, columns: columns.map(\.name), in: db)
        }
    }

    private func phase<T>(_ phase: SpotliteStoreError.MigrationPhase, of stage: MigrationStage, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SpotliteStoreError where error.area == .migration {
            throw error
        } catch {
            throw SpotliteStoreError.stageFailed(stage: stage.name, phase: phase, message: "\(error)")
        }
    }
}

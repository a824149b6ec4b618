import Foundation
import GRDB

extension SpotliteStore {
    /// Opens the store at `path` at the newest version of `migrationManager`, first running the stages from the
    /// version it records (Core Data's store option `NSPersistentStoreStagedMigrationManagerOptionKey`).
    ///
    /// A new store is created at the newest version. With `options.readOnly`, nothing is migrated: a store that
    /// needs migrating throws ``SpotliteStoreError/migrationRequired(store:newest:)``.
    ///
    /// - Throws: ``SpotliteStoreError`` (the store is newer than the app, at a version no stage starts from, or a stage
    ///   failed, leaving it at the version before that stage), and everything ``init(path:model:options:)`` throws.
    public convenience init(path: String, migrationManager: StagedMigrationManager,
                            options: StoreOptions = StoreOptions()) throws {
        if options.readOnly {
            let status = try migrationManager.status(ofStoreAtPath: path, options: options)
            guard status.isUpToDate else {
                throw SpotliteStoreError.migrationRequired(store: status.storeVersion, newest: status.newestVersion)
            }
        } else {
            try migrationManager.migrateStore(atPath: path, options: options)
        }
        try self.init(path: path, model: migrationManager.newestVersion.model, options: options)
    }

    /// The model version the store records (see ``StagedMigrationManager``), read from the file, so it reflects
    /// migrations made by any process; nil for a store never opened with a migration manager.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func currentModelVersion() throws -> ModelVersionID? {
        try databasePool.read(MigrationLog.recordedVersion)
    }

    /// The store's migration log, oldest first.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func migrationLog() throws -> [MigrationRecord] {
        try databasePool.read(MigrationLog.records)
    }
}

import Foundation
import GRDB

/// Migrates stores through a chain of model versions, like Core Data's `NSStagedMigrationManager(stages)`.
///
/// The stages are listed in order, each starting from the version the previous one reaches. A store records the
/// version it is at; opening it through ``SpotliteStore/init(path:migrationManager:options:)`` runs the stages from
/// that version to the newest, each in one SQLite transaction, so a failure or a crash leaves the store at the
/// version before the stage and the next open resumes from there. New stores are created at the newest version.
///
/// ```swift
/// let manager = try StagedMigrationManager([
///     .custom(migratingFrom: v1, to: v2, didMigrate: { db in /* fill Artist from Track.json */ }),
///     .lightweight(migratingFrom: v2, to: v3),
/// ])
/// let store = try SpotliteStore(path: "Index/store.sqlite", migrationManager: manager)
/// ```
public struct StagedMigrationManager: Sendable {
    /// The author of the history transactions holding the data changes of custom stages, so that consumers can
    /// tell them from the app's own writes. The context name is `migration v1 → v2`.
    public static let author = "spotlite.migration"

    /// The stages, oldest first.
    public let stages: [MigrationStage]
    /// Every version the stages go through, oldest first.
    public let versions: [ModelVersion]

    /// The version new stores are created at and every migration ends at.
    public var newestVersion: ModelVersion { versions[versions.count - 1] }

    /// Checks the stages: each starts where the previous one ends, no version repeats or changes its model, every
    /// model is valid and every schema change can be made.
    ///
    /// - Throws: ``SpotliteStoreError`` when there are no stages, when they do not chain from one version to the next,
    ///   when a version repeats or changes its model, or when a model is not valid.
    public init(_ stages: [MigrationStage]) throws(SpotliteStoreError) {
        guard let first = stages.first else { throw .noStages }
        var versions = [first.currentVersion]
        for stage in stages {
            let previous = versions[versions.count - 1]
            guard stage.currentVersion.name == previous.name else {
                throw .brokenChain(stage: stage.name, expectedStart: previous.name)
            }
            guard stage.currentVersion.checksum == previous.checksum else {
                throw .conflictingVersion(name: previous.name, checksums: [previous.checksum, stage.currentVersion.checksum])
            }
            guard !versions.contains(where: { $0.name == stage.nextVersion.name }) else {
                throw .repeatedVersion(stage.nextVersion.name)
            }
            versions.append(stage.nextVersion)
        }
        for version in versions {
            try Self.validate(version)
        }
        for stage in stages {
            _ = try stage.schemaChanges()
        }
        self.stages = stages
        self.versions = versions
    }

    /// A manager for an app's first model version: stores are created at it and record it, so that later stages
    /// can start from it.
    ///
    /// - Throws: ``SpotliteStoreError`` when the version's model is not valid.
    public init(version: ModelVersion) throws(SpotliteStoreError) {
        try Self.validate(version)
        self.stages = []
        self.versions = [version]
    }

    private static func validate(_ version: ModelVersion) throws(SpotliteStoreError) {
        guard !version.name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidModel(version: "\"\(version.name)\"", problem: "a version needs a non-empty name")
        }
        do {
            try version.model.validate()
        } catch {
            throw .invalidModel(version: version.name, problem: error.description)
        }
    }

    /// The version with this name, if the manager knows it.
    public func version(named name: String) -> ModelVersion? {
        versions.first { $0.name == name }
    }

    // MARK: - Migrating

    /// Brings the store at `path` to the newest version and returns what it did, in order (empty when the store was
    /// already there). A missing file is created at the newest version.
    ///
    /// - Parameters:
    ///   - path: the store's SQLite file.
    ///   - options: how the store is opened (a read-only store cannot be migrated).
    ///   - assumingVersion: for a store that records no version, the version it is at; without it, the version
    ///     whose tables match the store's exactly.
    /// - Throws: ``SpotliteStoreError`` when the store is at a version the stages do not reach or a stage fails (the
    ///   store then stays at the version before that stage); ``SpotliteStoreError`` for a missing folder or a read-only
    ///   `options`; GRDB's `DatabaseError` when SQLite cannot open the file.
    @discardableResult
    public func migrateStore(atPath path: String, options: StoreOptions = StoreOptions(),
                             assumingVersion: String? = nil) throws -> [MigrationRecord] {
        try StagedMigrator(manager: self, path: path, options: options, assumedVersion: assumingVersion).migrate()
    }

    /// Where the store at `path` stands, and which stages opening it would run; changes nothing.
    ///
    /// - Throws: the same version problems as ``migrateStore(atPath:options:assumingVersion:)``.
    public func status(ofStoreAtPath path: String, options: StoreOptions = StoreOptions(),
                       assumingVersion: String? = nil) throws -> MigrationStatus {
        try StagedMigrator(manager: self, path: path, options: options, assumedVersion: assumingVersion).status()
    }

    // MARK: - Locating a store's version

    /// Where a store stands in ``versions``.
    enum Position: Equatable {
        /// No table of any version exists yet: the store is created at the newest version.
        case empty
        /// At `versions[index]`, recorded in the store or found from its tables (`recorded` false).
        case at(index: Int, recorded: Bool)
    }

    func locate(in db: Database, path: String, assumedVersion: String?) throws -> Position {
        let names = versions.map(\.name)
        if let recorded = try MigrationLog.recordedVersion(db) {
            if let index = versions.firstIndex(where: { $0.name == recorded.name }) {
                let checksum = versions[index].checksum
                guard checksum == recorded.checksum else {
                    throw SpotliteStoreError.checksumMismatch(version: recorded.name, store: recorded.checksum, model: checksum)
                }
                return .at(index: index, recorded: true)
            }
            // A store that went through a version this app knows, and then beyond, was migrated by a newer app.
            let passedThroughKnown = try MigrationLog.records(db).contains { record in
                record.from.map { names.contains($0.name) } ?? false
            }
            if passedThroughKnown {
                throw SpotliteStoreError.storeIsNewer(store: recorded, newest: newestVersion.id)
            }
            throw SpotliteStoreError.unknownStoreVersion(recorded, known: names)
        }
        if let assumedVersion {
            guard let index = names.firstIndex(of: assumedVersion) else {
                throw SpotliteStoreError.unknownVersionName(assumedVersion, known: names)
            }
            return .at(index: index, recorded: false)
        }
        let tables = try Self.tableColumns(in: db)
        let knownEntities = Set(versions.flatMap { $0.model.entities.map { $0.name.lowercased() } })
        if knownEntities.isDisjoint(with: tables.keys) { return .empty }
        let matching = versions.indices.filter { Self.tables(tables, match: versions[$0].model, knownEntities: knownEntities) }
        guard matching.count == 1 else {
            throw SpotliteStoreError.unrecognizedSchema(path: path, matching: matching.map { names[$0] }, known: names)
        }
        return .at(index: matching[0], recorded: false)
    }

    /// The lowercased column names of every table, by lowercased table name.
    private static func tableColumns(in db: Database) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
            result[table.lowercased()] = Set(columns.map { $0.lowercased() })
        }
        return result
    }

    /// Whether the tables are exactly the model's: each entity's table with exactly its columns, and no table of an
    /// entity that only other versions have.
    private static func tables(_ tables: [String: Set<String>], match model: StoreModel, knownEntities: Set<String>) -> Bool {
        let own = Set(model.entities.map { $0.name.lowercased() })
        for entity in model.entities {
            guard tables[entity.name.lowercased()] == Set(entity.columns.map { $0.name.lowercased() }) else { return false }
        }
        return knownEntities.subtracting(own).isDisjoint(with: tables.keys)
    }
}

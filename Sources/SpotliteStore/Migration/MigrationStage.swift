import GRDB

/// One step from a model version to the next, like Core Data's `NSLightweightMigrationStage` and
/// `NSCustomMigrationStage`.
///
/// The schema change of a stage is derived from its two versions (see ``schemaChanges()``): tables and columns are
/// added and dropped, and renamed where ``renames`` says so. A custom stage also runs `willMigrateHandler` on the
/// current schema before that change and `didMigrateHandler` on the next schema after it, in the same SQLite
/// transaction: the stage commits completely or not at all. Their data changes are recorded in history under the
/// author ``StagedMigrationManager/author``, with the context name `migration v1 → v2`.
///
/// The handlers get the stage's database connection inside its transaction. They may read, write and run DDL (an
/// index, say), but must not commit, roll back or open transactions of their own; throwing aborts the stage.
public struct MigrationStage: Sendable, CustomStringConvertible {
    /// Code run by a custom stage, inside the stage's transaction.
    public typealias Handler = @Sendable (Database) throws -> Void

    /// Whether the stage runs code of the app's.
    public enum Kind: String, Sendable, Hashable {
        /// Only the derived schema change.
        case lightweight
        /// The derived schema change between `willMigrateHandler` and `didMigrateHandler`.
        case custom
    }

    /// Lightweight or custom.
    public let kind: Kind
    /// The version the stage starts from.
    public let currentVersion: ModelVersion
    /// The version the stage ends at.
    public let nextVersion: ModelVersion
    /// Renamed entities and attributes.
    public let renames: [ModelRename]
    /// Runs on the current version's schema, before the schema change.
    public let willMigrateHandler: Handler?
    /// Runs on the next version's schema, after the schema change, with history capture fitted to it.
    public let didMigrateHandler: Handler?

    /// A stage that changes only the schema: added and dropped entities and attributes, and the given renames.
    public static func lightweight(migratingFrom currentVersion: ModelVersion, to nextVersion: ModelVersion,
                                   renames: [ModelRename] = []) -> MigrationStage {
        MigrationStage(kind: .lightweight, currentVersion: currentVersion, nextVersion: nextVersion, renames: renames,
                       willMigrateHandler: nil, didMigrateHandler: nil)
    }

    /// A stage that runs the app's code around the schema change, like `NSCustomMigrationStage`.
    public static func custom(migratingFrom currentVersion: ModelVersion, to nextVersion: ModelVersion,
                              renames: [ModelRename] = [], willMigrate: Handler? = nil,
                              didMigrate: Handler? = nil) -> MigrationStage {
        MigrationStage(kind: .custom, currentVersion: currentVersion, nextVersion: nextVersion, renames: renames,
                       willMigrateHandler: willMigrate, didMigrateHandler: didMigrate)
    }

    /// `v1 → v2`, as the history's context name and error messages show the stage.
    public var name: String { "\(currentVersion.name) → \(nextVersion.name)" }

    /// `v1 → v2 (custom)`.
    public var description: String { "\(name) (\(kind.rawValue))" }

    /// The schema change from the current version to the next, in the order it is applied.
    ///
    /// - Throws: ``SpotliteStoreError/unsupportedChange(stage:reason:)`` for changes SQLite cannot make in place (a new
    ///   key, a type the existing column cannot hold) and ``SpotliteStoreError/invalidRename(stage:reason:)`` for renames
    ///   that do not fit the two versions.
    public func schemaChanges() throws(SpotliteStoreError) -> [SchemaChange] {
        try SchemaDiff(stage: name, current: currentVersion.model, next: nextVersion.model, renames: renames).changes()
    }
}

import SpotliteStore

/// The `[model]` table: the name of the model version `[entities]` describes, the older versions a store may still be
/// at, and the stages that migrate a store from one to the next. See docs/migrations.md.
///
/// ```toml
/// [model]
/// version = "v2"                                   # the version [entities] describes: the newest
///
/// [model.versions.v1.entities.Track]               # an older version: each table's key and columns
/// key = "id"
/// columns = { id = "number", title = "text", json = "text" }
///
/// [[model.stages]]                                 # from the oldest version to the newest, in order
/// from = "v1"
/// to = "v2"
/// did_migrate = "config/migrations/v1-v2.sql"      # SQL run on the new schema (makes the stage custom)
/// ```
public struct ModelConfiguration: Sendable, Hashable {
    /// The name of the version `[entities]` describes: the newest, which new stores are created at.
    public var version: String
    /// The older versions, in file order.
    public var versions: [ModelVersionConfiguration]
    /// The stages, oldest first.
    public var stages: [MigrationStageConfiguration]

    /// The `[model]` table: the current `version`, the older `versions` and the `stages` between them.
    public init(version: String, versions: [ModelVersionConfiguration] = [], stages: [MigrationStageConfiguration] = []) {
        self.version = version
        self.versions = versions
        self.stages = stages
    }
}

/// `[model.versions.NAME]`: an older model version, as the store's tables were then.
public struct ModelVersionConfiguration: Sendable, Hashable {
    /// The version's name (the key after `versions.`).
    public var name: String
    /// Its entities, in file order.
    public var entities: [VersionEntityConfiguration]

    /// A version named `name` with these entities.
    public init(name: String, entities: [VersionEntityConfiguration]) {
        self.name = name
        self.entities = entities
    }
}

/// `[model.versions.NAME.entities.ENTITY]`: a table of an older version.
public struct VersionEntityConfiguration: Sendable, Hashable {
    /// The entity (table) name.
    public var name: String
    /// The key column; an integer key when it is listed among the columns as `number`, text otherwise (as in
    /// `[entities]`).
    public var key: String
    /// The columns with the field type they had (which fixes their SQLite type as in `[entities]`), in file order.
    public var columns: [Column]

    /// One column: its name and the field type that gives its SQLite type.
    public struct Column: Sendable, Hashable {
        /// The column name.
        public var name: String
        /// The field type whose SQLite type the column had.
        public var type: FieldType

        /// A column named `name` of `type`.
        public init(name: String, type: FieldType) {
            self.name = name
            self.type = type
        }
    }

    /// An entity of a version: its table `name`, its `key` and its columns.
    public init(name: String, key: String, columns: [Column]) {
        self.name = name
        self.key = key
        self.columns = columns
    }
}

/// One `[[model.stages]]` entry.
public struct MigrationStageConfiguration: Sendable, Hashable {
    /// The version the stage starts from.
    public var from: String
    /// The version it ends at.
    public var to: String
    /// A SQL file run on the old schema before the schema change; absolute once loaded.
    public var willMigrate: String?
    /// A SQL file run on the new schema after the schema change; absolute once loaded.
    public var didMigrate: String?
    /// Renamed entities and attributes (`{ entity = "Old", to = "New" }`,
    /// `{ entity = "New", attribute = "old", to = "new" }`).
    public var renames: [ModelRename]

    /// A stage from version `from` to `to`, with its SQL files (read later) and its renames.
    public init(from: String, to: String, willMigrate: String? = nil, didMigrate: String? = nil, renames: [ModelRename] = []) {
        self.from = from
        self.to = to
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
        self.renames = renames
    }

    /// A stage with SQL files is custom; one without is lightweight.
    public var isCustom: Bool { willMigrate != nil || didMigrate != nil }
}

/// One version of an app's model: a name chosen by the app (`"v1"`, `"2024-06"`) and the entities of that version,
/// with a checksum of its entities and attributes (Core Data's `versionChecksum`).
///
/// A store records the name and checksum of the version it is at. The checksum covers what shapes the tables:
/// entity names, keys and their types, attribute names and types. It ignores the order of entities and attributes
/// and capture settings such as `preserveOnDelete`, which can change without a migration.
public struct ModelVersion: Sendable, Hashable {
    /// The version's name, unique among the versions a ``StagedMigrationManager`` knows.
    public var name: String
    /// The entities of this version.
    public var model: StoreModel

    /// A version named `name` whose entities are `model`'s.
    public init(name: String, model: StoreModel) {
        self.name = name
        self.model = model
    }

    /// 16 hex digits that change whenever an entity or attribute is added, removed, renamed or retyped.
    public var checksum: String {
        ModelChecksum.checksum(of: model)
    }

    /// The name and checksum a store records for this version.
    public var id: ModelVersionID {
        ModelVersionID(name: name, checksum: checksum)
    }
}

/// The model version a store records: the version's name and its checksum.
public struct ModelVersionID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name of the version, as the app that migrated the store called it.
    public var name: String
    /// The version's ``ModelVersion/checksum``.
    public var checksum: String

    /// The identity of the version named `name` whose model has `checksum`.
    public init(name: String, checksum: String) {
        self.name = name
        self.checksum = checksum
    }

    /// `v2 (checksum 0123456789abcdef)`.
    public var description: String { "\(name) (checksum \(checksum))" }
}

import Foundation

/// A problem with a set of migration stages, or with migrating a store.
public enum MigrationError: Error, Hashable, CustomStringConvertible, LocalizedError {
    /// Where in a stage a failure happened.
    public enum Phase: String, Sendable, Hashable {
        /// Checking the current tables and fitting history capture to them.
        case preparation
        /// The custom stage's `willMigrate` handler.
        case willMigrate
        /// The derived schema change, and fitting history capture to the new tables.
        case schemaChange
        /// The custom stage's `didMigrate` handler.
        case didMigrate
        /// Recording the new version.
        case recording
    }

    /// A manager was given no stages.
    case noStages
    /// A version's model is invalid.
    case invalidModel(version: String, problem: String)
    /// A stage does not start where the previous one ended.
    case brokenChain(stage: String, expectedStart: String)
    /// A version appears twice in the chain of stages (the chain would loop).
    case repeatedVersion(String)
    /// Two stages use the same version name for two different models.
    case conflictingVersion(name: String, checksums: [String])
    /// A change between two versions that SQLite cannot make in place.
    case unsupportedChange(stage: String, reason: String)
    /// A rename that does not fit the stage's versions.
    case invalidRename(stage: String, reason: String)
    /// The store is at a version after the app's newest one (an older app opened a newer store).
    case storeIsNewer(store: ModelVersionID, newest: ModelVersionID)
    /// The store is at a version that none of the stages starts from.
    case unknownStoreVersion(ModelVersionID, known: [String])
    /// The store is at a version of this name, but its checksum differs from the app's model of that name.
    case checksumMismatch(version: String, store: String, model: String)
    /// The store records no version and its tables match no version (or several versions) exactly.
    case unrecognizedSchema(path: String, matching: [String], known: [String])
    /// A version named by the caller (`assumingVersion`) that the manager does not know.
    case unknownVersionName(String, known: [String])
    /// A stage failed; the store was left at the version before it.
    case stageFailed(stage: String, phase: Phase, message: String)
    /// A read-only store is at an older version than the app's newest.
    case migrationRequired(store: ModelVersionID?, newest: ModelVersionID)

    /// The problem and the way out, in one line.
    public var description: String {
        switch self {
        case .noStages:
            return "a staged migration manager needs at least one stage; pass the stages from the oldest version to the newest, or use init(version:) for a model's first version"
        case let .invalidModel(version, problem):
            return "model version \(version) is invalid: \(problem)"
        case let .brokenChain(stage, expectedStart):
            return "stage \(stage) does not start where the previous stage ends (\(expectedStart)); list the stages in order, each starting from the version the previous one reaches"
        case let .repeatedVersion(name):
            return "version \(name) appears twice in the chain of stages, which would make it loop; give each version its own name"
        case let .conflictingVersion(name, checksums):
            return "version \(name) has two different models (checksums \(checksums.joined(separator: " and "))); a version must not change once stores use it: give the changed model a new version name"
        case let .unsupportedChange(stage, reason):
            return "stage \(stage) cannot be migrated: \(reason)"
        case let .invalidRename(stage, reason):
            return "stage \(stage) has an invalid rename: \(reason)"
        case let .storeIsNewer(store, newest):
            return "the store is at model version \(store), newer than this app's newest version \(newest.name); open it with a newer version of the app"
        case let .unknownStoreVersion(version, known):
            return "the store is at model version \(version), which no stage starts from (known versions: \(known.joined(separator: ", "))); add a stage from \(version.name) to the app's stages"
        case let .checksumMismatch(version, store, model):
            return "the store is at model version \(version) with checksum \(store), but this app's \(version) has checksum \(model): the model was changed after stores were migrated to it; restore that version's model and put the change in a new version with its own stage"
        case let .unrecognizedSchema(path, matching, known):
            if matching.isEmpty {
                return "the store \(path) records no model version and its tables match none of the known versions (\(known.joined(separator: ", "))); make its tables match one version, or name its version explicitly (`assumingVersion:` of StagedMigrationManager.migrateStore)"
            }
            return "the store \(path) records no model version and its tables match several versions (\(matching.joined(separator: ", "))); name the one it is at (`assumingVersion:` of StagedMigrationManager.migrateStore)"
        case let .unknownVersionName(name, known):
            return "there is no model version named \(name); known versions: \(known.joined(separator: ", "))"
        case let .stageFailed(stage, phase, message):
            return "migration stage \(stage) failed in \(phase.rawValue) and was rolled back, leaving the store at its previous version: \(message); fix the cause and open the store again to resume"
        case let .migrationRequired(store, newest):
            let at = store.map { "at model version \($0.name)" } ?? "not yet versioned"
            return "the store is \(at) and needs migrating to \(newest.name), which a read-only store cannot do; open it once without readOnly"
        }
    }

    /// The same as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// The way out of a ``SpotliteStoreError``: what to do, said once, so that each front end (an app, the `spotlite` command)
/// names the action in its own terms (``StoreRecoveryVocabulary``).
public enum StoreRecovery: Sendable, Hashable {
    // MARK: The store, its model and its tables

    /// Create the store's folder, or choose a path in one that exists.
    case createFolder(path: String)
    /// Use a name SQLite takes as an identifier.
    case useValidIdentifier
    /// Rename it.
    case rename
    /// Give each name its own (SQLite ignores case).
    case useDistinctNames
    /// Give the key the same type as key and as attribute.
    case useOneKeyType
    /// Add the attribute, or remove the name.
    case addAttributeOrRemoveName
    /// Remove the column from `preserve_on_delete`.
    case removeFromTombstone
    /// Migrate the table, or change the model to match it.
    case fitTableAndModel
    /// Add a unique index on the key column, or choose another key.
    case makeKeyUnique(table: String, column: String)
    /// Entities must be ordinary tables.
    case useOrdinaryTable
    /// Open the store writable once, so that it creates its tables.
    case openWritableToCreateTables
    /// Check the store's path, or open it writable once to create it.
    case checkStorePath
    /// Open the file writable once, so that it gets its history tables.
    case openWritableToSetUpHistory
    /// Open the store writable to write.
    case openWritableToWrite
    /// Use a Spotlite at least as new as the one that wrote the store.
    case upgradeSpotlite

    // MARK: History

    /// Resynchronise from the rows, then continue from the store's current token.
    case resynchronizeAndContinue
    /// Resynchronise from the rows.
    case resynchronize
    /// Leave the limit out.
    case leaveOutLimit

    // MARK: Migrations

    /// Give the manager its stages.
    case listStages
    /// List the stages in order.
    case orderStages
    /// Give each version its own name.
    case nameEachVersion
    /// A changed model gets a new version name.
    case newVersionForChangedModel
    /// Open the store with a newer app.
    case useNewerApp
    /// Add a stage from the store's version.
    case addStage(from: String)
    /// Restore the version's model and put the change in a new version.
    case restoreVersionModel
    /// Name the version the store is at (``StoreRecoveryVocabulary/assumeVersion``); when its tables match no
    /// version, making them match one works too.
    case assumeVersion(tablesMatchSeveral: Bool)
    /// Fix what made the stage fail and open the store again.
    case fixStageAndReopen
    /// Migrate the store (``StoreRecoveryVocabulary/migrate``).
    case migrate

    // MARK: Tracking

    /// Use an author name without surrounding spaces.
    case useUsableAuthorName
    /// Add the current author to `allAuthors`.
    case listCurrentAuthor
    /// Add the batch author to `allAuthors`, or remove it from `batchAuthors`.
    case listBatchAuthor
    /// Remove the current author from `batchAuthors`.
    case removeCurrentAuthorFromBatchAuthors
    /// Use a count of at least 1, or no schedule.
    case countAtLeastOne
    /// Use a positive duration, or none.
    case positiveDuration
    /// Register the hook named first, or leave `before:` out.
    case registerHookFirst

    // MARK: Importing

    /// Fix the line and import again (the batches before it are committed).
    case fixLineAndImportAgain
    /// Name the author history attributes the import to (``StoreRecoveryVocabulary/importAuthor``).
    case nameImportAuthor
    /// Choose an author that is not Spotlite's own.
    case chooseAnotherAuthor
    /// Import at least one line per transaction.
    case batchOfAtLeastOneLine

    /// The way out in words, with the actions named as `vocabulary` names them.
    public func text(_ vocabulary: StoreRecoveryVocabulary) -> String {
        switch self {
        case .createFolder(let path):
            return "create it (mkdir -p \(path)) or choose a store path in an existing folder"
        case .useValidIdentifier:
            return "use at most \(Identifier.maximumLength) letters, digits and underscores, not starting with a digit"
        case .rename:
            return "rename it"
        case .useDistinctNames:
            return "give each a distinct name"
        case .useOneKeyType:
            return "use the same type in both places"
        case .addAttributeOrRemoveName:
            return "add the attribute or remove the name"
        case .removeFromTombstone:
            return "remove it from preserve_on_delete"
        case .fitTableAndModel:
            return "migrate the table (ALTER TABLE) or change the model to match it"
        case let .makeKeyUnique(table, column):
            return "add one (CREATE UNIQUE INDEX ON \(table)(\(column))) or choose another key"
        case .useOrdinaryTable:
            return "entities must be ordinary tables"
        case .openWritableToCreateTables:
            return "open the store once without readOnly"
        case .checkStorePath:
            return "check the path, or open it once without readOnly to create it"
        case .openWritableToSetUpHistory:
            return "open it once with a writable store to set them up"
        case .openWritableToWrite:
            return "open it without StoreOptions.readOnly to write"
        case .upgradeSpotlite:
            return "upgrade Spotlite"
        case .resynchronizeAndContinue:
            return "resynchronise from the current rows and continue from the store's current token"
        case .resynchronize:
            return "resynchronise from the current rows"
        case .leaveOutLimit:
            return "leave it out to fetch everything"
        case .listStages:
            return "pass the stages from the oldest version to the newest, or use init(version:) for a model's first version"
        case .orderStages:
            return "list the stages in order, each starting from the version the previous one reaches"
        case .nameEachVersion:
            return "give each version its own name"
        case .newVersionForChangedModel:
            return "a version must not change once stores use it: give the changed model a new version name"
        case .useNewerApp:
            return "open it with a newer version of the app"
        case .addStage(let version):
            return "add a stage from \(version) to the app's stages"
        case .restoreVersionModel:
            return "restore that version's model and put the change in a new version with its own stage"
        case .assumeVersion(let several):
            return several ? "name the one it is at (\(vocabulary.assumeVersion))"
                : "make its tables match one version, or name its version explicitly (\(vocabulary.assumeVersion))"
        case .fixStageAndReopen:
            return "fix the cause and open the store again to resume"
        case .migrate:
            return vocabulary.migrate
        case .useUsableAuthorName:
            return "use a non-empty name without leading or trailing spaces"
        case .listCurrentAuthor:
            return "add it there, since cleanup must wait for its position"
        case .listBatchAuthor:
            return "batch authors are write-only members of allAuthors, so add it there or remove it from batchAuthors"
        case .removeCurrentAuthorFromBatchAuthors:
            return "remove it from batchAuthors (use batchContextNames for its batch operations)"
        case .countAtLeastOne:
            return "use a count of at least 1, or .none"
        case .positiveDuration:
            return "use a positive duration, or nil / .none to turn it off"
        case .registerHookFirst:
            return "register that hook first or leave out before:"
        case .fixLineAndImportAgain:
            return "the batches before this line were committed, fix the line and import again"
        case .nameImportAuthor:
            return "give the name history should attribute the import to (e.g. \(vocabulary.importAuthor))"
        case .chooseAnotherAuthor:
            return "choose another author"
        case .batchOfAtLeastOneLine:
            return "use a number of lines of at least 1"
        }
    }
}

/// How a front end names the actions of a ``StoreRecovery``: an app calls methods, the command line runs commands.
public struct StoreRecoveryVocabulary: Sendable, Hashable {
    /// Naming the model version a store is at, e.g. "`assumingVersion:` of StagedMigrationManager.migrateStore".
    public var assumeVersion: String
    /// Migrating a store that a read-only handle cannot migrate, e.g. "open it once without readOnly".
    public var migrate: String
    /// An import's author, e.g. "RecordImporter(store:entity:author:) with author: \"importer\"".
    public var importAuthor: String

    /// A vocabulary naming these actions.
    public init(assumeVersion: String, migrate: String, importAuthor: String) {
        self.assumeVersion = assumeVersion
        self.migrate = migrate
        self.importAuthor = importAuthor
    }

    /// The library's: the parameters and options of SpotliteStore's API. ``SpotliteStoreError/description`` uses it.
    public static let library = StoreRecoveryVocabulary(
        assumeVersion: "`assumingVersion:` of StagedMigrationManager.migrateStore",
        migrate: "open it once without readOnly",
        importAuthor: "author: \"importer\" in RecordImporter(store:entity:author:)")
}

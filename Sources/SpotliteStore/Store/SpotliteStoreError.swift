import Foundation

/// Every error of SpotliteStore: opening a store, its model and tables; reading history; migrating; tracking;
/// importing. ``problem`` says what went wrong, ``recovery`` the way out as a case (``StoreRecovery``), which each
/// front end names in its own terms (``description(using:)``); ``area`` says which part of the library failed.
///
/// The library had five error types before version 0.2.0; their names remain as deprecated aliases of this one
/// (``StoreError``, ``HistoryError``, ``MigrationError``, ``TrackerError``, ``ImportError``), so that
/// `catch HistoryError.expiredToken` still matches what it matched. `catch is HistoryError` would now match every
/// error of the library: match the cases, or `catch let error as SpotliteStoreError where error.area == .history`.
public enum SpotliteStoreError: Error, Hashable, CustomStringConvertible, LocalizedError {
    // MARK: Opening a store, its model and its tables (area `.store`)

    /// The folder that should hold the SQLite file does not exist.
    case missingDirectory(path: String)
    /// A name that is not an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
    case invalidIdentifier(String, role: NameRole)
    /// A name Spotlite or SQLite keeps for itself: starting with `spotlite_` or `sqlite_`, or (for a column) `rowid`,
    /// `oid`, `_rowid_` or the importer's `_delete`.
    case reservedIdentifier(String, role: NameRole)
    /// Two names that SQLite would treat as the same (names ignore case).
    case duplicateName(String, scope: NameScope)
    /// An entity lists its key among its attributes with another type.
    case conflictingKeyType(entity: String, key: String, keyType: KeyType, attributeType: AttributeType)
    /// A column named by the model (for example in `preserve_on_delete`) that the entity does not have.
    case unknownColumn(String, entity: String, role: ColumnList)
    /// A blob column in `preserve_on_delete`: tombstones are JSON, which cannot hold blobs.
    case blobInTombstone(entity: String, column: String)
    /// An existing table does not fit its entity: columns are missing or have another type.
    case schemaMismatch(table: String, missingColumns: [String], mismatchedColumns: [ColumnMismatch])
    /// The key column of an existing table is neither its primary key nor covered by a unique index.
    case keyNotUnique(table: String, column: String)
    /// An entity names something that is not an ordinary table (a view, for instance).
    case notATable(String, kind: String)
    /// A read-only store was opened on a file where a table of the model does not exist.
    case missingTable(String)
    /// A read-only store was asked to open a file that does not exist.
    case missingStore(path: String)
    /// The file was never opened by a writable Spotlite store, so it has no history tables.
    case notASpotliteStore(path: String)
    /// The history schema was written by a newer Spotlite than this one.
    case unsupportedHistorySchema(found: Int, supported: Int)
    /// A write was attempted through a store opened with `StoreOptions(readOnly: true)`.
    case readOnlyStore(operation: WriteOperation)

    // MARK: Reading history (area `.history`)

    /// History after the requested token (nil: from the beginning) was deleted, up to `purgedThrough`.
    /// The analogue of Core Data's `NSPersistentHistoryTokenExpiredError` (134301): the consumer must
    /// resynchronise from the current rows, then continue from ``SpotliteStore/currentToken()``.
    case expiredToken(requested: HistoryToken?, purgedThrough: HistoryToken)
    /// History after the requested date was deleted: a deleted transaction was newer than the date.
    case expiredDate(requested: Date, purgedThrough: Date)
    /// The requested token is newer than any this store has issued: it comes from another store, or the
    /// store was re-created. The consumer must resynchronise.
    case unknownToken(requested: HistoryToken, current: HistoryToken?)
    /// A limit of zero or less.
    case invalidLimit(Int)

    // MARK: Migrating (area `.migration`)

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
    case unsupportedChange(stage: String, reason: UnsupportedChange)
    /// A rename that does not fit the stage's versions.
    case invalidRename(stage: String, reason: RenameProblem)
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
    case stageFailed(stage: String, phase: MigrationPhase, message: String)
    /// A read-only store is at an older version than the app's newest.
    case migrationRequired(store: ModelVersionID?, newest: ModelVersionID)

    // MARK: Tracking (area `.tracking`)

    /// An author name that is empty or has leading or trailing spaces.
    case invalidAuthorName(String, role: AuthorRole)
    /// The current author must be one of ``HistoryTrackerConfiguration/allAuthors``.
    case currentAuthorNotListed(String)
    /// A batch author that is not one of ``HistoryTrackerConfiguration/allAuthors``.
    case batchAuthorNotListed(String)
    /// The current author reads history, so it cannot also be a write-only batch author.
    case currentAuthorIsBatchAuthor(String)
    /// `.notifications(_:)` needs a count of at least 1.
    case invalidNotificationCount(Int)
    /// A deletion interval or maximum duration that is zero or negative.
    case invalidDuration(Duration, role: DurationRole)
    /// `registerMergeHook(before:)` named a hook that is not registered.
    case unknownMergeHook(UUID)

    // MARK: Importing (area `.importing`)

    /// The entity is not in the store's model; `known` lists those that are.
    case unknownEntity(String, known: [String])
    /// The line (1-based) is not a JSON object the entity accepts; the problem says why.
    case malformedLine(Int, LineProblem)
    /// The input could not be read; the text says why.
    case unreadable(String)
    /// An empty author, or one of Spotlite's own.
    case invalidAuthor(String)

    // MARK: Shared

    /// A batch size below 1: the tracker's fetch batch size (area `.tracking`) or an import's lines per transaction
    /// (area `.importing`).
    case invalidBatchSize(Int, of: BatchSize)

    /// A column of an existing table whose declared type does not fit the model.
    public struct ColumnMismatch: Sendable, Hashable {
        /// The column's name.
        public var column: String
        /// The type the model gives it.
        public var expected: AttributeType
        /// The type the table declares (empty for none).
        public var declaredType: String
    }

    /// Where in a migration stage a failure happened.
    public enum MigrationPhase: String, Sendable, Hashable {
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

    /// Which batch size ``invalidBatchSize(_:of:)`` is about.
    public enum BatchSize: Sendable, Hashable {
        /// ``HistoryTrackerConfiguration/fetchBatchSize``.
        case trackerFetch
        /// ``RecordImporter/batchSize``: lines per history transaction.
        case importLines
    }

    /// The part of the library an error comes from (the five error types before 0.2.0).
    public enum Area: Sendable, Hashable {
        /// Opening a store, its model and its tables, and writing to it (``StoreError`` before 0.2.0).
        case store
        /// Reading history (``HistoryError`` before 0.2.0).
        case history
        /// Migration stages and migrating a store (``MigrationError`` before 0.2.0).
        case migration
        /// A tracker's configuration and hooks (``TrackerError`` before 0.2.0).
        case tracking
        /// ``RecordImporter`` (``ImportError`` before 0.2.0).
        case importing
    }

    /// The part of the library the error comes from: what `catch is HistoryError` (and the other former types)
    /// caught before 0.2.0 is `catch let error as SpotliteStoreError where error.area == .history`.
    public var area: Area {
        switch self {
        case .missingDirectory, .invalidIdentifier, .reservedIdentifier, .duplicateName, .conflictingKeyType,
             .unknownColumn, .blobInTombstone, .schemaMismatch, .keyNotUnique, .notATable, .missingTable, .missingStore,
             .notASpotliteStore, .unsupportedHistorySchema, .readOnlyStore:
            return .store
        case .expiredToken, .expiredDate, .unknownToken, .invalidLimit:
            return .history
        case .noStages, .invalidModel, .brokenChain, .repeatedVersion, .conflictingVersion, .unsupportedChange,
             .invalidRename, .storeIsNewer, .unknownStoreVersion, .checksumMismatch, .unrecognizedSchema,
             .unknownVersionName, .stageFailed, .migrationRequired:
            return .migration
        case .invalidAuthorName, .currentAuthorNotListed, .batchAuthorNotListed, .currentAuthorIsBatchAuthor,
             .invalidNotificationCount, .invalidDuration, .unknownMergeHook, .invalidBatchSize(_, .trackerFetch):
            return .tracking
        case .unknownEntity, .malformedLine, .unreadable, .invalidAuthor, .invalidBatchSize(_, .importLines):
            return .importing
        }
    }

    /// The problem and the way out, in one line, the way out in the library's terms (``StoreRecoveryVocabulary/library``).
    public var description: String { description(using: .library) }

    /// The problem and the way out, in one line, the way out's actions named by `vocabulary`.
    public func description(using vocabulary: StoreRecoveryVocabulary) -> String {
        recovery.map { "\(problem); \($0.text(vocabulary))" } ?? problem
    }

    /// The same as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

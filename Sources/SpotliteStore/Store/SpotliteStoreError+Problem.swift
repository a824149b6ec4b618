import Foundation

extension SpotliteStoreError {
    /// What went wrong, without the way out.
    public var problem: String {
        switch self {
        case .missingDirectory(let path):
            return "the folder \(path) does not exist"
        case .invalidIdentifier(let name, let role):
            return "\"\(name)\" is not a valid \(role)"
        case .reservedIdentifier(let name, let role):
            if let prefix = Identifier.reservedPrefixes.first(where: { name.lowercased().hasPrefix($0) }) {
                return "\"\(name)\" is not allowed as \(role): names starting with \(prefix) are reserved for Spotlite and SQLite"
            }
            return "\"\(name)\" is not allowed as \(role): it is reserved by SQLite and the importer"
        case .duplicateName(let name, let scope):
            return "\"\(name)\" appears twice in \(scope) (SQLite names ignore case)"
        case .conflictingKeyType(let entity, let key, let keyType, let attributeType):
            return "entity \(entity) declares its key \(key) as \(keyType.rawValue) but lists it as an attribute of type \(attributeType.rawValue)"
        case .unknownColumn(let column, let entity, let role):
            return "\(role) of entity \(entity) names \"\(column)\", which is neither its key nor one of its attributes"
        case .blobInTombstone(let entity, let column):
            return "entity \(entity) lists the blob column \(column) in preserve_on_delete, but tombstones cannot hold blobs"
        case .schemaMismatch(let table, let missing, let mismatched):
            var problems: [String] = []
            if !missing.isEmpty {
                problems.append("missing columns \(missing.joined(separator: ", "))")
            }
            for mismatch in mismatched {
                let declared = mismatch.declaredType.isEmpty ? "no type" : mismatch.declaredType
                problems.append("column \(mismatch.column) is declared \(declared) but the model says \(mismatch.expected.rawValue)")
            }
            return "table \(table) does not fit the model: \(problems.joined(separator: "; "))"
        case .keyNotUnique(let table, let column):
            return "the key column \(column) of table \(table) is neither its primary key nor covered by a unique index"
        case .notATable(let name, let kind):
            return "\(name) is a \(kind), not a table"
        case .missingTable(let name):
            return "table \(name) does not exist and a read-only store cannot create it"
        case .missingStore(let path):
            return "there is no store at \(path)"
        case .notASpotliteStore(let path):
            return "\(path) has no Spotlite history tables"
        case .unsupportedHistorySchema(let found, let supported):
            return "the store's history schema is version \(found) but this Spotlite supports up to \(supported)"
        case .readOnlyStore(let operation):
            return "cannot \(operation): the store was opened read-only"

        case .expiredToken(let requested, let purgedThrough):
            let from = requested.map { "after token \($0)" } ?? "from the beginning"
            return "the history \(from) has expired: it was deleted through token \(purgedThrough)"
        case .expiredDate(let requested, let purgedThrough):
            return "the history after \(requested) has expired: transactions up to \(purgedThrough) were deleted"
        case .unknownToken(let requested, let current):
            let currentText = current.map { "\($0)" } ?? "none"
            return "token \(requested) is newer than the store's current token (\(currentText)): it belongs to another or a re-created store"
        case .invalidLimit(let limit):
            return "a history limit must be at least 1, not \(limit)"

        case .noStages:
            return "a staged migration manager needs at least one stage"
        case let .invalidModel(version, problem):
            return "model version \(version) is invalid: \(problem)"
        case let .brokenChain(stage, expectedStart):
            return "stage \(stage) does not start where the previous stage ends (\(expectedStart))"
        case let .repeatedVersion(name):
            return "version \(name) appears twice in the chain of stages, which would make it loop"
        case let .conflictingVersion(name, checksums):
            return "version \(name) has two different models (checksums \(checksums.joined(separator: " and ")))"
        case let .unsupportedChange(stage, reason):
            return "stage \(stage) cannot be migrated: \(reason)"
        case let .invalidRename(stage, reason):
            return "stage \(stage) has an invalid rename: \(reason)"
        case let .storeIsNewer(store, newest):
            return "the store is at model version \(store), newer than this app's newest version \(newest.name)"
        case let .unknownStoreVersion(version, known):
            return "the store is at model version \(version), which no stage starts from (known versions: \(known.joined(separator: ", ")))"
        case let .checksumMismatch(version, store, model):
            return "the store is at model version \(version) with checksum \(store), but this app's \(version) has checksum \(model): the model was changed after stores were migrated to it"
        case let .unrecognizedSchema(path, matching, known):
            if matching.isEmpty {
                return "the store \(path) records no model version and its tables match none of the known versions (\(known.joined(separator: ", ")))"
            }
            return "the store \(path) records no model version and its tables match several versions (\(matching.joined(separator: ", ")))"
        case let .unknownVersionName(name, known):
            return "there is no model version named \(name); known versions: \(known.joined(separator: ", "))"
        case let .stageFailed(stage, phase, message):
            return "migration stage \(stage) failed in \(phase.rawValue) and was rolled back, leaving the store at its previous version: \(message)"
        case let .migrationRequired(store, newest):
            let at = store.map { "at model version \($0.name)" } ?? "not yet versioned"
            return "the store is \(at) and needs migrating to \(newest.name), which a read-only store cannot do"

        case .invalidAuthorName(let name, let role):
            return "\(role) \"\(name)\" is not a usable author name"
        case .currentAuthorNotListed(let author):
            return "the current author \"\(author)\" is not in allAuthors"
        case .batchAuthorNotListed(let author):
            return "the batch author \"\(author)\" is not in allAuthors"
        case .currentAuthorIsBatchAuthor(let author):
            return "the current author \"\(author)\" is also a batch author, but it reads history"
        case .invalidNotificationCount(let count):
            return ".notifications(\(count)) would never delete history"
        case .invalidDuration(let duration, let role):
            return "the \(role) must be longer than zero, not \(duration)"
        case .unknownMergeHook(let id):
            return "no merge hook with id \(id) is registered, so nothing can be inserted before it"

        case let .unknownEntity(name, known):
            return "unknown entity \"\(name)\"; the configuration describes: \(known.isEmpty ? "no entities" : known.joined(separator: ", "))"
        case let .malformedLine(line, reason):
            return "line \(line): \(reason)"
        case let .unreadable(reason):
            return "cannot read the input: \(reason)"
        case let .invalidAuthor(author) where author.isEmpty:
            return "the author is empty"
        case let .invalidAuthor(author):
            return "the author \"\(author)\" is reserved: names starting with \(RecordImporter.reservedAuthorPrefix) belong to Spotlite's own writers"

        case .invalidBatchSize(let size, .trackerFetch):
            return "a fetch batch size must be at least 1, not \(size)"
        case .invalidBatchSize(let size, .importLines):
            return "invalid batch size \(size)"
        }
    }

    /// What to do about it; nil when the problem's own words say it (a stage's reason, the known names).
    public var recovery: StoreRecovery? {
        switch self {
        case .missingDirectory(let path): return .createFolder(path: path)
        case .invalidIdentifier: return .useValidIdentifier
        case .reservedIdentifier: return .rename
        case .duplicateName: return .useDistinctNames
        case .conflictingKeyType: return .useOneKeyType
        case .unknownColumn: return .addAttributeOrRemoveName
        case .blobInTombstone: return .removeFromTombstone
        case .schemaMismatch: return .fitTableAndModel
        case let .keyNotUnique(table, column): return .makeKeyUnique(table: table, column: column)
        case .notATable: return .useOrdinaryTable
        case .missingTable: return .openWritableToCreateTables
        case .missingStore: return .checkStorePath
        case .notASpotliteStore: return .openWritableToSetUpHistory
        case .unsupportedHistorySchema: return .upgradeSpotlite
        case .readOnlyStore: return .openWritableToWrite

        case .expiredToken, .expiredDate: return .resynchronizeAndContinue
        case .unknownToken: return .resynchronize
        case .invalidLimit: return .leaveOutLimit

        case .noStages: return .listStages
        case .invalidModel, .unsupportedChange, .invalidRename, .unknownVersionName: return nil
        case .brokenChain: return .orderStages
        case .repeatedVersion: return .nameEachVersion
        case .conflictingVersion: return .newVersionForChangedModel
        case .storeIsNewer: return .useNewerApp
        case let .unknownStoreVersion(version, _): return .addStage(from: version.name)
        case .checksumMismatch: return .restoreVersionModel
        case let .unrecognizedSchema(_, matching, _):
            return .assumeVersion(tablesMatchSeveral: !matching.isEmpty)
        case .stageFailed: return .fixStageAndReopen
        case .migrationRequired: return .migrate

        case .invalidAuthorName: return .useUsableAuthorName
        case .currentAuthorNotListed: return .listCurrentAuthor
        case .batchAuthorNotListed: return .listBatchAuthor
        case .currentAuthorIsBatchAuthor: return .removeCurrentAuthorFromBatchAuthors
        case .invalidNotificationCount: return .countAtLeastOne
        case .invalidDuration: return .positiveDuration
        case .unknownMergeHook: return .registerHookFirst

        case .unknownEntity, .unreadable: return nil
        case .malformedLine: return .fixLineAndImportAgain
        case let .invalidAuthor(author): return author.isEmpty ? .nameImportAuthor : .chooseAnotherAuthor

        case .invalidBatchSize(_, .trackerFetch): return nil
        case .invalidBatchSize(_, .importLines): return .batchOfAtLeastOneLine
        }
    }
}

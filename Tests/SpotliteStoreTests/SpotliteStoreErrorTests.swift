import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// One error type for the store: each error says its way out once, as a case, and which part of the library it
/// comes from; the library's own words name no command.
@Suite("Store errors carry their way out", .blockingWork)
struct StoreErrorTests {
    static let version = ModelVersionID(name: "v2", checksum: "c2")

    /// One error of each case (both ways of those whose way out depends on their payload), with the recovery and the
    /// area it must have.
    static let expected: [(SpotliteStoreError, StoreRecovery?, SpotliteStoreError.Area)] = [
        (.missingDirectory(path: "/x"), .createFolder(path: "/x"), .store),
        (.invalidIdentifier("1a", role: .entityName), .useValidIdentifier, .store),
        (.reservedIdentifier("spotlite_x", role: .entityName), .rename, .store),
        (.reservedIdentifier("rowid", role: .attribute(entity: "P")), .rename, .store),
        (.duplicateName("A", scope: .entities), .useDistinctNames, .store),
        (.conflictingKeyType(entity: "P", key: "k", keyType: .text, attributeType: .integer), .useOneKeyType, .store),
        (.unknownColumn("c", entity: "P", role: .preserveOnDelete), .addAttributeOrRemoveName, .store),
        (.blobInTombstone(entity: "P", column: "b"), .removeFromTombstone, .store),
        (.schemaMismatch(table: "P", missingColumns: ["a"], mismatchedColumns: []), .fitTableAndModel, .store),
        (.keyNotUnique(table: "P", column: "k"), .makeKeyUnique(table: "P", column: "k"), .store),
        (.notATable("V", kind: "view"), .useOrdinaryTable, .store),
        (.missingTable("P"), .openWritableToCreateTables, .store),
        (.missingStore(path: "/s"), .checkStorePath, .store),
        (.notASpotliteStore(path: "/s"), .openWritableToSetUpHistory, .store),
        (.unsupportedHistorySchema(found: 9, supported: 3), .upgradeSpotlite, .store),
        (.readOnlyStore(operation: .write), .openWritableToWrite, .store),
        (.expiredToken(requested: HistoryToken(3), purgedThrough: HistoryToken(9)), .resynchronizeAndContinue, .history),
        (.expiredDate(requested: Date(timeIntervalSince1970: 0), purgedThrough: Date(timeIntervalSince1970: 9)),
         .resynchronizeAndContinue, .history),
        (.unknownToken(requested: HistoryToken(5), current: nil), .resynchronize, .history),
        (.invalidLimit(0), .leaveOutLimit, .history),
        (.noStages, .listStages, .migration),
        (.invalidModel(version: "v1", problem: "no entities"), nil, .migration),
        (.brokenChain(stage: "v1 → v2", expectedStart: "v1"), .orderStages, .migration),
        (.repeatedVersion("v1"), .nameEachVersion, .migration),
        (.conflictingVersion(name: "v1", checksums: ["a", "b"]), .newVersionForChangedModel, .migration),
        (.unsupportedChange(stage: "v1 → v2", reason: .keyChange(entity: "N", from: "id", fromType: .integer, to: "title", toType: .text)), nil, .migration),
        (.invalidRename(stage: "v1 → v2", reason: .entitySourceMissing(from: "A", to: "B")), nil, .migration),
        (.storeIsNewer(store: version, newest: ModelVersionID(name: "v1", checksum: "c1")), .useNewerApp, .migration),
        (.unknownStoreVersion(version, known: ["v1"]), .addStage(from: "v2"), .migration),
        (.checksumMismatch(version: "v1", store: "a", model: "b"), .restoreVersionModel, .migration),
        (.unrecognizedSchema(path: "/s", matching: [], known: ["v1"]), .assumeVersion(tablesMatchSeveral: false), .migration),
        (.unrecognizedSchema(path: "/s", matching: ["v1", "v2"], known: ["v1", "v2"]),
         .assumeVersion(tablesMatchSeveral: true), .migration),
        (.unknownVersionName("v9", known: ["v1"]), nil, .migration),
        (.stageFailed(stage: "v1 → v2", phase: .didMigrate, message: "boom"), .fixStageAndReopen, .migration),
        (.migrationRequired(store: nil, newest: version), .migrate, .migration),
        (.invalidAuthorName(" a", role: .listedAuthor), .useUsableAuthorName, .tracking),
        (.currentAuthorNotListed("a"), .listCurrentAuthor, .tracking),
        (.batchAuthorNotListed("a"), .listBatchAuthor, .tracking),
        (.currentAuthorIsBatchAuthor("a"), .removeCurrentAuthorFromBatchAuthors, .tracking),
        (.invalidNotificationCount(0), .countAtLeastOne, .tracking),
        (.invalidDuration(.zero, role: .maximumDuration), .positiveDuration, .tracking),
        (.unknownMergeHook(UUID()), .registerHookFirst, .tracking),
        (.invalidBatchSize(0, of: .trackerFetch), nil, .tracking),
        (.unknownEntity("X", known: ["Package"]), nil, .importing),
        (.malformedLine(3, .notJSON(parserMessage: "Unexpected end of file")), .fixLineAndImportAgain, .importing),
        (.unreadable("EIO"), nil, .importing),
        (.invalidAuthor(""), .nameImportAuthor, .importing),
        (.invalidAuthor("spotlite.indexer"), .chooseAnotherAuthor, .importing),
        (.invalidBatchSize(0, of: .importLines), .batchOfAtLeastOneLine, .importing),
    ]

    @Test("every error maps to the recovery its problem calls for, and to its area")
    func cases() {
        for (error, recovery, area) in Self.expected {
            #expect(error.recovery == recovery, "\(error)")
            #expect(error.area == area, "\(error)")
            if let recovery {
                #expect(error.description == "\(error.problem); \(recovery.text(.library))")
            } else {
                #expect(error.description == error.problem)
            }
        }
    }

    /// The structured causes (they were strings before 0.2.0) and the words the command line prints for each,
    /// unchanged: one sentence each.
    static let sentences: [(SpotliteStoreError, String)] = [
        (.invalidIdentifier("1a", role: .entityName), #""1a" is not a valid entity name"#),
        (.invalidIdentifier("", role: .key(entity: "T")), #""" is not a valid key of entity T"#),
        (.reservedIdentifier("rowid", role: .attribute(entity: "T")),
         #""rowid" is not allowed as attribute of entity T: it is reserved by SQLite and the importer"#),
        (.duplicateName("a", scope: .entities), #""a" appears twice in the model's entities (SQLite names ignore case)"#),
        (.duplicateName("a", scope: .attributes(entity: "T")),
         #""a" appears twice in the attributes of entity T (SQLite names ignore case)"#),
        (.unknownColumn("c", entity: "T", role: .preserveOnDelete),
         #"preserve_on_delete of entity T names "c", which is neither its key nor one of its attributes"#),
        (.invalidAuthorName(" a", role: .currentAuthor), #"the current author " a" is not a usable author name"#),
        (.invalidAuthorName("", role: .listedAuthor), #"the listed author "" is not a usable author name"#),
        (.invalidAuthorName("", role: .mirrorAuthor), #"the mirror author "" is not a usable author name"#),
        (.invalidAuthorName("", role: .consumer), #"the consumer "" is not a usable author name"#),
        (.expiredToken(requested: HistoryToken(3), purgedThrough: HistoryToken(9)),
         "the history after token 3 has expired: it was deleted through token 9"),
        (.unknownToken(requested: HistoryToken(5), current: nil),
         "token 5 is newer than the store's current token (none): it belongs to another or a re-created store"),
        (.invalidLimit(0), "a history limit must be at least 1, not 0"),
        (.invalidDuration(.zero, role: .deletionInterval), "the deletion interval must be longer than zero, not 0.0 seconds"),
        (.readOnlyStore(operation: .write), "cannot write: the store was opened read-only"),
        (.readOnlyStore(operation: .savePosition), "cannot save a position: the store was opened read-only"),
        (.readOnlyStore(operation: .removePosition), "cannot remove a position: the store was opened read-only"),
        (.readOnlyStore(operation: .deleteHistory), "cannot delete history: the store was opened read-only"),
        (.readOnlyStore(operation: .sealPendingChanges), "cannot seal pending changes: the store was opened read-only"),
        (.readOnlyStore(operation: .migrate), "cannot migrate: the store was opened read-only"),
        (.readOnlyStore(operation: .trackHistory),
         "cannot track history (the tracker saves its position in the store): the store was opened read-only"),
        (.readOnlyStore(operation: .cleanHistory), "cannot clean history: the store was opened read-only"),
        (.readOnlyStore(operation: .registerConsumer), "cannot register a history consumer: the store was opened read-only"),
        (.readOnlyStore(operation: .unregisterConsumer), "cannot unregister a history consumer: the store was opened read-only"),
        (.readOnlyStore(operation: .consumeHistory),
         "cannot consume history (the consumer's position is saved in the store): the store was opened read-only"),
        (.invalidDuration(.zero, role: .maximumDuration), "the maximum duration must be longer than zero, not 0.0 seconds"),
        (.unsupportedChange(stage: "a → b", reason: .keyChange(entity: "N", from: "id", fromType: .integer, to: "t", toType: .text)),
         "stage a → b cannot be migrated: entity N changes its key from id (integer) to t (text); SQLite cannot change a primary key in place: add a new entity with the new key, copy the rows in a custom stage's didMigrate, and drop the old entity"),
        (.unsupportedChange(stage: "a → b", reason: .typeChange(entity: "N", attribute: "x", from: .text, to: .integer)),
         "stage a → b cannot be migrated: attribute N.x changes type from text to integer, which its column cannot hold; add an attribute under a new name, copy the values in a custom stage's didMigrate, and drop the old attribute"),
        (.invalidRename(stage: "s", reason: .entitySourceMissing(from: "A", to: "B")),
         "stage s has an invalid rename: entity A is renamed to B, but the current version has no entity A"),
        (.invalidRename(stage: "s", reason: .entityTargetMissing(from: "A", to: "B")),
         "stage s has an invalid rename: entity A is renamed to B, but the next version has no entity B"),
        (.invalidRename(stage: "s", reason: .entityTargetExists(from: "A", to: "B")),
         "stage s has an invalid rename: entity A cannot be renamed to B: the current version already has an entity B; rename or drop that one in an earlier stage"),
        (.invalidRename(stage: "s", reason: .entityRenamedTwice(from: "A", to: "B")),
         "stage s has an invalid rename: entity A or B appears in two entity renames; keep one"),
        (.invalidRename(stage: "s", reason: .attributeEntityMissing(entity: "E", from: "x", to: "y")),
         "stage s has an invalid rename: attribute E.x is renamed to y, but the next version has no entity E (name the entity as the next version does)"),
        (.invalidRename(stage: "s", reason: .attributeEntityIsNew(entity: "E", from: "x", to: "y")),
         "stage s has an invalid rename: attribute E.x is renamed to y, but entity E is new in the next version, so it has no attributes to rename"),
        (.invalidRename(stage: "s", reason: .attributeSourceMissing(entity: "E", source: "D", from: "x", to: "y")),
         "stage s has an invalid rename: attribute E.x is renamed to y, but D has no attribute x in the current version"),
        (.invalidRename(stage: "s", reason: .attributeTargetMissing(entity: "E", from: "x", to: "y")),
         "stage s has an invalid rename: attribute E.x is renamed to y, but E has no attribute y in the next version"),
        (.invalidRename(stage: "s", reason: .attributeTargetExists(entity: "E", source: "D", from: "x", to: "y")),
         "stage s has an invalid rename: attribute E.x is renamed to y, but D already has an attribute y; drop or rename it in an earlier stage"),
        (.invalidRename(stage: "s", reason: .attributeRenamedTwice(entity: "E", from: "x", to: "y")),
         "stage s has an invalid rename: attribute E.x or y appears in two attribute renames; keep one"),
        (.malformedLine(1, .tooLong(limitMiB: 64)),
         "line 1: the line is longer than 64 MiB without a newline, more than any record should be; check that the file is JSON Lines (one object per line)"),
        (.malformedLine(1, .notUTF8), "line 1: not valid UTF-8 text; convert the file to UTF-8 (e.g. with iconv)"),
        (.malformedLine(1, .notJSON(parserMessage: "Unexpected end of file")), "line 1: not valid JSON (Unexpected end of file)"),
        (.malformedLine(1, .notAnObject(found: .array)), "line 1: expected a JSON object, found an array"),
        (.malformedLine(1, .notAnObject(found: .string)), "line 1: expected a JSON object, found a string"),
        (.malformedLine(1, .notAnObject(found: .null)), "line 1: expected a JSON object, found null"),
        (.malformedLine(1, .notAnObject(found: .numberOrBoolean)), "line 1: expected a JSON object, found a number or boolean"),
        (.malformedLine(1, .integerOutOfRange(literal: "9223372036854775808")),
         #"line 1: the integer 9223372036854775808 is outside the 64-bit range SQLite stores exactly (-9223372036854775808 to 9223372036854775807); write it as a string ("9223372036854775808") to keep every digit"#),
        (.malformedLine(1, .deleteFlagNotBoolean), #"line 1: "_delete" must be true or false"#),
        (.malformedLine(1, .missingKey("name")), #"line 1: the key "name" is missing"#),
        (.malformedLine(1, .keyOfWrongType("name", expected: .text, found: .object)),
         #"line 1: the key "name" must be a string, found an object"#),
        (.malformedLine(1, .keyOfWrongType("id", expected: .integer, found: nil)), #"line 1: the key "id" must be an integer"#),
        (.malformedLine(1, .unknownAttribute("x", entity: "P", known: ["a", "b"])),
         #"line 1: unknown attribute "x" for entity P; known attributes: a, b"#),
        (.malformedLine(1, .nulCharacter(column: "a")),
         #"line 1: the value of "a" contains a NUL character (\u0000), which SQLite text cannot hold; remove it"#),
        (.malformedLine(1, .unsupportedValue(column: "a")), #"line 1: unsupported value for "a""#),
        (.malformedLine(1, .rejectedByDatabase(message: "NOT NULL constraint failed: P.a")),
         "line 1: rejected by the database: NOT NULL constraint failed: P.a"),
    ]

    @Test("each structured cause words its problem as the command line prints it")
    func causeSentences() {
        for (error, sentence) in Self.sentences {
            #expect(error.problem == sentence)
        }
    }

    @Test("the library's words name no command or option of the command line")
    func libraryNamesNoCommand() {
        for (error, _, _) in Self.expected {
            #expect(!error.description.contains("spotlite "), "\(error.description)")
            #expect(!error.description.contains(" --"), "\(error.description)")
        }
    }

    @Test("a front end names the actions that differ in its own terms")
    func vocabulary() {
        let words = StoreRecoveryVocabulary(assumeVersion: "ASSUME", migrate: "MIGRATE", importAuthor: "AUTHOR")
        #expect(SpotliteStoreError.migrationRequired(store: nil, newest: Self.version).description(using: words)
            == "the store is not yet versioned and needs migrating to v2, which a read-only store cannot do; MIGRATE")
        #expect(SpotliteStoreError.unrecognizedSchema(path: "/s", matching: ["v1", "v2"], known: ["v1", "v2"])
            .description(using: words).hasSuffix("; name the one it is at (ASSUME)"))
        #expect(SpotliteStoreError.invalidAuthor("").description(using: words).hasSuffix("(e.g. AUTHOR)"))
    }

    @Test("the two batch sizes that used to share a case name are told apart by what they size")
    func batchSizes() throws {
        let test = try TestStore()
        let importing = #expect(throws: SpotliteStoreError.self) {
            try RecordImporter(store: test.store, entity: "Package", batchSize: 0)
        }
        #expect(importing == .invalidBatchSize(0, of: .importLines))
        let tracking = #expect(throws: SpotliteStoreError.self) {
            try HistoryTracker(store: test.store, configuration: HistoryTrackerConfiguration(
                currentAuthor: "app", allAuthors: ["app"], autoStart: false, fetchBatchSize: 0))
        }
        #expect(tracking == .invalidBatchSize(0, of: .trackerFetch))
        #expect(importing?.area == .importing && tracking?.area == .tracking)
    }

    @Test("a history error thrown by a real store is told from the others by its area")
    func historyArea() throws {
        let test = try TestStore()
        let (first, newest) = try test.expireHistory()
        do {
            _ = try test.store.fetchHistory(.after(first))
            Issue.record("history after a deleted token was fetched")
        } catch let error as SpotliteStoreError where error.area == .history {
            #expect(error == .expiredToken(requested: first, purgedThrough: newest))
        }
        let readOnly = try test.reopen(options: StoreOptions(readOnly: true))
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .write)) { try readOnly.write(author: "app") { _ in } }
        do {
            try readOnly.write(author: "app") { _ in }
        } catch let error as SpotliteStoreError where error.area == .history {
            Issue.record("a read-only store's refusal is not a history error: \(error)")
        } catch {
            #expect((error as? SpotliteStoreError)?.area == .store)
        }
    }
}

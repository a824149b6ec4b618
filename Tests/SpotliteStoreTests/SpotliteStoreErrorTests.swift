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
        (.invalidIdentifier("1a", role: "entity name"), .useValidIdentifier, .store),
        (.reservedIdentifier("spotlite_x", role: "an entity name"), .rename, .store),
        (.reservedIdentifier("rowid", role: "a column name"), .rename, .store),
        (.duplicateName("A", scope: "the model"), .useDistinctNames, .store),
        (.conflictingKeyType(entity: "P", key: "k", keyType: .text, attributeType: .integer), .useOneKeyType, .store),
        (.unknownColumn("c", entity: "P", role: "preserve_on_delete"), .addAttributeOrRemoveName, .store),
        (.blobInTombstone(entity: "P", column: "b"), .removeFromTombstone, .store),
        (.schemaMismatch(table: "P", missingColumns: ["a"], mismatchedColumns: []), .fitTableAndModel, .store),
        (.keyNotUnique(table: "P", column: "k"), .makeKeyUnique(table: "P", column: "k"), .store),
        (.notATable("V", kind: "view"), .useOrdinaryTable, .store),
        (.missingTable("P"), .openWritableToCreateTables, .store),
        (.missingStore(path: "/s"), .checkStorePath, .store),
        (.notASpotliteStore(path: "/s"), .openWritableToSetUpHistory, .store),
        (.unsupportedHistorySchema(found: 9, supported: 3), .upgradeSpotlite, .store),
        (.readOnlyStore(operation: "write"), .openWritableToWrite, .store),
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
        (.unsupportedChange(stage: "v1 → v2", reason: "a new key"), nil, .migration),
        (.invalidRename(stage: "v1 → v2", reason: "no such entity"), nil, .migration),
        (.storeIsNewer(store: version, newest: ModelVersionID(name: "v1", checksum: "c1")), .useNewerApp, .migration),
        (.unknownStoreVersion(version, known: ["v1"]), .addStage(from: "v2"), .migration),
        (.checksumMismatch(version: "v1", store: "a", model: "b"), .restoreVersionModel, .migration),
        (.unrecognizedSchema(path: "/s", matching: [], known: ["v1"]), .assumeVersion(tablesMatchSeveral: false), .migration),
        (.unrecognizedSchema(path: "/s", matching: ["v1", "v2"], known: ["v1", "v2"]),
         .assumeVersion(tablesMatchSeveral: true), .migration),
        (.unknownVersionName("v9", known: ["v1"]), nil, .migration),
        (.stageFailed(stage: "v1 → v2", phase: .didMigrate, message: "boom"), .fixStageAndReopen, .migration),
        (.migrationRequired(store: nil, newest: version), .migrate, .migration),
        (.invalidAuthorName(" a", role: "the listed author"), .useUsableAuthorName, .tracking),
        (.currentAuthorNotListed("a"), .listCurrentAuthor, .tracking),
        (.batchAuthorNotListed("a"), .listBatchAuthor, .tracking),
        (.currentAuthorIsBatchAuthor("a"), .removeCurrentAuthorFromBatchAuthors, .tracking),
        (.invalidNotificationCount(0), .countAtLeastOne, .tracking),
        (.invalidDuration(.zero, role: "maximum duration"), .positiveDuration, .tracking),
        (.unknownMergeHook(UUID()), .registerHookFirst, .tracking),
        (.invalidBatchSize(0, of: .trackerFetch), nil, .tracking),
        (.unknownEntity("X", known: ["Package"]), nil, .importing),
        (.malformedLine(3, "not valid JSON"), .fixLineAndImportAgain, .importing),
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
        try test.insertPackage("vim")
        let first = try #require(try test.store.currentToken())
        try test.insertPackage("gimp")
        let newest = try #require(try test.store.currentToken())
        try test.store.deleteHistory(.through(newest))
        do {
            _ = try test.store.fetchHistory(.after(first))
            Issue.record("history after a deleted token was fetched")
        } catch let error as SpotliteStoreError where error.area == .history {
            #expect(error == .expiredToken(requested: first, purgedThrough: newest))
        }
        let readOnly = try test.reopen(options: StoreOptions(readOnly: true))
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: "write")) { try readOnly.write(author: "app") { _ in } }
        do {
            try readOnly.write(author: "app") { _ in }
        } catch let error as SpotliteStoreError where error.area == .history {
            Issue.record("a read-only store's refusal is not a history error: \(error)")
        } catch {
            #expect((error as? SpotliteStoreError)?.area == .store)
        }
    }
}

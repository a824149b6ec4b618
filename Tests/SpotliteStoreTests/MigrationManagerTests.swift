import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Model versions of a notes app, shared by the migration tests of this target.
enum NoteVersions {
    static let note1 = EntityDescription(
        name: "Note", key: "id", keyType: .integer,
        attributes: [
            AttributeDescription(name: "title", type: .text),
            AttributeDescription(name: "body", type: .text),
            AttributeDescription(name: "legacy", type: .text),
        ],
        preserveOnDelete: ["title"])

    /// `title` renamed to `heading`, `legacy` dropped, `tags` added; a new entity `Folder`.
    static let note2 = EntityDescription(
        name: "Note", key: "id", keyType: .integer,
        attributes: [
            AttributeDescription(name: "heading", type: .text),
            AttributeDescription(name: "body", type: .text),
            AttributeDescription(name: "tags", type: .text),
        ],
        preserveOnDelete: ["heading"])

    static let folder = EntityDescription(
        name: "Folder", key: "id", keyType: .text, attributes: [AttributeDescription(name: "name", type: .text)])

    /// `Note` renamed to `Memo`; `Folder` dropped.
    static let memo3 = EntityDescription(
        name: "Memo", key: "id", keyType: .integer,
        attributes: [
            AttributeDescription(name: "heading", type: .text),
            AttributeDescription(name: "body", type: .text),
            AttributeDescription(name: "tags", type: .text),
        ])

    static let v1 = ModelVersion(name: "v1", model: StoreModel(entities: [note1]))
    static let v2 = ModelVersion(name: "v2", model: StoreModel(entities: [note2, folder]))
    static let v3 = ModelVersion(name: "v3", model: StoreModel(entities: [memo3]))

    static let renameTitle = ModelRename.attribute(entity: "Note", from: "title", to: "heading")
    static let renameNote = ModelRename.entity(from: "Note", to: "Memo")

    static func lightweightStages() -> [MigrationStage] {
        [.lightweight(migratingFrom: v1, to: v2, renames: [renameTitle]),
         .lightweight(migratingFrom: v2, to: v3, renames: [renameNote])]
    }
}

@Suite("Migration stages and their manager", .blockingWork)
struct MigrationManagerTests {
    // MARK: - Checksums

    @Test func checksumIgnoresDeclarationOrderAndTombstoneSettings() {
        let reordered = EntityDescription(
            name: "Note", key: "id", keyType: .integer,
            attributes: NoteVersions.note1.attributes.reversed(), preserveOnDelete: [])
        let withKeyListed = EntityDescription(
            name: "Note", key: "id", keyType: .integer,
            attributes: [AttributeDescription(name: "id", type: .integer)] + NoteVersions.note1.attributes)
        let base = ModelVersion(name: "a", model: StoreModel(entities: [NoteVersions.note1, NoteVersions.folder]))
        let other = ModelVersion(name: "b", model: StoreModel(entities: [NoteVersions.folder, reordered]))
        let listed = ModelVersion(name: "c", model: StoreModel(entities: [NoteVersions.folder, withKeyListed]))
        #expect(base.checksum == other.checksum)
        #expect(base.checksum == listed.checksum)
        #expect(base.checksum.count == 16)
        #expect(base.checksum.allSatisfy { $0.isHexDigit })
        #expect(base.id == ModelVersionID(name: "a", checksum: base.checksum))
    }

    @Test(arguments: [
        ("an attribute's type", EntityDescription(name: "Note", key: "id", keyType: .integer, attributes: [
            AttributeDescription(name: "title", type: .any), AttributeDescription(name: "body", type: .text),
            AttributeDescription(name: "legacy", type: .text)])),
        ("an attribute's name", EntityDescription(name: "Note", key: "id", keyType: .integer, attributes: [
            AttributeDescription(name: "heading", type: .text), AttributeDescription(name: "body", type: .text),
            AttributeDescription(name: "legacy", type: .text)])),
        ("the key's type", EntityDescription(name: "Note", key: "id", keyType: .text, attributes:
            NoteVersions.note1.attributes)),
        ("the entity's name", EntityDescription(name: "Notes", key: "id", keyType: .integer, attributes:
            NoteVersions.note1.attributes)),
        ("a removed attribute", EntityDescription(name: "Note", key: "id", keyType: .integer, attributes:
            Array(NoteVersions.note1.attributes.prefix(2)))),
    ])
    func checksumChangesWithTheShapeOfTables(change: String, entity: EntityDescription) {
        let changed = ModelVersion(name: "v1", model: StoreModel(entities: [entity]))
        #expect(changed.checksum != NoteVersions.v1.checksum, "changing \(change) must change the checksum")
    }

    // MARK: - The chain of stages

    @Test func managerListsVersionsOldestFirst() throws {
        let manager = try StagedMigrationManager(NoteVersions.lightweightStages())
        #expect(manager.versions.map(\.name) == ["v1", "v2", "v3"])
        #expect(manager.newestVersion.id == NoteVersions.v3.id)
        #expect(manager.version(named: "v2")?.checksum == NoteVersions.v2.checksum)
        #expect(manager.version(named: "v9") == nil)
        #expect(manager.stages.map(\.description) == ["v1 → v2 (lightweight)", "v2 → v3 (lightweight)"])
    }

    @Test func managerNeedsStages() {
        let error = #expect(throws: SpotliteStoreError.noStages) { try StagedMigrationManager([]) }
        #expect(error?.recovery == .listStages)
    }

    @Test func singleVersionManagerHasNoStages() throws {
        let manager = try StagedMigrationManager(version: NoteVersions.v1)
        #expect(manager.stages.isEmpty)
        #expect(manager.newestVersion.name == "v1")
    }

    @Test func stagesMustFollowEachOther() {
        let stages: [MigrationStage] = [
            .lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle]),
            .lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v3),
        ]
        let error = #expect(throws: SpotliteStoreError.brokenChain(stage: "v1 → v3", expectedStart: "v2")) {
            try StagedMigrationManager(stages)
        }
        #expect(error?.recovery == .orderStages)
    }

    @Test func aVersionCannotRepeat() {
        let stages: [MigrationStage] = [
            .lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle]),
            .lightweight(migratingFrom: NoteVersions.v2, to: ModelVersion(name: "v1", model: NoteVersions.v1.model)),
        ]
        #expect(throws: SpotliteStoreError.repeatedVersion("v1")) { try StagedMigrationManager(stages) }
    }

    @Test func aVersionNameCannotHaveTwoModels() {
        let changedV2 = ModelVersion(name: "v2", model: StoreModel(entities: [NoteVersions.note2]))
        let stages: [MigrationStage] = [
            .lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v2, renames: [NoteVersions.renameTitle]),
            .lightweight(migratingFrom: changedV2, to: NoteVersions.v3, renames: [NoteVersions.renameNote]),
        ]
        let error = #expect(throws: SpotliteStoreError.conflictingVersion(
            name: "v2", checksums: [NoteVersions.v2.checksum, changedV2.checksum])) {
            try StagedMigrationManager(stages)
        }
        #expect(error?.recovery == .newVersionForChangedModel)
    }

    @Test func invalidModelsAreNamedWithTheirVersion() {
        let bad = ModelVersion(name: "v2", model: StoreModel(entities: [
            EntityDescription(name: "spotlite_notes", key: "id")]))
        let error = #expect(throws: SpotliteStoreError.self) {
            try StagedMigrationManager([.lightweight(migratingFrom: NoteVersions.v1, to: bad)])
        }
        guard case let .invalidModel(version, problem)? = error else {
            Issue.record("expected invalidModel, got \(String(describing: error))")
            return
        }
        #expect(version == "v2")
        #expect(problem.contains("spotlite_notes"))
        #expect(throws: SpotliteStoreError.self) {
            try StagedMigrationManager(version: ModelVersion(name: " ", model: NoteVersions.v1.model))
        }
    }

    // MARK: - Derived schema changes

    @Test func changesAreDerivedFromTheTwoVersions() throws {
        let stages = NoteVersions.lightweightStages()
        #expect(try stages[0].schemaChanges() == [
            .renameColumn(table: "Note", from: "title", to: "heading"),
            .dropColumn(table: "Note", column: "legacy"),
            .addColumn(table: "Note", column: AttributeDescription(name: "tags", type: .text)),
            .createTable(NoteVersions.folder),
        ])
        #expect(try stages[1].schemaChanges() == [
            .renameTable(from: "Note", to: "Memo"),
            .dropTable("Folder"),
        ])
        #expect(try stages[1].schemaChanges().map(\.description) == ["rename table Note to Memo", "drop table Folder"])
    }

    @Test func withoutARenameAColumnIsDroppedAndAnotherAdded() throws {
        let stage = MigrationStage.lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v2)
        let changes = try stage.schemaChanges()
        #expect(changes.contains(.dropColumn(table: "Note", column: "title")))
        #expect(changes.contains(.addColumn(table: "Note", column: AttributeDescription(name: "heading", type: .text))))
    }

    @Test func aTypeTheColumnCanHoldNeedsNoChange() throws {
        let anyTitle = ModelVersion(name: "v1b", model: StoreModel(entities: [EntityDescription(
            name: "Note", key: "id", keyType: .integer,
            attributes: [AttributeDescription(name: "title", type: .any), AttributeDescription(name: "body", type: .text),
                         AttributeDescription(name: "legacy", type: .text)])]))
        #expect(try MigrationStage.lightweight(migratingFrom: NoteVersions.v1, to: anyTitle).schemaChanges().isEmpty)
    }

    @Test func aTypeTheColumnCannotHoldIsRefusedWithTheWayOut() {
        let numericTitle = ModelVersion(name: "v2", model: StoreModel(entities: [EntityDescription(
            name: "Note", key: "id", keyType: .integer,
            attributes: [AttributeDescription(name: "title", type: .integer), AttributeDescription(name: "body", type: .text),
                         AttributeDescription(name: "legacy", type: .text)])]))
        let error = #expect(throws: SpotliteStoreError.self) {
            try StagedMigrationManager([.lightweight(migratingFrom: NoteVersions.v1, to: numericTitle)])
        }
        guard case let .unsupportedChange(stage, reason)? = error else {
            Issue.record("expected unsupportedChange, got \(String(describing: error))")
            return
        }
        #expect(stage == "v1 → v2")
        #expect(reason == .typeChange(entity: "Note", attribute: "title", from: .text, to: .integer))
    }

    @Test func aNewKeyIsRefused() {
        let rekeyed = ModelVersion(name: "v2", model: StoreModel(entities: [EntityDescription(
            name: "Note", key: "title", keyType: .text,
            attributes: [AttributeDescription(name: "id", type: .integer), AttributeDescription(name: "body", type: .text),
                         AttributeDescription(name: "legacy", type: .text)])]))
        let error = #expect(throws: SpotliteStoreError.self) {
            try MigrationStage.lightweight(migratingFrom: NoteVersions.v1, to: rekeyed).schemaChanges()
        }
        #expect(error?.refusedChange == .keyChange(entity: "Note", from: "id", fromType: .integer, to: "title", toType: .text))
    }

    @Test func renamingTheKeyColumnIsAllowed() throws {
        let renamedKey = ModelVersion(name: "v2", model: StoreModel(entities: [EntityDescription(
            name: "Note", key: "noteID", keyType: .integer, attributes: NoteVersions.note1.attributes)]))
        let stage = MigrationStage.lightweight(migratingFrom: NoteVersions.v1, to: renamedKey,
                                               renames: [.attribute(entity: "Note", from: "id", to: "noteID")])
        #expect(try stage.schemaChanges() == [.renameColumn(table: "Note", from: "id", to: "noteID")])
    }

    @Test(arguments: [
        (ModelRename.entity(from: "Nope", to: "Memo"), RenameProblem.entitySourceMissing(from: "Nope", to: "Memo")),
        (ModelRename.entity(from: "Note", to: "Nope"), RenameProblem.entityTargetMissing(from: "Note", to: "Nope")),
        (ModelRename.attribute(entity: "Memo", from: "nope", to: "heading"),
         RenameProblem.attributeSourceMissing(entity: "Memo", source: "Note", from: "nope", to: "heading")),
        (ModelRename.attribute(entity: "Memo", from: "body", to: "nope"),
         RenameProblem.attributeTargetMissing(entity: "Memo", from: "body", to: "nope")),
        (ModelRename.attribute(entity: "Note", from: "body", to: "heading"),
         RenameProblem.attributeEntityMissing(entity: "Note", from: "body", to: "heading")),
        (ModelRename.attribute(entity: "Memo", from: "body", to: "heading"),
         RenameProblem.attributeTargetExists(entity: "Memo", source: "Note", from: "body", to: "heading")),
    ])
    func renamesMustFitTheVersions(rename: ModelRename, problem: RenameProblem) {
        let stage = MigrationStage.lightweight(migratingFrom: NoteVersions.v2, to: NoteVersions.v3,
                                               renames: [NoteVersions.renameNote, rename])
        let error = #expect(throws: SpotliteStoreError.self) { try stage.schemaChanges() }
        #expect(error?.renameProblem == problem, "\(String(describing: error))")
    }

    @Test func renamingOntoAnExistingEntityOrTwiceIsRefused() {
        let twoEntities = ModelVersion(name: "a", model: StoreModel(entities: [NoteVersions.note2, NoteVersions.folder]))
        let swapped = ModelVersion(name: "b", model: StoreModel(entities: [NoteVersions.note2, NoteVersions.folder]))
        let onto = MigrationStage.lightweight(migratingFrom: twoEntities, to: swapped,
                                              renames: [.entity(from: "Note", to: "Folder")])
        #expect(throws: SpotliteStoreError.self) { try onto.schemaChanges() }
        let twice = MigrationStage.lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v3,
                                               renames: [.entity(from: "Note", to: "Memo"), .entity(from: "note", to: "Memo")])
        let error = #expect(throws: SpotliteStoreError.self) { try twice.schemaChanges() }
        #expect(error?.renameProblem == .entityRenamedTwice(from: "note", to: "Memo"))
        let newEntity = MigrationStage.lightweight(migratingFrom: NoteVersions.v1, to: NoteVersions.v2,
                                                   renames: [.attribute(entity: "Folder", from: "id", to: "name")])
        let newEntityError = #expect(throws: SpotliteStoreError.self) { try newEntity.schemaChanges() }
        #expect(newEntityError?.renameProblem == .attributeEntityIsNew(entity: "Folder", from: "id", to: "name"))
    }
}

typealias RenameProblem = SpotliteStoreError.RenameProblem

private extension SpotliteStoreError {
    var renameProblem: RenameProblem? {
        if case let .invalidRename(_, problem) = self { return problem }
        return nil
    }

    var refusedChange: UnsupportedChange? {
        if case let .unsupportedChange(_, change) = self { return change }
        return nil
    }
}

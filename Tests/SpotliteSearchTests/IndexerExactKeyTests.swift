import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import SpotliteStore

/// Keys are compared byte for byte, as SQLite compares them: keys that differ only in Unicode normalisation, and a
/// blob key with the bytes of a text key, are different records with documents of their own.
@Suite("Indexer: byte-exact keys", .blockingWork)
struct IndexerExactKeyTests {
    static let entity = """
        [entities.Item]
        key = "id"

        [entities.Item.fields]
        id    = { type = "keyword", store = true }
        title = { type = "text", store = true }
        """

    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    /// The stored data of the document with id term `term` in the live generation, or nil.
    static func documentData(_ sandbox: IndexerSandbox, entity: String = "Item", key: DatabaseValue) throws -> DocumentData? {
        let directory = IndexDirectory(path: sandbox.indexPath)
        let generation = try #require(directory.liveGeneration)
        let database = try XapianDatabase(path: directory.generationPath(generation))
        return try database.documentData(uniqueTerm: DocumentIdentity.term(entity: entity, key: key))
            .flatMap(DocumentData.init(decoding:))
    }

    @Test("NFC and NFD keys are two documents through incremental updates and deletes")
    func normalisationVariantsStayApart() async throws {
        #expect(Self.nfc == Self.nfd, "Swift calls them equal; SQLite does not")
        let sandbox = try IndexerSandbox(entities: Self.entity)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Item (id, title) VALUES (?, 'composed')", arguments: [Self.nfc])
            try db.execute(sql: "INSERT INTO Item (id, title) VALUES (?, 'decomposed')", arguments: [Self.nfd])
        }
        let summary = try await indexer.update()
        #expect(summary.rebuilt == false)
        #expect(summary.indexed == 2, "both rows indexed, not one: \(summary)")
        #expect(try sandbox.makeSearcher().documentCount() == 2)
        let composed = try #require(try Self.documentData(sandbox, key: Self.nfc.databaseValue))
        let decomposed = try #require(try Self.documentData(sandbox, key: Self.nfd.databaseValue))
        #expect(composed.fields["title"] == .text("composed"))
        #expect(decomposed.fields["title"] == .text("decomposed"))
        #expect(Array(composed.key.description.utf8) == Array(Self.nfc.utf8))
        #expect(Array(decomposed.key.description.utf8) == Array(Self.nfd.utf8))

        // Updating one and deleting the other in one transaction touches each once.
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Item SET title = 'composed again' WHERE id = ?", arguments: [Self.nfc])
            try db.execute(sql: "DELETE FROM Item WHERE id = ?", arguments: [Self.nfd])
        }
        try await indexer.update()
        #expect(try sandbox.makeSearcher().documentCount() == 1)
        #expect(try Self.documentData(sandbox, key: Self.nfc.databaseValue)?.fields["title"] == .text("composed again"))
        #expect(try Self.documentData(sandbox, key: Self.nfd.databaseValue) == nil)
    }

    /// Items are indexed with their shelf's label: a shelf's change must reindex every item on it.
    struct ItemOnShelf: IndexDocumentProvider {
        func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet? {
            guard record.entity == "Item" else { return nil }
            let shelf = try String.fetchOne(db, sql: "SELECT label FROM Shelf WHERE shelf_number = ?",
                                            arguments: [record.row["shelf_id"] as DatabaseValue])
            return AttributeSet(["id": record.key, "title": record.row["title"], "shelf": shelf?.databaseValue ?? .null])
        }

        func recordsDepending(on entity: String, keys: [DatabaseValue], in db: Database) throws -> [RecordID] {
            guard entity == "Shelf" else { return [] }
            let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ",")
            // Each dependent twice: the indexer must take each once, and only byte-equal keys as equal.
            let rows = try Row.fetchAll(db, sql: "SELECT id FROM Item WHERE shelf_id IN (\(placeholders)) ORDER BY id",
                                        arguments: StatementArguments(keys))
            let dependents = rows.map { RecordID(entity: "Item", key: $0[0] as DatabaseValue) }
            return dependents + dependents
        }
    }

    @Test("a parent's change reindexes both dependents whose keys are the NFC and NFD forms of one text")
    func normalisationVariantDependents() async throws {
        let sandbox = try IndexerSandbox(entities: Self.entity + """

            shelf = { type = "text", prefix = "shelf", store = true }

            [entities.Shelf]
            key = "shelf_number"

            [entities.Shelf.fields]
            label = { type = "text" }
            """, prepareSQL: "CREATE TABLE Item (id TEXT PRIMARY KEY NOT NULL, title TEXT, shelf TEXT, shelf_id INTEGER);")
        let indexer = try sandbox.makeIndexer(provider: ItemOnShelf())
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Shelf (shelf_number, label) VALUES (1, 'kitchen')")
            try db.execute(sql: "INSERT INTO Item (id, title, shelf_id) VALUES (?, 'composed', 1)", arguments: [Self.nfc])
            try db.execute(sql: "INSERT INTO Item (id, title, shelf_id) VALUES (?, 'decomposed', 1)", arguments: [Self.nfd])
        }
        try await indexer.update()
        #expect(try sandbox.keys("shelf:kitchen").count == 2)

        // Only the shelf changes: both items depend on it, and both must follow.
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Shelf SET label = 'pantry' WHERE shelf_number = 1")
        }
        let summary = try await indexer.update()
        #expect(summary.rebuilt == false)
        #expect(summary.indexed == 2, "both dependents reindexed, each once: \(summary)")
        let hits = try sandbox.makeSearcher().search(SearchRequest("shelf:pantry", limit: 10, correctsSpelling: false)).hits
        #expect(Set(hits.map { Array($0.key.description.utf8) }) == [Array(Self.nfc.utf8), Array(Self.nfd.utf8)])
        #expect(try sandbox.keys("shelf:kitchen").isEmpty, "no document keeps the old label")
        #expect(try Self.documentData(sandbox, key: Self.nfc.databaseValue)?.fields["shelf"] == .text("pantry"))
        #expect(try Self.documentData(sandbox, key: Self.nfd.databaseValue)?.fields["shelf"] == .text("pantry"))
    }

    @Test("a record id set keeps NFC and NFD keys apart")
    func recordIDsAreExact() {
        let ids: Set<RecordID> = [RecordID(entity: "Item", key: Self.nfc.databaseValue),
                                  RecordID(entity: "Item", key: Self.nfd.databaseValue),
                                  RecordID(entity: "Item", key: Self.nfc.databaseValue)]
        #expect(ids.count == 2)
        #expect(RecordID(entity: "Item", key: Self.nfc.databaseValue) != RecordID(entity: "Item", key: Self.nfd.databaseValue))
        #expect(RecordID(entity: "Item", key: 1.databaseValue) != RecordID(entity: "Item", key: "1".databaseValue),
                "an integer key and a text key are two rows")
    }

    @Test("a blob key with a text key's bytes does not replace the text row's document")
    func blobKeyIsNotText() async throws {
        let sandbox = try IndexerSandbox(entities: Self.entity)
        let indexer = try sandbox.makeIndexer()
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Item (id, title) VALUES ('k', 'the text row')")
        }
        try await indexer.update()
        // Another program stores a blob with the same bytes: SQLite keeps both rows.
        try sandbox.sqlite3("INSERT INTO Item (id, title) VALUES (CAST('k' AS BLOB), 'the blob row');")
        try await indexer.update()
        #expect(try sandbox.makeSearcher().documentCount() == 2)
        #expect(try Self.documentData(sandbox, key: "k".databaseValue)?.fields["title"] == .text("the text row"))
        #expect(try Self.documentData(sandbox, key: Data("k".utf8).databaseValue)?.fields["title"] == .text("the blob row"))
        // Deleting the blob row leaves the text row's document alone; a rebuild agrees.
        try sandbox.sqlite3("DELETE FROM Item WHERE typeof(id) = 'blob';")
        try await indexer.update()
        #expect(try sandbox.makeSearcher().documentCount() == 1)
        #expect(try Self.documentData(sandbox, key: "k".databaseValue)?.fields["title"] == .text("the text row"))
        try await indexer.rebuild()
        #expect(try Self.documentData(sandbox, key: "k".databaseValue)?.fields["title"] == .text("the text row"))
    }
}

import Foundation
import Spotlite
import SpotliteTestSupport
import Testing

// Deliberately without `@testable`: what an app can do with the public API alone.

/// A hit's key leads back to its record in the store, and a document provider can be tested with records made by
/// hand.
@Suite("Hit keys and testable providers", .blockingWork)
struct HitKeyAndProviderTests {
    /// An app's provider: a package's summary, with its section in capitals; drafts left out.
    struct ShoutingSections: IndexDocumentProvider {
        func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet? {
            let section: String? = record.row["section"]
            guard record.entity == "Package", section != "drafts" else { return nil }
            return AttributeSet(["name": record.key, "summary": record.row["summary"],
                                 "section": section?.uppercased().databaseValue ?? .null])
        }
    }

    @Test func aProviderIsTestedWithHandMadeRecords() throws {
        let provider = ShoutingSections()
        let queue = try DatabaseQueue()
        try queue.read { db in
            let vim = IndexRecord(entity: "Package", key: "vim".databaseValue,
                                  row: ["name": "vim", "summary": "Vi IMproved", "section": "editors"])
            let attributes = try #require(try provider.attributeSet(for: vim, in: db))
            #expect(attributes["section"] == "EDITORS".databaseValue)
            #expect(attributes["name"] == "vim".databaseValue)
            let draft = IndexRecord(entity: "Package", key: "wip".databaseValue,
                                    row: ["name": "wip", "summary": "unfinished", "section": "drafts"])
            #expect(try provider.attributeSet(for: draft, in: db) == nil)
            let other = IndexRecord(entity: "Maintainer", key: 1.databaseValue, row: ["id": 1])
            #expect(try provider.attributeSet(for: other, in: db) == nil)
        }
    }

    @Test func storedValuesConvertToAndFromDatabaseValues() {
        #expect(StoredValue.text("vim").databaseValue == "vim".databaseValue)
        #expect(StoredValue.integer(42).databaseValue == 42.databaseValue)
        #expect(StoredValue.real(2.5).databaseValue == 2.5.databaseValue)
        #expect(StoredValue.fromDatabaseValue("vim".databaseValue) == .text("vim"))
        #expect(StoredValue.fromDatabaseValue(Int64(42).databaseValue) == .integer(42))
        #expect(StoredValue.fromDatabaseValue(2.5.databaseValue) == .real(2.5))
        #expect(StoredValue.fromDatabaseValue(.null) == nil)
        #expect(StoredValue.fromDatabaseValue(Data([0xff, 0xfe]).databaseValue) == nil, "a blob that is no text")
    }

    @Test func aHitsKeyFindsItsRowInTheStore() async throws {
        let sandbox = try IndexerSandbox(entities: """
            [entities.Package]
            key = "name"
            [entities.Package.fields]
            name = { type = "text", store = true }
            summary = { type = "text", store = true }

            [entities.Item]
            key = "id"
            [entities.Item.fields]
            id = { type = "number" }
            title = { type = "text", store = true }
            """, prepareSQL: """
            CREATE TABLE Package (name TEXT PRIMARY KEY NOT NULL, summary TEXT);
            CREATE TABLE Item (id INTEGER PRIMARY KEY NOT NULL, title TEXT);
            """)
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Package (name, summary) VALUES ('vim', 'a text editor'), ('gimp', 'images')")
            try db.execute(sql: "INSERT INTO Item (id, title) VALUES (7, 'editor manual'), (8, 'cookbook')")
        }
        let indexer = try SpotliteIndexer(store: sandbox.store, configuration: sandbox.configuration)
        try await indexer.update()
        let hits = try IndexSearcher(configuration: sandbox.configuration)
            .search(SearchRequest("editor", correctsSpelling: false)).hits
        #expect(Set(hits.map(\.key)) == [.text("vim"), .integer(7)])

        for hit in hits {
            let table = hit.entity == "Package" ? "Package" : "Item"
            let column = hit.entity == "Package" ? "name" : "id"
            // The key as a statement argument, and as a record's identity.
            let row = try sandbox.store.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE \(column) = ?", arguments: [hit.key])
            }
            #expect(row != nil, "no row for \(hit.entity) \(hit.key)")
            let record = RecordID(entity: hit.entity, key: hit.key.databaseValue)
            let document = try IndexSearcher(configuration: sandbox.configuration)
                .document(entity: record.entity, key: record.key)
            #expect(document?.key == hit.key)
        }
    }
}

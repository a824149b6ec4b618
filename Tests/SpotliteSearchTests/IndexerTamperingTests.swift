import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import SpotliteStore

/// Another program breaks what history relies on (drops a trigger, rebuilds a table, sets `spotlite_current`):
/// the next update notices and repairs it, rebuilding when history cannot tell what changed, and says why.
@Suite("Indexer: tampering by other programs", .serialized, .blockingWork)
struct IndexerTamperingTests {
    static let entity = """
        [entities.Item]
        key = "id"

        [entities.Item.fields]
        id    = { type = "keyword", store = true }
        title = { type = "text", store = true }
        """

    /// A sandbox with items a, b, c indexed.
    static func indexedSandbox() async throws -> (IndexerSandbox, SpotliteIndexer) {
        let sandbox = try IndexerSandbox(entities: entity)
        try sandbox.store.write(author: "app") { db in
            for id in ["a", "b", "c"] {
                try db.execute(sql: "INSERT INTO Item (id, title) VALUES (?, ?)", arguments: [id, "old \(id)"])
            }
        }
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        return (sandbox, indexer)
    }

    /// The stored titles by key, read back from the index.
    static func indexedTitles(_ sandbox: IndexerSandbox) throws -> [String: String] {
        let hits = try sandbox.makeSearcher().search(SearchRequest("", limit: 100, correctsSpelling: false)).hits
        return Dictionary(uniqueKeysWithValues: hits.map { ($0.key.description, $0.fields["title"]?.description ?? "") })
    }

    @Test("a table rebuilt by the sqlite3 shell is detected and the index rebuilt with the reason")
    func tableRebuiltElsewhere() async throws {
        let (sandbox, indexer) = try await Self.indexedSandbox()
        try sandbox.sqlite3("""
            CREATE TABLE t AS SELECT * FROM Item;
            DROP TABLE Item;
            CREATE TABLE Item (id TEXT PRIMARY KEY NOT NULL, title TEXT);
            INSERT INTO Item SELECT id, 'new ' || id FROM t WHERE id <> 'c';
            INSERT INTO Item VALUES ('d', 'new d');
            DROP TABLE t;
            """)
        let summary = try await indexer.update()
        #expect(summary.rebuilt, "\(summary)")
        #expect(summary.reason?.contains("triggers") == true, "\(summary.reason ?? "")")
        #expect(try Self.indexedTitles(sandbox) == ["a": "new a", "b": "new b", "d": "new d"])
        // Capture works again, and the next update is incremental.
        try sandbox.sqlite3("UPDATE Item SET title = 'newer a' WHERE id = 'a';")
        let next = try await indexer.update()
        #expect(!next.rebuilt)
        #expect(try Self.indexedTitles(sandbox)["a"] == "newer a")
    }

    @Test("a dropped trigger is re-created, and the writes it missed are indexed by a rebuild")
    func droppedTrigger() async throws {
        let (sandbox, indexer) = try await Self.indexedSandbox()
        try sandbox.sqlite3("DROP TRIGGER spotlite_Item_update; UPDATE Item SET title = 'unrecorded' WHERE id = 'b';")
        // Another handle opening the store re-creates the trigger first: the gap must not be forgotten.
        _ = try SpotliteStore(path: sandbox.storePath, model: sandbox.configuration.storeModel)
        let summary = try await indexer.update()
        #expect(summary.rebuilt)
        #expect(summary.reason?.contains("spotlite_Item_update") == true, "\(summary.reason ?? "")")
        #expect(try Self.indexedTitles(sandbox)["b"] == "unrecorded")
        #expect(try !(await indexer.update()).rebuilt, "rebuilt once, not on every update")
    }

    @Test("a poisoned spotlite_current is repaired and later foreign changes are indexed")
    func poisonedCurrentToken() async throws {
        let (sandbox, indexer) = try await Self.indexedSandbox()
        try sandbox.store.write(author: "app") { db in try db.execute(sql: "UPDATE Item SET title = 'second' WHERE id = 'a'") }
        try await indexer.update()
        try sandbox.sqlite3("""
            UPDATE spotlite_current SET token = 1;
            UPDATE Item SET title = 'poisoned b' WHERE id = 'b';
            INSERT INTO Item (id, title) VALUES ('e', 'poisoned e');
            """)
        let summary = try await indexer.update()
        #expect(summary.transactions == 1, "the detached changes got a transaction of their own: \(summary)")
        #expect(try Self.indexedTitles(sandbox) == ["a": "second", "b": "poisoned b", "c": "old c", "e": "poisoned e"])
        let current = try sandbox.store.read { db in try Int64.fetchOne(db, sql: "SELECT token FROM spotlite_current") }
        #expect(current == nil)
        // Transaction 1 keeps exactly its own three inserts.
        let first = try sandbox.store.fetchHistory(HistoryRequest.after(nil).limit(1))
        #expect(first.first?.changes.count == 3)
    }

    @Test("a document whose stored data is damaged is an error naming the rebuild, not a silently missing hit")
    func damagedDocumentData() async throws {
        let (sandbox, indexer) = try await Self.indexedSandbox()
        let directory = IndexDirectory(path: sandbox.indexPath)
        let generation = try #require(directory.liveGeneration)
        do {
            let writer = try XapianWritableDatabase(path: directory.generationPath(generation), action: .open)
            let document = try XapianDocument()
            let idTerm = DocumentIdentity.term(entity: "Item", key: "b".databaseValue)
            try document.addBooleanTerm(idTerm)
            try document.addBooleanTerm(IndexSchema.entityTermPrefix + "Item")
            try document.addTerm("damaged")
            try document.setData("{\"entity\":\"Item\",\"key\":")
            _ = try writer.replaceDocument(uniqueTerm: idTerm, document: document)
            try writer.commit()
            try writer.close()
        }
        let error = #expect(throws: SearchError.self) {
            try sandbox.makeSearcher().search(SearchRequest("", limit: 10, correctsSpelling: false))
        }
        guard case .indexCorrupt(sandbox.indexPath, _)? = error else {
            Issue.record("expected the index unreadable, got \(String(describing: error))")
            return
        }
        #expect(error?.recovery == .rebuildIndex)
        try await indexer.rebuild()
        #expect(try Self.indexedTitles(sandbox)["b"] == "old b")
    }
}

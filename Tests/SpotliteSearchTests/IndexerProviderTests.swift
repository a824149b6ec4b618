import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// The override point: a document provider that follows a relation, like `attributeSet(for:)` reading a
/// relationship in Core Spotlight.
@Suite("Indexer document providers", .blockingWork)
struct IndexerProviderTests {
    /// Packages are indexed with their maintainer's name, read from the related Maintainer table; maintainers are
    /// tracked (so their changes reach the indexer) but not indexed themselves.
    struct PackageWithMaintainer: IndexDocumentProvider {
        func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet? {
            guard record.entity == "Package" else { return nil }
            var attributes = AttributeSet(["name": record.key, "summary": record.row["summary"]])
            if let maintainerID: Int64 = record.row["maintainer_id"] {
                let name = try String.fetchOne(db, sql: "SELECT name FROM Maintainer WHERE id = ?", arguments: [maintainerID])
                attributes["maintainer"] = name?.databaseValue ?? .null
            }
            return attributes
        }

        func recordsDepending(on entity: String, keys: [DatabaseValue], in db: Database) throws -> [RecordID] {
            guard entity == "Maintainer" else { return [] }
            let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ",")
            return try String.fetchAll(db, sql: "SELECT name FROM Package WHERE maintainer_id IN (\(placeholders))",
                                       arguments: StatementArguments(keys))
                .map { RecordID(entity: "Package", key: $0.databaseValue) }
        }
    }

    static let entities = """
        [entities.Package]
        key = "name"
        [entities.Package.fields]
        name = { type = "text", prefix = "name", store = true }
        summary = { type = "text", store = true }
        maintainer = { type = "text", prefix = "maintainer", store = true }

        [entities.Maintainer]
        key = "id"
        [entities.Maintainer.fields]
        id = { type = "number" }
        name = { type = "text" }
        """

    static func makeSandbox() throws -> IndexerSandbox {
        let sandbox = try IndexerSandbox(entities: entities, prepareSQL: """
            CREATE TABLE Package (name TEXT PRIMARY KEY NOT NULL, summary TEXT, maintainer TEXT, maintainer_id INTEGER);
            """)
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Maintainer (id, name) VALUES (1, 'Olly Betts'), (2, 'Jordi Mallach')")
            try db.execute(sql: """
                INSERT INTO Package (name, summary, maintainer_id) VALUES
                  ('xapian-tools', 'Basic tools for Xapian', 1), ('xapian-omega', 'CGI search interface', 1),
                  ('nano', 'small text editor', 2), ('orphan', 'nobody maintains this', NULL)
                """)
        }
        return sandbox
    }

    @Test("the provider's values, read from a related table, are searchable and stored")
    func followsRelation() async throws {
        let sandbox = try Self.makeSandbox()
        let indexer = try sandbox.makeIndexer(provider: PackageWithMaintainer())
        let summary = try await indexer.update()
        #expect(summary.indexed == 4, "maintainers themselves are left out")
        #expect(Set(try sandbox.keys("maintainer:olly")) == ["xapian-tools", "xapian-omega"])
        #expect(try sandbox.keys("maintainer:jordi") == ["nano"])
        #expect(try sandbox.keys("entity:Maintainer").isEmpty)
        let hit = try #require(try sandbox.makeSearcher().search(SearchRequest("nano")).hits.first)
        #expect(hit.fields["maintainer"] == .text("Jordi Mallach"))
    }

    @Test("a change to the related row alone reindexes the records that depend on it")
    func relatedChange() async throws {
        let sandbox = try Self.makeSandbox()
        let indexer = try sandbox.makeIndexer(provider: PackageWithMaintainer())
        try await indexer.update()

        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Maintainer SET name = 'Oliver Betts' WHERE id = 1")
        }
        let renamed = try await indexer.update()
        #expect(renamed.changes == 1)
        #expect(renamed.indexed == 2, "both packages of the maintainer")
        #expect(Set(try sandbox.keys("maintainer:oliver")) == ["xapian-tools", "xapian-omega"])
        #expect(try sandbox.keys("maintainer:olly").isEmpty)

        try sandbox.store.write(author: "app") { db in try db.execute(sql: "DELETE FROM Maintainer WHERE id = 2") }
        try await indexer.update()
        #expect(try sandbox.keys("maintainer:jordi").isEmpty)
        #expect(try sandbox.keys("nano") == ["nano"], "the package stays, without a maintainer")
    }

    @Test("with a provider, an update of any column reindexes the record (its values may come from anywhere)")
    func anyColumnReindexes() async throws {
        let sandbox = try Self.makeSandbox()
        let indexer = try sandbox.makeIndexer(provider: PackageWithMaintainer())
        try await indexer.update()
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET maintainer_id = 2 WHERE name = 'orphan'")
        }
        #expect(try await indexer.update().indexed == 1)
        #expect(Set(try sandbox.keys("maintainer:jordi")) == ["nano", "orphan"])
    }
}

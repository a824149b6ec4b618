import Foundation
import SpotliteSearch
import SpotliteStore
import Testing

/// The README's "Embedding the library" code, compiled and run, so that it stays true.
@Suite("README example")
struct ReadmeExampleTests {
    @Test func embeddingExampleWorks() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // --- README begins
        let configuration = Configuration(
            storePath: directory + "/notes.sqlite",
            indexPath: directory + "/search",
            entities: [
                EntityConfiguration(name: "Note", key: "id", preserveOnDelete: ["title"], fields: [
                    .text("title", weight: 3, prefix: "title", store: true),
                    .text("body"),
                    .keyword("folder", facet: true, store: true),
                ]),
            ])

        // The store: a SQLite file whose every change is recorded as history.
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        try store.write(author: "app", context: "editor") { db in
            try db.execute(sql: "INSERT INTO Note (id, title, body, folder) VALUES ('n1', 'Groceries', 'milk, eggs, bread', 'home')")
        }

        // The indexer follows that history, in live mode, from any process's writes.
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        try await indexer.update()
        try await indexer.start()

        // Searches answer from the index while it is updated.
        let searcher = try IndexSearcher(configuration: configuration, store: store)
        let results = try searcher.search(SearchRequest("eggs", facets: ["folder"]))
        print(results.hits.first?.key as Any)     // Optional(n1)

        await indexer.stop()
        // --- README ends

        #expect(results.hits.first?.key == .text("n1"))
        #expect(results.facets["folder"]?.first?.value == "home")
        #expect(results.facets["folder"]?.first?.count == 1)
        #expect(try store.fetchHistory(.after(nil)).first?.author == "app")
    }
}

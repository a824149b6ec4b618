import Foundation
import Spotlite
import SpotliteTestSupport
import Testing

/// The README's "Embedding the library" code, compiled and run, so that it stays true.
@Suite("README example", .blockingWork)
struct ReadmeExampleTests {
    @Test func embeddingExampleWorks() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // --- README begins
        let configuration = SpotliteConfiguration(
            storePath: directory + "/notes.sqlite",
            indexPath: directory + "/search",
            history: HistoryConfiguration(authors: ["app", "widget"]),
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

        // A tracker delivers what other authors (a widget, a share extension, the sqlite3 shell) wrote.
        let tracker = try HistoryTracker(
            store: store, configuration: configuration.trackerConfiguration(currentAuthor: "app", autoStart: false),
            subscribers: [AnyHistorySubscriber { transactions in
                print("merged \(transactions.count) transactions by others")
            }])
        try store.write(author: "widget", context: "quickAdd") { db in
            try db.execute(sql: "INSERT INTO Note (id, title, body, folder) VALUES ('n2', 'Call Ada', 'about eggs', 'work')")
        }
        let pass = try await tracker.processPendingHistory()   // or tracker.start(): after every change
        print(pass.deliveredTransactions)                      // 1

        // The indexer follows that history, in live mode, from any process's writes.
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        try await indexer.update()
        try await indexer.start()

        // Searches answer from the index while it is updated.
        let searcher = try IndexSearcher(configuration: configuration, store: store)
        let results = try searcher.search(SearchRequest("eggs", facets: ["folder"]))
        print(results.hits.map(\.key))            // [n1, n2]

        await indexer.stop()
        // --- README ends

        #expect(pass.deliveredTransactions == 1, "the app's own write is not delivered back to it")
        #expect(Set(results.hits.map(\.key)) == [.text("n1"), .text("n2")])
        #expect(results.facets["folder"]?.map(\.count) == [1, 1])
        #expect(try store.fetchHistory(.after(nil)).first?.author == "app")
    }
}

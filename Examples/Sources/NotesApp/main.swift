import Foundation
import Spotlite

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-notes-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

let configuration = SpotliteConfiguration(
    storePath: directory + "/notes.sqlite",
    indexPath: directory + "/search",
    history: HistoryConfiguration(authors: ["app", "widget"]),
    entities: [
        EntityConfiguration(name: "Note", key: "id", fields: [
            .text("title", weight: 3, store: true),
            .text("body"),
        ]),
    ])
let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
let indexer = try SpotliteIndexer(store: store, configuration: configuration)
try await indexer.start()
let written = try store.writeReturningToken(author: "widget") { db in
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n1', 'Groceries', 'milk, eggs, bread')")
}
if let token = written.token { try await indexer.waitUntilIndexed(through: token) }
let searcher = try IndexSearcher(configuration: configuration)
print("search \"eggs\": \(try searcher.search(SearchRequest("eggs")).hits.map(\.key))")
await indexer.stop()

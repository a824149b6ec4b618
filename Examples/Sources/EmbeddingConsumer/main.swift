import Foundation
import SpotliteEmbeddings
import SpotliteHybrid
import SpotliteStore

// An app keeping vectors of its notes with a real sentence model, from the store's history: semantic search next to
// (or without) the keyword index. `make deps` installs the model; SPOTLITE_MODEL_DIR points elsewhere.
let modelPath = ProcessInfo.processInfo.environment["SPOTLITE_MODEL_DIR"] ?? "Index/models/all-MiniLM-L6-v2"
let encoder: SentenceEncoder
do {
    encoder = try SentenceEncoder(directory: URL(fileURLWithPath: modelPath))
} catch {
    FileHandle.standardError.write(Data("EmbeddingConsumer: \(error)\n".utf8))
    exit(1)
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-example-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let model = StoreModel(entities: [
    EntityDescription(name: "Note", key: "id", keyType: .text,
                      attributes: [AttributeDescription(name: "title", type: .text),
                                   AttributeDescription(name: "body", type: .text)]),
])
let store = try SpotliteStore(path: directory.appendingPathComponent("notes.sqlite").path, model: model)
try store.write(author: "app") { db in
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n1', 'Groceries', 'milk, eggs, butter')")
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n2', 'Sourdough', 'feed the starter, proof overnight, hot oven')")
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n3', 'Car', 'book the garage to replace the brake pads')")
}

// The vectors live in a SQLite file of their own, with the history cursor they reflect.
let vectors = try VectorIndex(path: directory.appendingPathComponent("vectors").path)
let embedder = EmbeddingIndexer(encoder: encoder, vectors: vectors, fields: ["Note": ["title", "body"]])
let driver = try HistoryConsumerDriver(store: store, consumer: embedder, start: .snapshot)
let first = try await driver.processPending()
print("snapshot: \(try vectors.state().vectors) notes embedded (resynchronised: \(first.snapshot))")

func nearest(_ query: String) throws -> String {
    let hit = try vectors.search(encoder.vector(for: query), limit: 1).first
    return hit.map { "\(String.fromDatabaseValue($0.record.key) ?? "?") (\(String(format: "%.2f", $0.similarity)))" } ?? "none"
}
print("nearest to \"baking loaves of bread\": \(try nearest("baking loaves of bread"))")

await driver.start()
let written = try store.writeReturningToken(author: "app") { db in
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n4', 'Zoo trip', 'zebras, giraffes and a sleepy lion')")
    try db.execute(sql: "DELETE FROM Note WHERE id = 'n2'")
}
if let token = written.token { try await driver.waitUntilProcessed(through: token) }
await driver.stop()
print("live: \(try vectors.state().vectors) notes embedded; nearest to \"wild animals\": \(try nearest("wild animals"))")
try await driver.unregister()

// Semantic and hybrid search: the same notes in a keyword index too, and a searcher answering in either mode.
let configuration = SpotliteConfiguration(
    storePath: store.path, indexPath: directory.appendingPathComponent("search").path,
    entities: [EntityConfiguration(name: "Note", key: "id", fields: [.text("title", store: true), .text("body")],
                                   embed: ["title", "body"])])
try await SpotliteIndexer(store: store, configuration: configuration).update()
let searcher = HybridSearcher(keyword: try IndexSearcher(configuration: configuration, store: store),
                              semantic: SemanticIndex(encoder: encoder, vectors: vectors, fields: configuration.embeddedFields))
for mode in [SearchMode.semantic, .hybrid] {
    let results = try searcher.search(SearchRequest("book the zoo", limit: 2), mode: mode)
    let hits = results.hits.map { hit in
        "\(hit.key) (words \(hit.keywordRank.map { "#\($0)" } ?? "–"), meaning \(hit.semanticRank.map { "#\($0)" } ?? "–"))"
    }
    print("\(mode) \"book the zoo\": \(hits.joined(separator: ", "))")
}

import Foundation
import Synchronization
import SpotliteStore

/// A stand-in for a vector database: one vector per note, kept in memory.
final class VectorStore: Sendable {
    private let vectors = Mutex<[String: [Double]]>([:])

    func store(_ vector: [Double], for id: String) { vectors.withLock { $0[id] = vector } }
    func remove(_ id: String) { _ = vectors.withLock { $0.removeValue(forKey: id) } }
    func removeAll() { vectors.withLock { $0 = [:] } }
    var count: Int { vectors.withLock { $0.count } }

    /// The id whose vector is closest (cosine) to `vector`.
    func nearest(to vector: [Double]) -> String? {
        vectors.withLock { vectors in
            vectors.max { cosine($0.value, vector) < cosine($1.value, vector) }?.key
        }
    }
}

/// A toy embedding: letter frequencies. A real consumer would call a model here.
func embed(_ text: String) -> [Double] {
    var vector = [Double](repeating: 0, count: 26)
    for scalar in text.lowercased().unicodeScalars where ("a"..."z").contains(scalar) {
        vector[Int(scalar.value - 97)] += 1
    }
    return vector
}

func cosine(_ a: [Double], _ b: [Double]) -> Double {
    let dot = zip(a, b).map(*).reduce(0, +)
    let norms = (a.map { $0 * $0 }.reduce(0, +) * b.map { $0 * $0 }.reduce(0, +)).squareRoot()
    return norms == 0 ? 0 : dot / norms
}

/// The consumer: what to do with changed notes. Paging, positions, cleanup and live mode are the driver's.
struct EmbeddingIndexer: HistoryConsumer {
    let vectors: VectorStore
    var consumerName: String { "embeddings" }
    var filter: HistoryRequest { HistoryRequest(entities: ["Note"]) }

    func document(for record: RecordID, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT title || ' ' || body FROM Note WHERE id = ?", arguments: [record.key])
    }

    func apply(_ batch: HistoryBatch<String>) async throws {
        if batch.isFirstOfSnapshot { vectors.removeAll() }
        for upsert in batch.upserts { vectors.store(embed(upsert.document), for: "\(upsert.record.key)") }
        for record in batch.deletions { vectors.remove("\(record.key)") }
    }
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
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n1', 'Groceries', 'milk, eggs, bread')")
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n2', 'Zoo trip', 'zebras and yaks')")
}

let vectors = VectorStore()
let driver = try HistoryConsumerDriver(store: store, consumer: EmbeddingIndexer(vectors: vectors), start: .snapshot)
let first = try await driver.processPending()
print("snapshot: \(first.upserts) notes embedded")

await driver.start()
let written = try store.writeReturningToken(author: "app") { db in
    try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES ('n3', 'Jazz', 'quizzical saxophone riffs')")
    try db.execute(sql: "DELETE FROM Note WHERE id = 'n1'")
}
if let token = written.token { try await driver.waitUntilProcessed(through: token) }
await driver.stop()
print("live: \(vectors.count) notes embedded; nearest to \"zebra zoo\": \(vectors.nearest(to: embed("zebra zoo")) ?? "none")")
try await driver.unregister()

import Foundation
import SpotliteEmbeddings
import SpotliteStore
import SpotliteTestSupport
import Testing

@Suite("The embedding consumer on a real store", .blockingWork)
struct EmbeddingIndexerTests {
    private struct Fixture {
        let folder: URL
        let store: SpotliteStore
        let vectors: VectorIndex
        let embedder: EmbeddingIndexer

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-embedder-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let model = StoreModel(entities: [
                EntityDescription(name: "Recipe", key: "id", keyType: .text,
                                  attributes: [AttributeDescription(name: "title", type: .text),
                                               AttributeDescription(name: "body", type: .text),
                                               AttributeDescription(name: "rating", type: .integer)]),
            ])
            store = try SpotliteStore(path: folder.appendingPathComponent("store.sqlite").path, model: model)
            vectors = try VectorIndex(path: folder.appendingPathComponent("vectors").path)
            embedder = EmbeddingIndexer(encoder: try ModelLocation.encoder(), vectors: vectors,
                                        fields: ["Recipe": ["title", "body"]], batchSize: 2)
        }

        func insert(_ id: String, _ title: String, _ body: String) throws {
            try store.write(author: "app") { db in
                try db.execute(sql: "INSERT INTO Recipe (id, title, body, rating) VALUES (?, ?, ?, 3)", arguments: [id, title, body])
            }
        }

        func nearest(_ text: String, limit: Int = 1) throws -> [String] {
            try vectors.search(embedder.encoder.vector(for: text), limit: limit).map { String.fromDatabaseValue($0.record.key) ?? "" }
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test("A first start embeds the existing rows from a snapshot and saves its position, so cleanup waits for it")
    func firstStart() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.insert("r1", "Country sourdough", "A starter, flour, water and salt, proofed overnight and baked in a Dutch oven.")
        try fixture.insert("r2", "Brake pads", "Replacing the pads and discs of a car's front brakes.")
        try fixture.insert("r3", "Gazpacho", "A cold tomato and cucumber soup from Andalusia.")
        let driver = try HistoryConsumerDriver(store: fixture.store, consumer: fixture.embedder)
        let round = try await driver.processPending()
        #expect(round.snapshot)
        let state = try fixture.vectors.state()
        #expect(state.vectors == 3 && state.dimensions == 384 && state.modelName == "all-MiniLM-L6-v2")
        #expect(state.modelFingerprint == fixture.embedder.encoder.fingerprint)
        let token = try fixture.store.currentToken()
        #expect(state.cursor?.token == token)
        #expect(try fixture.store.position(of: EmbeddingIndexer.defaultName)?.token == token)
        #expect(try fixture.nearest("baking loaves of bread") == ["r1"])
    }

    @Test("Inserts, updates and deletes from history reach the vectors; a text emptied removes its vector")
    func historyChanges() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.insert("r1", "Country sourdough", "Flour, water, salt and a starter, baked hot.")
        let driver = try HistoryConsumerDriver(store: fixture.store, consumer: fixture.embedder)
        _ = try await driver.processPending()
        try fixture.insert("r2", "Iced tea", "Black tea brewed strong and poured over ice with lemon.")
        try fixture.insert("r3", "Oil change", "Draining the engine oil and replacing the filter.")
        try fixture.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Recipe SET body = 'Chilled cucumber and tomato soup.', title = 'Gazpacho' WHERE id = 'r1'")
            try db.execute(sql: "DELETE FROM Recipe WHERE id = 'r3'")
        }
        let round = try await driver.processPending()
        #expect(!round.snapshot)
        #expect(round.upserts == 2 && round.deletions == 1)
        #expect(try fixture.vectors.state().vectors == 2)
        #expect(try fixture.nearest("a cold summer soup") == ["r1"])
        #expect(try fixture.nearest("car engine maintenance", limit: 5).contains("r3") == false)
        try fixture.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Recipe SET title = '', body = '   ' WHERE id = 'r2'")
        }
        _ = try await driver.processPending()
        #expect(try fixture.vectors.state().vectors == 1)
        #expect(try fixture.vectors.state().cursor?.token == fixture.store.currentToken())
    }

    @Test("Each round's time is told by stage: reading, embedding, committing, finishing")
    func roundTimings() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.insert("r1", "Pancakes", "Flour, eggs and milk fried in butter.")
        let driver = try HistoryConsumerDriver(store: fixture.store, consumer: fixture.embedder)
        _ = try await driver.processPending()
        let afterSnapshot = fixture.embedder.timings.totals
        #expect(afterSnapshot.rounds == 1 && afterSnapshot.batches >= 1)
        try fixture.insert("r2", "Omelette", "Eggs beaten and folded in a hot pan.")
        _ = try await driver.processPending()
        _ = try await driver.processPending()
        let totals = fixture.embedder.timings.totals
        #expect(totals.rounds == 3)
        #expect(totals.batches == afterSnapshot.batches + 1)
        #expect(totals.embedding > afterSnapshot.embedding && totals.committing > afterSnapshot.committing)
        #expect(totals.reading > 0 && totals.finishing > 0)
        #expect(abs(totals.total - (totals.reading + totals.embedding + totals.committing + totals.finishing)) < 1e-12)
        #expect(try fixture.vectors.cursor() == fixture.vectors.state().cursor)
        #expect(try fixture.vectors.cursor()?.token == fixture.store.currentToken())
    }

    @Test("A new driver resumes from the cursor committed with the vectors and embeds nothing twice")
    func resumesWhereItStopped() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.insert("r1", "Pancakes", "Flour, eggs and milk fried in butter.")
        do {
            let driver = try HistoryConsumerDriver(store: fixture.store, consumer: fixture.embedder)
            _ = try await driver.processPending()
        }
        try fixture.insert("r2", "Omelette", "Eggs beaten and folded in a hot pan.")
        let reopened = EmbeddingIndexer(encoder: fixture.embedder.encoder, vectors: try VectorIndex(path: fixture.vectors.path),
                                        fields: ["Recipe": ["title", "body"]])
        let driver = try HistoryConsumerDriver(store: fixture.store, consumer: reopened)
        let round = try await driver.processPending()
        #expect(!round.snapshot && round.upserts == 1)
        #expect(try fixture.vectors.state().vectors == 2)
        let again = try await driver.processPending()
        #expect(again.upserts == 0)
    }

    @Test("An update of a column that is not embedded is passed over")
    func unembeddedColumn() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.insert("r1", "Pancakes", "Flour, eggs and milk fried in butter.")
        let driver = try HistoryConsumerDriver(store: fixture.store, consumer: fixture.embedder)
        _ = try await driver.processPending()
        try fixture.store.write(author: "app") { db in try db.execute(sql: "UPDATE Recipe SET rating = 5") }
        let round = try await driver.processPending()
        #expect(round.upserts == 0 && round.deletions == 0)
        #expect(try fixture.vectors.state().cursor?.token == fixture.store.currentToken())
    }

    @Test("Vectors made by another model are rebuilt beside and switched, saying why")
    func anotherModel() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.insert("r1", "Pancakes", "Flour, eggs and milk fried in butter.")
        try fixture.insert("r2", "Lemonade", "Lemons, sugar and cold water.")
        try fixture.vectors.commit(
            VectorChanges(upserts: [.init(record: RecordID(entity: "Recipe", key: "old".databaseValue), vector: [0.6, 0.8])]),
            cursor: HistoryCursor(token: try fixture.store.currentToken()), model: ("another", "tiny-model"))
        let driver = try HistoryConsumerDriver(store: fixture.store, consumer: fixture.embedder)
        let round = try await driver.processPending()
        #expect(round.snapshot)
        #expect("\(round.resynchronization.map { "\($0)" } ?? "")".contains("2 dimensions"))
        let state = try fixture.vectors.state()
        #expect(state.vectors == 2 && state.dimensions == 384 && state.modelFingerprint == fixture.embedder.encoder.fingerprint)
        #expect(try fixture.nearest("a cold drink") == ["r2"])
    }

    @Test("Vectors of other fields are rebuilt from the new ones, saying which changed; vectors of the same fields are kept")
    func otherFields() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.insert("r1", "Country sourdough", "A cold tomato and cucumber soup from Andalusia.")
        try fixture.insert("r2", "Gazpacho", "A starter, flour, water and salt, proofed overnight and baked in a Dutch oven.")
        let first = try await HistoryConsumerDriver(store: fixture.store, consumer: fixture.embedder).processPending()
        #expect(first.snapshot)
        #expect(try fixture.vectors.state().fields == "Recipe: title, body")
        let same = EmbeddingIndexer(encoder: fixture.embedder.encoder, vectors: fixture.vectors,
                                    fields: ["Recipe": ["title", "body"]])
        #expect(try await same.resynchronizationReason(resumingAfter: HistoryCursor(token: nil)) == nil)

        // Now only the titles: the bodies' meaning must leave the vectors.
        let titles = EmbeddingIndexer(encoder: fixture.embedder.encoder, vectors: fixture.vectors,
                                      fields: ["Recipe": ["title"]])
        let round = try await HistoryConsumerDriver(store: fixture.store, consumer: titles).processPending()
        #expect(round.snapshot)
        #expect("\(round.resynchronization.map { "\($0)" } ?? "")".contains("the embedded fields changed (Recipe: title, body is now Recipe: title)"))
        let state = try fixture.vectors.state()
        #expect(state.vectors == 2 && state.fields == "Recipe: title")
        #expect(try fixture.nearest("baking loaves of bread") == ["r1"], "by its title now, not by the body about soup")
    }
}

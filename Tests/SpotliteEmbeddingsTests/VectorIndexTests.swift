import Foundation
import SpotliteEmbeddings
import SpotliteStore
import SpotliteTestSupport
import Synchronization
import Testing

@Suite("The vector index: vectors and their cursor committed together", .blockingWork)
struct VectorIndexTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-vectors-\(UUID().uuidString)").path
    }

    private func normalised(_ values: [Float]) -> [Float] {
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / norm }
    }

    private func randomVectors(_ count: Int, dimensions: Int, seed: UInt64) -> [[Float]] {
        var state = seed
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state >> 11) % 2000) / 1000 - 1
        }
        return (0..<count).map { _ in normalised((0..<dimensions).map { _ in next() }) }
    }

    private func record(_ key: Int) -> RecordID { RecordID(entity: "Doc", key: key.databaseValue) }

    @Test("Exact search finds the nearest vectors, best first, and honours entities and records")
    func exactSearch() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let index = try VectorIndex(path: path)
        let vectors = randomVectors(200, dimensions: 16, seed: 1)
        var changes = VectorChanges(upserts: vectors.enumerated().map { .init(record: record($0.offset), vector: $0.element) })
        changes.upserts.append(.init(record: RecordID(entity: "Note", key: "n1".databaseValue), vector: vectors[5]))
        try index.commit(changes, cursor: HistoryCursor(token: HistoryToken(7)), model: ("abc", "test"))
        let hits = try index.search(vectors[5], limit: 3)
        #expect(Set(hits.prefix(2).map(\.record)) == [record(5), RecordID(entity: "Note", key: "n1".databaseValue)])
        #expect(abs(hits[0].similarity - 1) < 1e-5)
        let expected = vectors.enumerated().map { ($0.offset, zip($0.element, vectors[5]).reduce(0) { $0 + $1.0 * $1.1 }) }
            .filter { $0.0 != 5 }.max { $0.1 < $1.1 }!
        #expect(hits[2].record == record(expected.0))
        let onlyDocs = try index.search(vectors[5], limit: 2, entities: ["Doc"])
        #expect(onlyDocs.map(\.record) == [record(5), record(expected.0)])
        let among = try index.search(vectors[5], limit: 5, records: [record(1), record(2)])
        #expect(Set(among.map(\.record)) == [record(1), record(2)])
        let state = try index.state()
        #expect(state.vectors == 201 && state.dimensions == 16 && state.cursor == HistoryCursor(token: HistoryToken(7)))
        #expect(state.modelFingerprint == "abc" && state.modelName == "test")
    }

    @Test("Updates and deletions show in the next search, in this handle and in another one")
    func updatesAndOtherHandles() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let index = try VectorIndex(path: path)
        let other = try VectorIndex(path: path)
        let vectors = randomVectors(50, dimensions: 8, seed: 2)
        try index.commit(VectorChanges(upserts: (0..<40).map { .init(record: record($0), vector: vectors[$0]) }), cursor: nil)
        #expect(try other.search(vectors[45], limit: 1).first?.record != record(45))
        try index.commit(VectorChanges(upserts: [.init(record: record(3), vector: vectors[45])], deletions: [record(0)]),
                         cursor: HistoryCursor(token: HistoryToken(2)))
        #expect(try index.search(vectors[45], limit: 1).first?.record == record(3))
        #expect(try other.search(vectors[45], limit: 1).first?.record == record(3))
        #expect(try other.search(vectors[0], limit: 40).contains { $0.record == record(0) } == false)
        try other.commit(VectorChanges(deletions: [record(3)]), cursor: HistoryCursor(token: HistoryToken(3)))
        #expect(try index.search(vectors[45], limit: 40).contains { $0.record == record(3) } == false)
        #expect(try index.state().vectors == 38)
        #expect(try index.state().cursor == HistoryCursor(token: HistoryToken(3)))
    }

    @Test("Vectors of other dimensions are refused, in a commit and in a query")
    func dimensionMismatch() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let index = try VectorIndex(path: path)
        try index.commit(VectorChanges(upserts: [.init(record: record(1), vector: normalised([1, 2, 3]))]), cursor: nil)
        #expect(throws: EmbeddingError.self) {
            try index.commit(VectorChanges(upserts: [.init(record: record(2), vector: normalised([1, 2, 3, 4]))]), cursor: HistoryCursor(token: HistoryToken(9)))
        }
        #expect(try index.state().cursor == nil)
        #expect(try index.state().vectors == 1)
        do {
            _ = try index.search(normalised([1, 2, 3, 4]), limit: 1)
            Issue.record("a query of 4 dimensions against vectors of 3 was answered")
        } catch let error as EmbeddingError {
            guard case .dimensionMismatch(let expected, let found, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(expected == 4 && found == 3)
            #expect(error.description.contains("index rebuild"))
        }
    }

    @Test("A rebuild is written beside the live vectors and replaces them in one step")
    func rebuildBeside() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let index = try VectorIndex(path: path)
        let old = randomVectors(10, dimensions: 4, seed: 3)
        try index.commit(VectorChanges(upserts: old.enumerated().map { .init(record: record($0.offset), vector: $0.element) }),
                         cursor: HistoryCursor(token: HistoryToken(1)), model: ("old", "old-model"))
        try index.beginRebuild()
        let new = randomVectors(5, dimensions: 6, seed: 4)
        try index.appendToRebuild(new.enumerated().map { .init(record: record(100 + $0.offset), vector: $0.element, truncated: $0.offset == 0) })
        // Until the switch, searches and state still see the old vectors.
        #expect(try index.search(old[2], limit: 1).first?.record == record(2))
        #expect(try index.state().modelFingerprint == "old")
        try index.finishRebuild(cursor: HistoryCursor(token: HistoryToken(8)), model: ("new", "new-model"), dimensions: 6)
        let state = try index.state()
        #expect(state.vectors == 5 && state.truncated == 1 && state.dimensions == 6 && state.modelFingerprint == "new")
        #expect(state.cursor == HistoryCursor(token: HistoryToken(8)))
        #expect(try index.search(new[3], limit: 1).first?.record == record(103))
        #expect(throws: EmbeddingError.self) {
            try index.finishRebuild(cursor: HistoryCursor(token: HistoryToken(9)), model: ("x", "x"), dimensions: 6)
        }
    }

    @Test("Above the threshold, the HNSW graph finds what exact search finds, through updates and deletions")
    func hnswAgreesWithExact() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let graph = try VectorIndex(path: path, hnswThreshold: 100)
        let exact = try VectorIndex(path: path, hnswThreshold: 1_000_000)
        let vectors = randomVectors(600, dimensions: 32, seed: 5)
        try graph.commit(VectorChanges(upserts: (0..<500).map { .init(record: record($0), vector: vectors[$0]) }), cursor: nil)
        _ = try graph.search(vectors[0], limit: 1)
        try graph.commit(VectorChanges(upserts: (500..<600).map { .init(record: record($0 - 250), vector: vectors[$0]) },
                                       deletions: (0..<50).map(record)), cursor: nil)
        var agreeing = 0, total = 0
        for query in randomVectors(30, dimensions: 32, seed: 6) {
            let truth = Set(try exact.search(query, limit: 10).map(\.record))
            let found = try graph.search(query, limit: 10)
            #expect(found.count == 10)
            #expect(!found.contains { ($0.record.key.storage.value as? Int64).map { $0 < 50 } ?? false })
            agreeing += found.filter { truth.contains($0.record) }.count
            total += 10
        }
        #expect(Double(agreeing) / Double(total) >= 0.95)
        let onlyNotes = try graph.search(vectors[3], limit: 5, entities: ["Note"])
        #expect(onlyNotes.isEmpty)
    }

    @Test("The HNSW graph is built on several threads, telling its progress, and finds what exact search finds")
    func graphBuiltOnThreads() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        final class Reports: Sendable {
            let added = Mutex<[Int]>([])
            let totals = Mutex<Set<Int>>([])
        }
        let reports = Reports()
        let graph = try VectorIndex(path: path, hnswThreshold: 100, graphThreads: 4) { added, total in
            reports.added.withLock { $0.append(added) }
            reports.totals.withLock { _ = $0.insert(total) }
        }
        let exact = try VectorIndex(path: path, hnswThreshold: 1_000_000)
        let vectors = randomVectors(3000, dimensions: 32, seed: 21)
        try exact.commit(VectorChanges(upserts: vectors.enumerated().map { .init(record: record($0.offset), vector: $0.element) }),
                         cursor: nil)
        var agreeing = 0, total = 0
        for query in randomVectors(30, dimensions: 32, seed: 22) {
            let truth = Set(try exact.search(query, limit: 10).map(\.record))
            let found = try graph.search(query, limit: 10)
            #expect(found.count == 10)
            agreeing += found.filter { truth.contains($0.record) }.count
            total += 10
        }
        #expect(Double(agreeing) / Double(total) >= 0.95)
        let added = reports.added.withLock { $0 }
        #expect(!added.isEmpty && added == added.sorted() && added.last == 3000)
        #expect(reports.totals.withLock { $0 } == [3000])
        // Every vector is in the graph once: each is its own nearest.
        for row in stride(from: 0, to: 3000, by: 97) {
            #expect(try graph.search(vectors[row], limit: 1, candidates: 3000).first?.record == record(row))
        }
    }

    @Test("A search's own HNSW candidate list trades recall for time; exact search ignores it")
    func candidatesPerSearch() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let graph = try VectorIndex(path: path, hnswThreshold: 100, hnswCandidates: 10)
        let exact = try VectorIndex(path: path, hnswThreshold: 1_000_000)
        let vectors = randomVectors(2000, dimensions: 32, seed: 9)
        try graph.commit(VectorChanges(upserts: vectors.enumerated().map { .init(record: record($0.offset), vector: $0.element) }),
                         cursor: nil)
        var narrow = 0, wide = 0
        for query in randomVectors(40, dimensions: 32, seed: 10) {
            let truth = try exact.search(query, limit: 10)
            #expect(try exact.search(query, limit: 10, candidates: 1) == truth)
            let truthSet = Set(truth.map(\.record))
            narrow += try graph.search(query, limit: 10).filter { truthSet.contains($0.record) }.count
            let widened = try graph.search(query, limit: 10, candidates: 2000)
            #expect(widened.count == 10)
            wide += widened.filter { truthSet.contains($0.record) }.count
        }
        #expect(wide == 400)
        #expect(narrow <= wide)
    }
}

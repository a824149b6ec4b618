import Foundation
import SpotliteEmbeddings
import SpotliteStore
import SpotliteTestSupport
import Testing

/// The HNSW graph kept in the index folder (`keepsGraphFile`): loaded when it was built over exactly the vectors
/// held, with the same parameters, and intact; built again, saying why, in every other case.
@Suite("A kept HNSW graph is loaded only when it matches, and rebuilt with the reason otherwise", .blockingWork)
struct HNSWGraphFileTests {
    private struct Fixture {
        let path: String
        let vectors: [[Float]]
        let queries: [[Float]]

        init(count: Int = 1_200, dimensions: Int = 24) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-graph-\(UUID().uuidString)").path
            var state: UInt64 = 99
            func next() -> Float {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Float(state >> 40) / Float(1 << 24) * 2 - 1
            }
            func normalised(_ values: [Float]) -> [Float] {
                let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
                return values.map { $0 / norm }
            }
            vectors = (0..<count).map { _ in normalised((0..<dimensions).map { _ in next() }) }
            queries = (0..<30).map { _ in normalised((0..<dimensions).map { _ in next() }) }
            let index = try VectorIndex(path: path, hnswThreshold: .max)
            try index.commit(VectorChanges(upserts: vectors.enumerated().map {
                .init(record: RecordID(entity: "Doc", key: $0.offset.databaseValue), vector: $0.element)
            }), cursor: nil)
        }

        var graphFile: String { URL(fileURLWithPath: path).appendingPathComponent("graph.hnsw").path }
        var stampFile: String { URL(fileURLWithPath: path).appendingPathComponent("graph.json").path }

        func open(connections: Int = VectorIndex.defaultHNSWConnections) throws -> VectorIndex {
            let index = try VectorIndex(path: path, hnswThreshold: 1, graphThreads: 2, hnswConnections: connections,
                                        keepsGraphFile: true)
            try index.load()
            return index
        }

        func answers(_ index: VectorIndex) throws -> [[VectorHit]] {
            try queries.map { try index.search($0, limit: 10, candidates: 64) }
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test("A graph built and saved, then loaded by another handle, answers exactly as the one built")
    func reloadEqualsBuild() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let built = try fixture.open()
        #expect(built.graphOrigin == VectorIndex.GraphOrigin(loaded: false, rebuildReason: nil, saveProblem: nil))
        #expect(FileManager.default.fileExists(atPath: fixture.graphFile) && FileManager.default.fileExists(atPath: fixture.stampFile))
        let loaded = try fixture.open()
        #expect(loaded.graphOrigin == VectorIndex.GraphOrigin(loaded: true, rebuildReason: nil, saveProblem: nil))
        #expect(try fixture.answers(loaded) == fixture.answers(built))
        // Without keepsGraphFile the file is neither read nor written.
        let plain = try VectorIndex(path: fixture.path, hnswThreshold: 1)
        try plain.load()
        #expect(plain.graphOrigin == VectorIndex.GraphOrigin(loaded: false, rebuildReason: nil, saveProblem: nil))
    }

    /// Opens the index after `damage`, expects a rebuild whose reason contains `reason`, then a clean load.
    private func expectRebuild(_ fixture: Fixture, reason: String, connections: Int = VectorIndex.defaultHNSWConnections,
                               damage: () throws -> Void) throws {
        let built = try fixture.open()
        let expected = try fixture.answers(built)
        try damage()
        let rebuilt = try fixture.open(connections: connections)
        let origin = try #require(rebuilt.graphOrigin)
        #expect(!origin.loaded)
        #expect(origin.rebuildReason?.contains(reason) == true, "\(origin.rebuildReason ?? "no reason")")
        #expect(origin.saveProblem == nil)
        if connections == VectorIndex.defaultHNSWConnections {
            // Rebuilt over the same vectors: as good as the first graph (graphs built on two threads may differ).
            let answers = try fixture.answers(rebuilt)
            let agreeing = zip(answers, expected).map { Set($0.map(\.record)).intersection($1.map(\.record)).count }.reduce(0, +)
            #expect(agreeing >= 9 * 10 * fixture.queries.count / 10)
        }
        // The rebuilt graph was kept in place of the unusable one.
        #expect(try fixture.open(connections: connections).graphOrigin?.loaded == true)
    }

    @Test("A damaged graph file (a byte changed within its length) is rebuilt, naming the damage")
    func damagedGraph() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try expectRebuild(fixture, reason: "damaged") {
            let handle = try #require(FileHandle(forUpdatingAtPath: fixture.graphFile))
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: size / 2)
            let byte = try #require(try handle.read(upToCount: 1)).first!
            try handle.seek(toOffset: size / 2)
            try handle.write(contentsOf: Data([byte ^ 0x5A]))
        }
    }

    @Test("A truncated graph file is rebuilt, saying how many bytes it holds")
    func truncatedGraph() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try expectRebuild(fixture, reason: "truncated or replaced") {
            let handle = try #require(FileHandle(forUpdatingAtPath: fixture.graphFile))
            defer { try? handle.close() }
            try handle.truncate(atOffset: try handle.seekToEnd() - 100)
        }
    }

    @Test("A graph whose stamp is missing or unreadable is rebuilt")
    func stampProblems() throws {
        let missing = try Fixture()
        defer { missing.remove() }
        try expectRebuild(missing, reason: "no stamp") { try FileManager.default.removeItem(atPath: missing.stampFile) }
        let garbled = try Fixture()
        defer { garbled.remove() }
        try expectRebuild(garbled, reason: "cannot be read") { try Data("{ not json".utf8).write(to: URL(fileURLWithPath: garbled.stampFile)) }
        let noGraph = try Fixture()
        defer { noGraph.remove() }
        try expectRebuild(noGraph, reason: "is missing") { try FileManager.default.removeItem(atPath: noGraph.graphFile) }
    }

    @Test("A graph built with another M, or over vectors changed since, is rebuilt, saying which")
    func mismatches() throws {
        let parameters = try Fixture()
        defer { parameters.remove() }
        try expectRebuild(parameters, reason: "M 16 and efConstruction 100, the index asks for 8", connections: 8) {}
        let changed = try Fixture()
        defer { changed.remove() }
        try expectRebuild(changed, reason: "vectors changed") {
            // Another handle (keeping no graph) replaces one vector: same count, other components.
            let other = try VectorIndex(path: changed.path, hnswThreshold: .max)
            try other.commit(VectorChanges(upserts: [.init(record: RecordID(entity: "Doc", key: 3.databaseValue),
                                                           vector: changed.vectors[4])]), cursor: nil)
        }
        let grown = try Fixture()
        defer { grown.remove() }
        try expectRebuild(grown, reason: "built over 1200 vectors of 24 dimensions, the index holds 1201") {
            let other = try VectorIndex(path: grown.path, hnswThreshold: .max)
            try other.commit(VectorChanges(upserts: [.init(record: RecordID(entity: "Doc", key: 5000.databaseValue),
                                                           vector: grown.vectors[4])]), cursor: nil)
        }
    }
}

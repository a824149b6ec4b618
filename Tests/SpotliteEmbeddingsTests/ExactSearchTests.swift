import Foundation
import SpotliteEmbeddings
import SpotliteStore
import SpotliteTestSupport
import Testing

/// Exact search scans a compact copy of the vectors and rescores from the Float32 ones: these check its answer
/// against a brute-force reference over the Float32 vectors, where the compact copy alone would rank wrongly.
@Suite("Exact search over the compact copy returns the exact top k", .blockingWork)
struct ExactSearchTests {
    private struct Generator {
        var state: UInt64

        mutating func uniform() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }

        mutating func gaussian() -> Float {
            let u = max(uniform(), 1e-7), v = uniform()
            return (-2 * log(u)).squareRoot() * cos(2 * Float.pi * v)
        }

        mutating func gaussians(_ count: Int) -> [Float] { (0..<count).map { _ in gaussian() } }
    }

    private static func normalised(_ values: [Float]) -> [Float] {
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / norm }
    }

    /// The true score: the Float32 components' products summed in double precision in order (each product of two
    /// floats is exact in double, so any implementation summing in this order agrees to the bit).
    private static func trueScore(_ query: [Float], _ vector: [Float]) -> Double {
        var sum = 0.0
        for index in query.indices { sum += Double(query[index]) * Double(vector[index]) }
        return sum
    }

    private struct Fixture {
        let path: String
        let index: VectorIndex
        var vectors: [RecordID: [Float]] = [:]

        init(exactScan: VectorIndex.ExactScan = .compact) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-exact-\(UUID().uuidString)").path
            index = try VectorIndex(path: path, exactScan: exactScan)
        }

        mutating func commit(_ upserts: [(RecordID, [Float])], deletions: [RecordID] = []) throws {
            try index.commit(VectorChanges(upserts: upserts.map { .init(record: $0.0, vector: $0.1) }, deletions: deletions),
                             cursor: nil)
            for record in deletions { vectors[record] = nil }
            for (record, vector) in upserts { vectors[record] = vector }
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }

        /// Checks `search` against the reference: as many hits as there can be, each with its true similarity, best
        /// first, and their true scores exactly the best `limit` true scores of the allowed records (so the records
        /// are a true top `limit`; among equal true scores any may be chosen).
        func expectExact(_ query: [Float], limit: Int, entities: Set<String>? = nil, records: Set<RecordID>? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
            let hits = try index.search(query, limit: limit, entities: entities, records: records)
            let allowed = vectors.filter { (entities?.contains($0.key.entity) ?? true) && (records?.contains($0.key) ?? true) }
            let reference = allowed.values.map { ExactSearchTests.trueScore(query, $0) }.sorted(by: >).prefix(limit)
            #expect(hits.count == reference.count, sourceLocation: sourceLocation)
            #expect(Set(hits.map(\.record)).count == hits.count, "a record came twice", sourceLocation: sourceLocation)
            let scores = hits.map { ExactSearchTests.trueScore(query, vectors[$0.record] ?? query.map { _ in .nan }) }
            #expect(scores == Array(reference), sourceLocation: sourceLocation)
            for (hit, score) in zip(hits, scores) {
                #expect(hit.similarity == Float(score), sourceLocation: sourceLocation)
                #expect(allowed[hit.record] != nil, sourceLocation: sourceLocation)
            }
        }
    }

    private func record(_ key: Int, _ entity: String = "Doc") -> RecordID { RecordID(entity: entity, key: key.databaseValue) }

    @Test("Random vectors of 384 and of 13 dimensions: the top 1, 10 and 50 of every query are the true ones")
    func randomVectors() throws {
        for dimensions in [384, 13] {
            var generator = Generator(state: UInt64(dimensions))
            var fixture = try Fixture()
            defer { fixture.remove() }
            try fixture.commit((0..<3000).map { (record($0), Self.normalised(generator.gaussians(dimensions))) })
            for _ in 0..<20 {
                let query = Self.normalised(generator.gaussians(dimensions))
                for limit in [1, 10, 50] { try fixture.expectExact(query, limit: limit) }
            }
            // A query that is not of length 1 (the bound scales with its length).
            try fixture.expectExact(generator.gaussians(dimensions).map { $0 * 7 }, limit: 10)
        }
    }

    @Test("Clusters of near-duplicates the compact copy cannot tell apart are ranked by their true scores")
    func nearTies() throws {
        var generator = Generator(state: 11)
        var fixture = try Fixture()
        defer { fixture.remove() }
        var upserts: [(RecordID, [Float])] = []
        var centres: [[Float]] = []
        for cluster in 0..<5 {
            let centre = Self.normalised(generator.gaussians(384))
            centres.append(centre)
            for member in 0..<300 {
                // Members differ from one another by far less than the compact copy's rounding.
                let noise = generator.gaussians(384).map { $0 * 0.0005 }
                upserts.append((record(cluster * 1000 + member), Self.normalised(zip(centre, noise).map(+))))
            }
        }
        try fixture.commit(upserts)
        for centre in centres {
            let query = Self.normalised(zip(centre, generator.gaussians(384).map { $0 * 0.001 }).map(+))
            for limit in [1, 10, 100] { try fixture.expectExact(query, limit: limit) }
        }
        let rescored = fixture.index.scanStatistics.rowsRescored
        #expect(rescored > 0)
    }

    @Test("Exact ties (the same vector under several records) fill the top k with true scores, in a stable order")
    func exactTies() throws {
        var generator = Generator(state: 12)
        var fixture = try Fixture()
        defer { fixture.remove() }
        let shared = Self.normalised(generator.gaussians(64))
        var upserts = (0..<40).map { (record($0), shared) }
        upserts += (40..<400).map { (record($0), Self.normalised(generator.gaussians(64))) }
        try fixture.commit(upserts)
        try fixture.expectExact(shared, limit: 10)
        try fixture.expectExact(shared, limit: 45)
        let first = try fixture.index.search(shared, limit: 10)
        #expect(try fixture.index.search(shared, limit: 10) == first)
        #expect(first.allSatisfy { $0.similarity == first[0].similarity })
        // Every vector the same: every record ties, and every row is rescored.
        var same = try Fixture()
        defer { same.remove() }
        try same.commit((0..<50).map { (record($0), shared) })
        try same.expectExact(Self.normalised(generator.gaussians(64)), limit: 7)
    }

    @Test("A limit beyond the vectors held returns them all, best first; an index without vectors returns nothing")
    func limitsAndEmpty() throws {
        var generator = Generator(state: 13)
        var fixture = try Fixture()
        defer { fixture.remove() }
        #expect(try fixture.index.search(Self.normalised(generator.gaussians(32)), limit: 10).isEmpty)
        try fixture.commit((0..<25).map { (record($0), Self.normalised(generator.gaussians(32))) })
        let query = Self.normalised(generator.gaussians(32))
        try fixture.expectExact(query, limit: 1000)
        #expect(try fixture.index.search(query, limit: 0).isEmpty)
        try fixture.commit([], deletions: (0..<25).map { record($0) })
        #expect(try fixture.index.search(query, limit: 10).isEmpty)
    }

    @Test("Entities and records restrict the exact answer, also to fewer records than the limit")
    func restricted() throws {
        var generator = Generator(state: 14)
        var fixture = try Fixture()
        defer { fixture.remove() }
        var upserts: [(RecordID, [Float])] = []
        for key in 0..<1500 { upserts.append((record(key, key % 3 == 0 ? "Note" : "Doc"), Self.normalised(generator.gaussians(96)))) }
        try fixture.commit(upserts)
        let some = Set((0..<1500).filter { $0 % 7 == 0 }.map { record($0, $0 % 3 == 0 ? "Note" : "Doc") })
        for _ in 0..<10 {
            let query = Self.normalised(generator.gaussians(96))
            try fixture.expectExact(query, limit: 10, entities: ["Note"])
            try fixture.expectExact(query, limit: 10, records: some)
            try fixture.expectExact(query, limit: 10, entities: ["Note"], records: some)
            try fixture.expectExact(query, limit: 10, records: [record(3, "Note"), record(4)])
            try fixture.expectExact(query, limit: 10, entities: ["Nothing"])
        }
    }

    @Test("After updates and deletions in memory, and in another handle that reloads, the answer stays exact")
    func afterUpdates() throws {
        var generator = Generator(state: 15)
        var fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.commit((0..<800).map { (record($0), Self.normalised(generator.gaussians(48))) })
        let query = Self.normalised(generator.gaussians(48))
        try fixture.expectExact(query, limit: 10)
        // Replace the vectors of the current best with vectors near the query's opposite, move others next to it.
        let best = try fixture.index.search(query, limit: 5).map(\.record)
        var upserts = best.map { ($0, Self.normalised(zip(query, generator.gaussians(48)).map { -$0 + 0.1 * $1 })) }
        upserts += (100..<110).map { (record($0), Self.normalised(zip(query, generator.gaussians(48)).map { $0 + 0.05 * $1 })) }
        try fixture.commit(upserts, deletions: (0..<50).map { record($0) })
        try fixture.commit((800..<900).map { (record($0), Self.normalised(generator.gaussians(48))) })
        try fixture.expectExact(query, limit: 10)
        try fixture.expectExact(query.map { -$0 }, limit: 10)
        let other = try VectorIndex(path: fixture.path)
        let reloaded = try other.search(query, limit: 10)
        #expect(reloaded == (try fixture.index.search(query, limit: 10)))
    }

    @Test("The compact scan reads a fraction of the Float32 bytes and agrees with the Float32 scan away from near-ties")
    func againstFloat32Scan() throws {
        var generator = Generator(state: 16)
        var fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.commit((0..<4000).map { (record($0), Self.normalised(generator.gaussians(384))) })
        let float32 = try VectorIndex(path: fixture.path, exactScan: .float32)
        for _ in 0..<20 {
            let query = Self.normalised(generator.gaussians(384))
            let compact = try fixture.index.search(query, limit: 10)
            let reference = try float32.search(query, limit: 10)
            #expect(compact.map(\.record) == reference.map(\.record))
            for (a, b) in zip(compact, reference) { #expect(abs(a.similarity - b.similarity) < 1e-5) }
        }
        let compact = fixture.index.scanStatistics, full = float32.scanStatistics
        #expect(compact.searches == 20 && compact.rowsScanned == 20 * 4000)
        #expect(compact.rowsRescored < 20 * 4000 / 10)
        #expect(compact.bytesRead * 3 < full.bytesRead)
        #expect(full.bytesRead == 20 * 4000 * 384 * 4)
    }
}

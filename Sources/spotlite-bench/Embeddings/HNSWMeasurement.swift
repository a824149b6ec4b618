import ArgumentParser
import Foundation
import SpotliteEmbeddings
import SpotliteStore

/// A set of vectors to index and the queries to search it with: real vectors with some held out as queries, or a
/// ``VectorGenerator``'s (queries drawn from the same recipe, never among the vectors).
struct HNSWVectorSet: Sendable {
    /// What the vectors are, for figures and the cache folder's name.
    let name: String
    /// Equal fingerprints, equal vectors.
    let fingerprint: String
    let count: Int
    let dimensions: Int
    /// Rows of the set, row-major.
    let rows: @Sendable (Range<Int>) -> [Float]
    let queries: [[Float]]

    static func generated(by generator: VectorGenerator, count: Int, queries: Int) -> HNSWVectorSet {
        HNSWVectorSet(name: generator.name, fingerprint: generator.fingerprint, count: count, dimensions: generator.dimensions,
                      rows: { generator.vectors($0) },
                      queries: (0..<queries).map { generator.vector(at: VectorGenerator.queryBase + $0) })
    }

    /// `vectors` (row-major) less `queries` of them chosen at random with `seed`, which become the queries.
    static func real(_ vectors: [Float], dimensions: Int, queries: Int, seed: UInt64) -> HNSWVectorSet {
        let total = vectors.count / dimensions
        var order = Array(0..<total)
        var random = SplitMix(seed: seed, index: 0)
        for index in stride(from: total - 1, to: 0, by: -1) { order.swapAt(index, Int(random.next() % UInt64(index + 1))) }
        let held = Set(order.prefix(min(queries, total / 10)))
        var base: [Float] = []
        base.reserveCapacity(vectors.count)
        var queryVectors: [[Float]] = []
        for row in 0..<total {
            let vector = vectors[(row * dimensions)..<((row + 1) * dimensions)]
            if held.contains(row) { queryVectors.append(Array(vector)) } else { base.append(contentsOf: vector) }
        }
        let kept = base
        var hasher = StableHasher()
        hasher.add("real")
        hasher.add(String(seed))
        for value in vectors.prefix(4096) { hasher.add(String(value.bitPattern)) }
        hasher.add(String(total))
        return HNSWVectorSet(name: "real", fingerprint: String(hasher.value, radix: 16), count: total - held.count,
                             dimensions: dimensions,
                             rows: { Array(kept[($0.lowerBound * dimensions)..<($0.upperBound * dimensions)]) },
                             queries: queryVectors)
    }
}

/// One HNSW measurement: the vectors written to a vector index (or found in the cache), the exact top 10 of each
/// query, the graph built (or loaded from the cache) once per distance kernel, and each query searched at each ef
/// through every kernel in turn.
struct HNSWMeasurement {
    var connections: Int
    var constructionCandidates: Int
    var candidates: [Int]
    var kernels: [VectorIndex.DistanceKernel]
    var graphThreads: Int
    /// A folder keeping vectors and graphs between runs, or nil for a temporary one.
    var cache: String?

    struct Result {
        var size: Int
        var exactP50: Double
        /// The first kernel's figures at each ef.
        var graph: [(candidates: Int, p50: Double, recall: Double)]
    }

    func run(_ set: HNSWVectorSet) throws -> Result {
        let folder: String
        if let cache {
            folder = URL(fileURLWithPath: cache)
                .appendingPathComponent("\(set.name)-\(set.fingerprint.prefix(8))-n\(set.count)-d\(set.dimensions)-m\(connections)-efc\(constructionCandidates)").path
        } else {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-bench-hnsw-\(UUID().uuidString)").path
        }
        defer { if cache == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let exact = try vectors(of: set, in: folder)

        _ = try exact.search(set.queries[0], limit: 10)
        var exactSamples: [Double] = []
        var truths: [[VectorHit]] = []
        for query in set.queries {
            let start = DispatchTime.now().uptimeNanoseconds
            truths.append(try exact.search(query, limit: 10))
            exactSamples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        let exactLatency = LatencySummary(samples: exactSamples)
        print(String(format: "HNSW over %d %@ vectors (M %d, efConstruction %d): exact top-10 over the same p50 %.2f ms, p99 %.2f ms",
                     set.count, set.name, connections, constructionCandidates, exactLatency.p50, exactLatency.p99))
        printNeighbourStatistics(set, truths: truths)

        var graphs: [(kernel: VectorIndex.DistanceKernel, index: VectorIndex)] = []
        for kernel in kernels {
            let started = Date()
            let graph = try VectorIndex(path: folder, hnswThreshold: 1, graphThreads: graphThreads, graphProgress: { added, total in
                let seconds = Date().timeIntervalSince(started)
                Progress.note(String(format: "HNSW graph: %d of %d vectors added (%.0f%%) in %.0f s%@", added, total,
                                     Double(added) * 100 / Double(total), seconds,
                                     added < total && added > 0 ? String(format: ", about %.0f s to go", seconds * Double(total - added) / Double(added)) : ""))
            }, hnswConnections: connections, hnswConstructionCandidates: constructionCandidates, distanceKernel: kernel,
                                        keepsGraphFile: true)
            try graph.load()
            let seconds = Date().timeIntervalSince(started)
            let origin = graph.graphOrigin
            var how = origin?.loaded == true ? String(format: "loaded from %@ in %.1f s", folder, seconds)
                : String(format: "built in %.1f s on %d threads (vectors loaded included)", seconds, graphThreads)
            if let reason = origin?.rebuildReason { how += "; the kept graph was not used: \(reason)" }
            if let problem = origin?.saveProblem { how += "; it could not be kept: \(problem)" }
            print("  graph with the \(kernel.rawValue) kernel (\(kernel.resolved.rawValue)): \(how)")
            graphs.append((kernel, graph))
        }

        var first: [(candidates: Int, p50: Double, recall: Double)] = []
        for ef in candidates {
            var samples = [[Double]](repeating: [], count: graphs.count)
            var agreeing = [Int](repeating: 0, count: graphs.count), tied = [Int](repeating: 0, count: graphs.count)
            for (number, (query, truth)) in zip(set.queries, truths).enumerated() {
                let records = Set(truth.map(\.record))
                let floor = (truth.last?.similarity ?? 1) - 1e-5
                // Which kernel goes first turns with each query.
                for turn in 0..<graphs.count {
                    let which = (turn + number) % graphs.count
                    let start = DispatchTime.now().uptimeNanoseconds
                    let found = try graphs[which].index.search(query, limit: 10, candidates: ef)
                    samples[which].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    agreeing[which] += found.filter { records.contains($0.record) }.count
                    tied[which] += found.filter { records.contains($0.record) || $0.similarity >= floor }.count
                }
            }
            let total = Double(10 * set.queries.count)
            var line = String(format: "  ef %4d:", ef)
            for (which, graph) in graphs.enumerated() {
                let latency = LatencySummary(samples: samples[which])
                let recall = Double(agreeing[which]) / total, withTies = Double(tied[which]) / total
                line += String(format: " %@ p50 %.3f ms, p99 %.3f ms, recall@10 %.3f%@;", graph.kernel.rawValue, latency.p50,
                               latency.p99, recall, withTies > recall ? String(format: " (%.3f counting ties)", withTies) : "")
                if which == 0 { first.append((ef, latency.p50, recall)) }
            }
            if graphs.count > 1 {
                let ratio = LatencySummary(samples: samples[1]).p50 / LatencySummary(samples: samples[0]).p50
                line += String(format: " p50 %@ / %@ %.2f×", graphs[1].kernel.rawValue, graphs[0].kernel.rawValue, ratio)
            }
            print(line)
        }
        return Result(size: set.count, exactP50: exactLatency.p50, graph: first)
    }

    /// The exact vector index of `set` in `folder`: reused when it holds exactly these vectors (the cache), written
    /// otherwise, saying why.
    private func vectors(of set: HNSWVectorSet, in folder: String) throws -> VectorIndex {
        let wanted = "\(set.count) \(set.name) vectors (fingerprint \(set.fingerprint))"
        var index: VectorIndex
        do {
            index = try VectorIndex(path: folder, hnswThreshold: .max)
            let state = try index.state()
            if state.vectors == set.count, state.modelFingerprint == set.fingerprint, state.dimensions == set.dimensions {
                Progress.note("HNSW: reusing the \(wanted) kept in \(folder)")
                return index
            }
            if state.vectors > 0 {
                Progress.note("HNSW: \(folder) holds \(state.vectors) vectors of fingerprint \(state.modelFingerprint ?? "none"), not the \(wanted): writing them again")
                try index.removeAll()
            }
        } catch {
            Progress.note("HNSW: the vectors kept in \(folder) cannot be used (\(error)): writing them again")
            try? FileManager.default.removeItem(atPath: folder)
            index = try VectorIndex(path: folder, hnswThreshold: .max)
        }
        let started = Date()
        var written = 0
        while written < set.count {
            let chunk = min(100_000, set.count - written)
            let values = set.rows(written..<(written + chunk))
            let upserts = (0..<chunk).map { offset in
                VectorChanges.Upsert(record: RecordID(entity: "Vector", key: (written + offset).databaseValue),
                                     vector: Array(values[(offset * set.dimensions)..<((offset + 1) * set.dimensions)]))
            }
            // The fingerprint goes with the last chunk: a set cut short is never taken for a whole one.
            let last = written + chunk == set.count
            try index.commit(VectorChanges(upserts: upserts), cursor: nil,
                             model: last ? (fingerprint: set.fingerprint, name: set.name) : (fingerprint: "partial", name: set.name))
            written += chunk
            Progress.note(String(format: "HNSW: %d of %d vectors written in %.0f s", written, set.count, Date().timeIntervalSince(started)))
        }
        return index
    }

    /// How hard the set is for a nearest-neighbour index, from the exact answers: the mean similarity of the nearest
    /// and the 10th nearest, the relative contrast (mean distance to a random vector over the distance to the k-th
    /// nearest; near 1, every vector is about as far as the nearest) and the local intrinsic dimensionality
    /// (maximum-likelihood estimate from the 10 nearest distances).
    private func printNeighbourStatistics(_ set: HNSWVectorSet, truths: [[VectorHit]]) {
        // 2,000 vectors in 20 runs spread over the set (real vectors come in the catalogue's order).
        let run = min(100, set.count)
        let sample = stride(from: 0, to: set.count - run + 1, by: max(run, set.count / 20)).prefix(20)
            .flatMap { set.rows($0..<($0 + run)) }
        let sampleCount = sample.count / set.dimensions
        var randomDistance = 0.0
        for query in set.queries {
            var sum = 0.0
            for row in 0..<sampleCount {
                var dot: Float = 0
                for component in 0..<set.dimensions { dot += query[component] * sample[row * set.dimensions + component] }
                sum += Double(max(0, 2 - 2 * dot)).squareRoot()
            }
            randomDistance += sum / Double(max(sampleCount, 1))
        }
        randomDistance /= Double(set.queries.count)
        func distance(_ similarity: Float) -> Double { Double(max(0, 2 - 2 * similarity)).squareRoot() }
        let full = truths.filter { $0.count == 10 }
        let first = full.map { Double($0[0].similarity) }.reduce(0, +) / Double(max(full.count, 1))
        let tenth = full.map { Double($0[9].similarity) }.reduce(0, +) / Double(max(full.count, 1))
        let firstDistance = full.map { distance($0[0].similarity) }.reduce(0, +) / Double(max(full.count, 1))
        let tenthDistance = full.map { distance($0[9].similarity) }.reduce(0, +) / Double(max(full.count, 1))
        var dimensionalities: [Double] = []
        for truth in full {
            let distances = truth.map { distance($0.similarity) }
            guard let last = distances.last, last > 0, distances[0] > 0 else { continue }
            let mean = distances.dropLast().map { log($0 / last) }.reduce(0, +) / Double(distances.count - 1)
            if mean < 0 { dimensionalities.append(-1 / mean) }
        }
        dimensionalities.sort()
        let lid = dimensionalities.isEmpty ? Double.nan : dimensionalities[dimensionalities.count / 2]
        print(String(format: "  neighbours: similarity of the nearest %.3f, of the 10th %.3f; relative contrast %.2f (nearest), %.2f (10th); local intrinsic dimensionality %.1f (median)",
                     first, tenth, randomDistance / max(firstDistance, 1e-9), randomDistance / max(tenthDistance, 1e-9), lid))
    }
}

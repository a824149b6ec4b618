import CEmbeddings

/// hnswlib's graph over normalised vectors (inner product), labelled by the vector table's row ids. Not
/// thread-safe: its owner (``VectorIndex``) uses it under its lock only.
final class HNSWGraph {
    private let handle: OpaquePointer
    let dimensions: Int

    /// Connections per node and the candidate list while building, hnswlib's usual settings for vectors of a few
    /// hundred dimensions (more costs build time and memory; fewer, recall): ``VectorIndex``'s defaults.
    static let connections = 16
    static let constructionCandidates = 100

    init(dimensions: Int, capacity: Int, connections: Int = HNSWGraph.connections,
         constructionCandidates: Int = HNSWGraph.constructionCandidates, kernel: VectorIndex.DistanceKernel = .automatic) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let handle = ce_hnsw_new(Int32(dimensions), Int64(capacity), Int32(clamping: connections),
                                       Int32(clamping: constructionCandidates), 100, kernel.native, &message) else {
            throw EmbeddingError.computation(EncoderCore.take(message) ?? "the HNSW graph could not be created")
        }
        self.handle = handle
        self.dimensions = dimensions
    }

    /// The graph saved at `path` by ``save(to:)``.
    init(loading path: String, dimensions: Int, kernel: VectorIndex.DistanceKernel = .automatic) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let handle = ce_hnsw_load(path, Int32(dimensions), kernel.native, &message) else {
            throw EmbeddingError.computation(EncoderCore.take(message) ?? "the HNSW graph at \(path) could not be loaded")
        }
        self.handle = handle
        self.dimensions = dimensions
    }

    /// Writes the graph to `path`, replacing it.
    func save(to path: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard ce_hnsw_save(handle, path, &message) else {
            throw EmbeddingError.computation(EncoderCore.take(message) ?? "the HNSW graph could not be saved at \(path)")
        }
    }

    /// M and efConstruction, as built, and the distance kernel it measures with.
    var parameters: (connections: Int, constructionCandidates: Int, kernel: VectorIndex.DistanceKernel) {
        var m: Int32 = 0, candidates: Int32 = 0
        var kernel = CE_KERNEL_AUTOMATIC
        _ = ce_hnsw_describe(handle, nil, &m, &candidates, &kernel)
        return (Int(m), Int(candidates), VectorIndex.DistanceKernel(kernel))
    }

    deinit { ce_hnsw_free(handle) }

    var count: Int { Int(ce_hnsw_count(handle)) }
    var deletedCount: Int { Int(ce_hnsw_deleted_count(handle)) }

    func add<Vector: Collection>(_ vector: Vector, label: Int64) throws where Vector.Element == Float {
        var message: UnsafeMutablePointer<CChar>?
        let added = vector.withContiguousStorageIfAvailable { buffer in
            ce_hnsw_add(handle, buffer.baseAddress, UInt64(bitPattern: label), &message)
        } ?? Array(vector).withUnsafeBufferPointer { ce_hnsw_add(handle, $0.baseAddress, UInt64(bitPattern: label), &message) }
        guard added else { throw EmbeddingError.computation(EncoderCore.take(message) ?? "adding to the HNSW graph failed") }
    }

    /// Adds the rows of `values` (row-major, ``dimensions`` per row) under `labels`, on `threads` threads, calling
    /// `progress` on the calling thread with the count added so far, about every hundredth of them.
    func addAll(_ values: [Float], labels: [Int64], threads: Int,
                progress: (@Sendable (_ added: Int, _ total: Int) -> Void)?) throws {
        precondition(values.count == labels.count * dimensions)
        guard !labels.isEmpty else { return }
        final class Reporter {
            let report: (Int) -> Void
            init(_ report: @escaping (Int) -> Void) { self.report = report }
        }
        let total = labels.count
        let reporter = progress.map { progress in Reporter { progress($0, total) } }
        let context = reporter.map { Unmanaged.passUnretained($0).toOpaque() }
        let report: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Void = { context, added in
            guard let context else { return }
            Unmanaged<Reporter>.fromOpaque(context).takeUnretainedValue().report(Int(added))
        }
        let callback = reporter == nil ? nil : report
        var message: UnsafeMutablePointer<CChar>?
        let added = withExtendedLifetime(reporter) {
            labels.map { UInt64(bitPattern: $0) }.withUnsafeBufferPointer { labels in
                ce_hnsw_add_all(handle, values, labels.baseAddress, Int64(total), Int32(clamping: threads), callback, context,
                                Int64(max(1_000, total / 100)), &message)
            }
        }
        guard added else { throw EmbeddingError.computation(EncoderCore.take(message) ?? "building the HNSW graph failed") }
    }

    func remove(label: Int64) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard ce_hnsw_remove(handle, UInt64(bitPattern: label), &message) else {
            throw EmbeddingError.computation(EncoderCore.take(message) ?? "removing from the HNSW graph failed")
        }
    }

    /// The nearest labels to `query`, best first, with their similarities.
    func search(_ query: [Float], k: Int, candidates: Int) throws -> [(label: Int64, similarity: Float)] {
        var labels = [UInt64](repeating: 0, count: k)
        var scores = [Float](repeating: 0, count: k)
        var found: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        guard ce_hnsw_search(handle, query, Int32(k), Int32(max(candidates, k)), &labels, &scores, &found, &message) else {
            throw EmbeddingError.computation(EncoderCore.take(message) ?? "searching the HNSW graph failed")
        }
        return (0..<Int(found)).map { (Int64(bitPattern: labels[$0]), scores[$0]) }
    }
}

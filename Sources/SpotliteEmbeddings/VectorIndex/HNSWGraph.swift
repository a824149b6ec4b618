import CEmbeddings

/// hnswlib's graph over normalised vectors (inner product), labelled by the vector table's row ids. Not
/// thread-safe: its owner (``VectorIndex``) uses it under its lock only.
final class HNSWGraph {
    private let handle: OpaquePointer
    let dimensions: Int

    /// Connections per node and the candidate list while building: hnswlib's usual settings for vectors of a few
    /// hundred dimensions (more costs build time and memory; fewer, recall).
    static let connections: Int32 = 16
    static let constructionCandidates: Int32 = 100

    init(dimensions: Int, capacity: Int) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let handle = ce_hnsw_new(Int32(dimensions), Int64(capacity), Self.connections, Self.constructionCandidates, 100, &message) else {
            throw EmbeddingError.computation(EncoderCore.take(message) ?? "the HNSW graph could not be created")
        }
        self.handle = handle
        self.dimensions = dimensions
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

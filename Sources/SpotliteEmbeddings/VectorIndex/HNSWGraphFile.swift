import CEmbeddings
import Foundation

/// The HNSW graph kept in the index folder (`graph.hnsw`) with its stamp (`graph.json`): the vectors it was built
/// over (their count and a checksum of their labels and components), its parameters, and a checksum of the graph file
/// itself. A graph is loaded only when every part of the stamp matches; otherwise the reason is given and the caller
/// builds the graph again. Building one costs minutes per million vectors, loading it seconds.
struct HNSWGraphFile {
    let folder: String

    var graphPath: String { URL(fileURLWithPath: folder).appendingPathComponent("graph.hnsw").path }
    var stampPath: String { URL(fileURLWithPath: folder).appendingPathComponent("graph.json").path }

    /// What a graph file was built from, and what it holds.
    struct Stamp: Codable, Equatable {
        static let currentFormat = 1
        var format = Stamp.currentFormat
        var dimensions: Int
        var vectors: Int
        /// ``HNSWGraphFile/checksum(of:)`` of the vectors the graph was built over, in hexadecimal.
        var vectorsChecksum: String
        var connections: Int
        var constructionCandidates: Int
        /// The graph file's length and checksum (`ce_file_checksum`, hexadecimal).
        var bytes: Int64
        var checksum: String
    }

    enum Outcome {
        /// No graph was kept.
        case absent
        case loaded(HNSWGraph)
        /// A graph or stamp was kept but cannot be used, for this reason.
        case unusable(String)
    }

    /// A checksum of the vectors' labels and components, in order: a graph's labels and its copy of the vectors
    /// are those exactly when it matches.
    static func checksum(of matrix: VectorMatrix) -> String {
        let labels = matrix.labels.withUnsafeBytes { ce_checksum($0.baseAddress, Int64($0.count), 0) }
        let values = matrix.values.withUnsafeBytes { ce_checksum($0.baseAddress, Int64($0.count), labels) }
        return String(values, radix: 16)
    }

    /// The kept graph when its stamp matches `matrix` and the parameters asked for, and the file its checksum.
    func load(for matrix: VectorMatrix, connections: Int, constructionCandidates: Int,
              kernel: VectorIndex.DistanceKernel) -> Outcome {
        let manager = FileManager.default
        let hasGraph = manager.fileExists(atPath: graphPath), hasStamp = manager.fileExists(atPath: stampPath)
        if !hasGraph && !hasStamp { return .absent }
        guard hasStamp else { return .unusable("\(graphPath) has no stamp beside it (graph.json: it was not saved to the end)") }
        guard hasGraph else { return .unusable("\(graphPath) is missing (its stamp graph.json is there)") }
        let stamp: Stamp
        do {
            stamp = try JSONDecoder().decode(Stamp.self, from: Data(contentsOf: URL(fileURLWithPath: stampPath)))
        } catch {
            return .unusable("its stamp \(stampPath) cannot be read (\(error))")
        }
        guard stamp.format == Stamp.currentFormat else {
            return .unusable("\(stampPath) is of format \(stamp.format), this version reads \(Stamp.currentFormat)")
        }
        guard stamp.dimensions == matrix.dimensions, stamp.vectors == matrix.count else {
            return .unusable("the graph was built over \(stamp.vectors) vectors of \(stamp.dimensions) dimensions, the index holds \(matrix.count) of \(matrix.dimensions)")
        }
        guard stamp.connections == connections, stamp.constructionCandidates == constructionCandidates else {
            return .unusable("the graph was built with M \(stamp.connections) and efConstruction \(stamp.constructionCandidates), the index asks for \(connections) and \(constructionCandidates)")
        }
        guard stamp.vectorsChecksum == Self.checksum(of: matrix) else {
            return .unusable("the vectors changed since the graph was built (their checksum differs from its stamp)")
        }
        var checksum: UInt64 = 0, bytes: Int64 = 0
        var message: UnsafeMutablePointer<CChar>?
        guard ce_file_checksum(graphPath, &checksum, &bytes, &message) else {
            return .unusable(EncoderCore.take(message) ?? "\(graphPath) cannot be read")
        }
        guard bytes == stamp.bytes else {
            return .unusable("\(graphPath) holds \(bytes) bytes, its stamp says \(stamp.bytes) (truncated or replaced)")
        }
        guard String(checksum, radix: 16) == stamp.checksum else {
            return .unusable("\(graphPath) is damaged: its checksum differs from its stamp's")
        }
        do {
            let graph = try HNSWGraph(loading: graphPath, dimensions: matrix.dimensions, kernel: kernel)
            guard graph.count == matrix.count else {
                return .unusable("\(graphPath) holds \(graph.count) vectors, its stamp says \(matrix.count)")
            }
            return .loaded(graph)
        } catch {
            return .unusable("\(error)")
        }
    }

    /// Writes `graph`, built over `matrix`, and then its stamp: a graph without a stamp (a crash in between) is never
    /// loaded.
    func save(_ graph: HNSWGraph, for matrix: VectorMatrix) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: stampPath) { try manager.removeItem(atPath: stampPath) }
        let partial = graphPath + ".partial"
        try graph.save(to: partial)
        var checksum: UInt64 = 0, bytes: Int64 = 0
        var message: UnsafeMutablePointer<CChar>?
        guard ce_file_checksum(partial, &checksum, &bytes, &message) else {
            try? manager.removeItem(atPath: partial)
            throw EmbeddingError.vectorIndex(path: partial, problem: EncoderCore.take(message) ?? "cannot be read back")
        }
        guard rename(partial, graphPath) == 0 else {
            let problem = String(cString: strerror(errno))
            try? manager.removeItem(atPath: partial)
            throw EmbeddingError.vectorIndex(path: graphPath, problem: "cannot be written: \(problem)")
        }
        let parameters = graph.parameters
        let stamp = Stamp(dimensions: matrix.dimensions, vectors: matrix.count, vectorsChecksum: Self.checksum(of: matrix),
                          connections: parameters.connections, constructionCandidates: parameters.constructionCandidates,
                          bytes: bytes, checksum: String(checksum, radix: 16))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(stamp).write(to: URL(fileURLWithPath: stampPath), options: .atomic)
    }
}

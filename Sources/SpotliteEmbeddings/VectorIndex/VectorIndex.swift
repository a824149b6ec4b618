import CEmbeddings
import Foundation
import GRDB
import SpotliteStore
import Synchronization

#if _endian(big)
#error("vectors are stored as little-endian Float32 and copied as they are in memory")
#endif

/// One vector per record, in a SQLite file of its own (`vectors.sqlite` in the index folder) together with the
/// history cursor they reflect and the model that made them: a commit writes vectors, deletions and cursor in
/// one transaction, so after a crash at any point the file holds either the batch and its cursor or neither.
///
/// Searches scan the vectors in memory: exactly below ``hnswThreshold`` vectors, through an HNSW graph (hnswlib)
/// above it, rebuilt from the vectors when the index is opened and kept up to date by commits. A commit from another
/// process or handle is seen by the next search, which reloads.
///
/// Exact search reads a compact copy of the vectors (one byte per component, a quarter of the Float32 matrix: the
/// scan is bound by the bytes it reads), then scores exactly, from the Float32 vectors, every record whose compact
/// score could still be among the best: the answer is the exact one, never an approximation (``ExactScan``).
///
/// A rebuild writes a second table beside the live one (``beginRebuild()``, ``appendToRebuild(_:)``) and
/// switches in one transaction (``finishRebuild(cursor:model:dimensions:)``): searches see the old vectors or the
/// new ones, never a mix.
public final class VectorIndex: Sendable {
    /// The index folder.
    public let path: String
    /// Above this many vectors searches go through the HNSW graph; below it they are exact.
    public let hnswThreshold: Int
    /// The HNSW search's candidate list (hnswlib's ef): larger is slower and finds more of the true nearest.
    public let hnswCandidates: Int
    /// How exact search reads the vectors.
    public let exactScan: ExactScan
    /// Threads that build the HNSW graph (hnswlib inserts on several at once).
    public let graphThreads: Int
    /// The HNSW graph's connections per node (hnswlib's M) and candidate list while building (efConstruction).
    public let hnswConnections: Int
    public let hnswConstructionCandidates: Int
    /// The dot-product loop the HNSW graph measures distances with.
    public let distanceKernel: DistanceKernel
    /// Whether the HNSW graph is kept in the index folder and loaded from there when it matches the vectors.
    public let keepsGraphFile: Bool
    private let graphProgress: (@Sendable (_ added: Int, _ total: Int) -> Void)?
    private let database: DatabaseQueue
    private let memory: Mutex<Memory>
    private let statistics = Mutex(ScanStatistics())

    /// How exact search reads the vectors; both return the same records in the same order (up to the rounding of
    /// single-precision sums between near-ties, for ``float32``).
    public enum ExactScan: Sendable, Hashable {
        /// A scan of the compact copy (one byte per component), then the exact score, summed in double precision
        /// from the Float32 vectors, of every record whose compact score is within its error bound of the best:
        /// a quarter of the bytes of ``float32``, plus a few rows.
        case compact
        /// One matrix-vector product (BLAS) over the whole Float32 matrix, ranked by its single-precision sums: the
        /// reference the compact scan is measured against.
        case float32
    }

    /// What exact searches read, counted since the index was opened.
    public struct ScanStatistics: Sendable, Hashable {
        /// Exact searches run.
        public var searches = 0
        /// Rows they scanned (compact or Float32).
        public var rowsScanned = 0
        /// Rows a compact scan scored again from their Float32 vector.
        public var rowsRescored = 0
        /// Bytes of vectors they read: the compact rows with their scale and radius, the rows rescored, or the
        /// Float32 rows.
        public var bytesRead = 0
    }

    /// The default ``hnswThreshold``: exact search returns the true nearest vectors, so the graph, which may miss
    /// some, is only worth it where scanning every vector costs too much. It also costs its build every time the
    /// index is opened or reloaded (tens of seconds per 100,000 vectors on one core, shared among the cores) and a
    /// second copy of the vectors in memory; exact search grows linearly (a memory-bound scan of the compact copy,
    /// dimensions + 8 bytes per vector), so the switch sits where one scan costs several times the catalogue-sized
    /// one (`spotlite-bench embeddings --hnsw-vectors` prints both at each size; docs/embeddings.md has the figures).
    public static let defaultHNSWThreshold = 200_000

    /// The default ``hnswConnections`` (M) and ``hnswConstructionCandidates`` (efConstruction): hnswlib's usual
    /// settings for vectors of a few hundred dimensions; docs/embeddings.md has the recall they reach.
    public static let defaultHNSWConnections = HNSWGraph.connections
    public static let defaultHNSWConstructionCandidates = HNSWGraph.constructionCandidates

    /// Where the HNSW graph in memory came from.
    public struct GraphOrigin: Sendable, Hashable {
        /// Read from the graph file kept in the index folder (``keepsGraphFile``); otherwise built from the vectors.
        public var loaded: Bool
        /// Why a kept graph file could not be used, so that the graph was built again: nil when there was none, or
        /// it was loaded.
        public var rebuildReason: String?
        /// Why the graph just built could not be kept in the index folder (it is used all the same): nil when it
        /// was saved, or is not kept.
        public var saveProblem: String?

        public init(loaded: Bool, rebuildReason: String? = nil, saveProblem: String? = nil) {
            self.loaded = loaded
            self.rebuildReason = rebuildReason
            self.saveProblem = saveProblem
        }
    }

    private struct Memory: ~Copyable {
        var version: Int64 = -1
        var matrix: VectorMatrix?
        var graph: HNSWGraph?
        var graphOrigin: GraphOrigin?
        var scores: [Float] = []
    }

    /// Opens (creating when absent) the vector index in the folder `path`.
    ///
    /// - Parameters:
    ///   - exactScan: how exact search reads the vectors (``ExactScan/compact`` unless measuring).
    ///   - graphThreads: threads that build the HNSW graph; one per core by default. With more than one, the graph's
    ///     random levels (and so the graph) differ from run to run; pass 1 for a reproducible graph.
    ///   - graphProgress: called while the HNSW graph is built, with the vectors added so far and their total.
    ///   - hnswConnections: the graph's connections per node (hnswlib's M).
    ///   - hnswConstructionCandidates: the candidate list while building the graph (hnswlib's efConstruction).
    ///   - distanceKernel: the graph's dot-product loop (``DistanceKernel/automatic`` unless measuring).
    ///   - keepsGraphFile: keep the HNSW graph in the index folder (`graph.hnsw`, with its stamp `graph.json`) once
    ///     built, and load it instead of building when it was built over exactly the vectors held, with the same M
    ///     and efConstruction; a graph file that does not match, or is damaged, is built again
    ///     (``graphOrigin`` says why).
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)`` when the folder or its file cannot be created or read.
    public init(path: String, hnswThreshold: Int = VectorIndex.defaultHNSWThreshold, hnswCandidates: Int = 128,
                exactScan: ExactScan = .compact, graphThreads: Int = ProcessInfo.processInfo.activeProcessorCount,
                graphProgress: (@Sendable (_ added: Int, _ total: Int) -> Void)? = nil,
                hnswConnections: Int = VectorIndex.defaultHNSWConnections,
                hnswConstructionCandidates: Int = VectorIndex.defaultHNSWConstructionCandidates,
                distanceKernel: DistanceKernel = .automatic, keepsGraphFile: Bool = false) throws {
        self.path = path
        self.hnswThreshold = hnswThreshold
        self.hnswCandidates = hnswCandidates
        self.exactScan = exactScan
        self.graphThreads = max(1, graphThreads)
        self.graphProgress = graphProgress
        self.hnswConnections = max(2, hnswConnections)
        self.hnswConstructionCandidates = max(1, hnswConstructionCandidates)
        self.distanceKernel = distanceKernel
        self.keepsGraphFile = keepsGraphFile
        guard distanceKernel.isAvailable else {
            throw EmbeddingError.computation("the \(distanceKernel.rawValue) distance kernel needs AVX2 and FMA, which this processor lacks: use .automatic")
        }
        let file = URL(fileURLWithPath: path).appendingPathComponent("vectors.sqlite").path
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            database = try DatabaseQueue(path: file, configuration: configuration)
            try database.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value) WITHOUT ROWID;
                    CREATE TABLE IF NOT EXISTS vector (entity TEXT NOT NULL, key NOT NULL, vector BLOB NOT NULL,
                        truncated INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (entity, key));
                    INSERT OR IGNORE INTO meta (name, value) VALUES ('version', 0);
                    \(Self.truncatedIndex)
                    """)
            }
        } catch let error as EmbeddingError {
            throw error
        } catch {
            throw EmbeddingError.vectorIndex(path: file, problem: "\(error)")
        }
        memory = Mutex(Memory())
    }

    private var file: String { URL(fileURLWithPath: path).appendingPathComponent("vectors.sqlite").path }

    /// The records whose text was cut, indexed: counting them reads this index instead of every vector.
    private static let truncatedIndex = "CREATE INDEX IF NOT EXISTS vector_truncated ON vector (truncated) WHERE truncated;"

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as EmbeddingError {
            throw error
        } catch {
            throw EmbeddingError.vectorIndex(path: file, problem: "\(error)")
        }
    }

    // MARK: State

    /// What the index holds, as committed.
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``.
    public func state() throws -> VectorIndexState {
        try wrap {
            try database.read { db -> VectorIndexState in
                let meta = try Self.meta(db)
                // Both counts read an index (the key's, and the partial one of cut records), not the vectors.
                let vectors = try Int.fetchOne(db, sql: "SELECT count(*) FROM vector") ?? 0
                let truncated = try Int.fetchOne(db, sql: "SELECT count(*) FROM vector WHERE truncated") ?? 0
                let maker = Self.maker(meta)
                return VectorIndexState(vectors: vectors, truncated: truncated, dimensions: maker.dimensions,
                                        modelFingerprint: maker.modelFingerprint, modelName: maker.modelName,
                                        fields: maker.fields, cursor: Self.cursor(meta))
            }
        }
    }

    /// The history cursor the vectors reflect, as committed: what ``state()`` says, without counting the vectors
    /// (a consumer asks on every round).
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``.
    public func cursor() throws -> HistoryCursor? {
        try wrap { try database.read { db in Self.cursor(try Self.meta(db)) } }
    }

    /// Whether any vector is held, with the model, dimensions and fields they were made with: what a consumer checks
    /// on every round, without counting the vectors.
    func madeBy() throws -> (held: Bool, dimensions: Int?, modelFingerprint: String?, modelName: String?, fields: String?) {
        try wrap {
            try database.read { db in
                let maker = Self.maker(try Self.meta(db))
                let held = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM vector)") ?? false
                return (held, maker.dimensions, maker.modelFingerprint, maker.modelName, maker.fields)
            }
        }
    }

    /// The model, dimensions and fields the vectors were made with, as the meta table records them.
    private static func maker(_ meta: [String: DatabaseValue])
        -> (dimensions: Int?, modelFingerprint: String?, modelName: String?, fields: String?)
    {
        (Int.fromDatabaseValue(meta["dimensions"] ?? .null), String.fromDatabaseValue(meta["model_fingerprint"] ?? .null),
         String.fromDatabaseValue(meta["model_name"] ?? .null), String.fromDatabaseValue(meta["fields"] ?? .null))
    }

    private static func cursor(_ meta: [String: DatabaseValue]) -> HistoryCursor? {
        guard meta["cursor"] != nil else { return nil }
        let token = Int64.fromDatabaseValue(meta["cursor_token"] ?? .null)
        let change = Int64.fromDatabaseValue(meta["cursor_change"] ?? .null)
        return HistoryCursor(token: token.map { HistoryToken($0) }, changeID: change)
    }

    private static func meta(_ db: Database) throws -> [String: DatabaseValue] {
        var values: [String: DatabaseValue] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, value FROM meta") { values[row[0]] = row[1] as DatabaseValue }
        return values
    }

    private static func setMeta(_ db: Database, _ name: String, _ value: (any DatabaseValueConvertible)?) throws {
        try db.execute(sql: "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                       arguments: [name, value])
    }

    private static func setCursor(_ db: Database, _ cursor: HistoryCursor) throws {
        try setMeta(db, "cursor", 1)
        try setMeta(db, "cursor_token", cursor.token?.rawValue)
        try setMeta(db, "cursor_change", cursor.changeID)
    }

    private static func bumpVersion(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE meta SET value = value + 1 WHERE name = 'version'")
        return try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'version'") ?? 0
    }

    /// The vector of `record`, or nil.
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``.
    public func vector(for record: RecordID) throws -> [Float]? {
        try wrap {
            try database.read { db in
                try Data.fetchOne(db, sql: "SELECT vector FROM vector WHERE entity = ? AND key = ?",
                                  arguments: [record.entity, record.key]).map(Self.floats)
            }
        }
    }

    // Vectors are stored as little-endian Float32, the byte order of every platform Swift runs on here.
    static func floats(_ data: Data) -> [Float] {
        var vector = [Float](repeating: 0, count: data.count / 4)
        vector.withUnsafeMutableBytes { destination in
            data.withUnsafeBytes { source in destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<destination.count])) }
        }
        return vector
    }

    static func data(_ vector: [Float]) -> Data {
        vector.withUnsafeBytes { Data($0) }
    }

    // MARK: Writing

    /// Writes `changes` and moves the index's cursor to `cursor` (when given), in one transaction.
    ///
    /// - Parameters:
    ///   - model: the fingerprint and name of the model that made the vectors, recorded with them.
    ///   - fields: which fields of which entities the vectors embed (``EmbeddingIndexer/fieldsDescription``),
    ///     recorded with them.
    /// - Throws: ``EmbeddingError/dimensionMismatch(expected:found:path:)`` when a vector's dimensions differ from
    ///   those held; ``EmbeddingError/vectorIndex(path:problem:)``.
    public func commit(_ changes: VectorChanges, cursor: HistoryCursor?, model: (fingerprint: String, name: String)? = nil,
                       fields: String? = nil) throws {
        try memory.withLock { memory in
            try wrap {
                var labels: [Int64] = []
                let version = try database.write { db -> Int64 in
                    let meta = try Self.meta(db)
                    var dimensions = Int.fromDatabaseValue(meta["dimensions"] ?? .null)
                    if let first = changes.upserts.first {
                        let held = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM vector)") ?? false
                        if dimensions == nil || !held {
                            dimensions = first.vector.count
                            try Self.setMeta(db, "dimensions", first.vector.count)
                        }
                    }
                    for upsert in changes.upserts where upsert.vector.count != dimensions {
                        throw EmbeddingError.dimensionMismatch(expected: dimensions ?? 0, found: upsert.vector.count, path: file)
                    }
                    if let model {
                        try Self.setMeta(db, "model_fingerprint", model.fingerprint)
                        try Self.setMeta(db, "model_name", model.name)
                    }
                    if let fields { try Self.setMeta(db, "fields", fields) }
                    for record in changes.deletions {
                        try db.execute(sql: "DELETE FROM vector WHERE entity = ? AND key = ?", arguments: [record.entity, record.key])
                    }
                    for upsert in changes.upserts {
                        let label = try Int64.fetchOne(db, sql: """
                            INSERT INTO vector (entity, key, vector, truncated) VALUES (?, ?, ?, ?)
                            ON CONFLICT (entity, key) DO UPDATE SET vector = excluded.vector, truncated = excluded.truncated
                            RETURNING rowid
                            """, arguments: [upsert.record.entity, upsert.record.key, Self.data(upsert.vector), upsert.truncated])
                        labels.append(label ?? 0)
                    }
                    if let cursor { try Self.setCursor(db, cursor) }
                    return try Self.bumpVersion(db)
                }
                // Memory follows only when it was current before this commit; otherwise the next search reloads.
                guard memory.version == version - 1, memory.matrix != nil else { return }
                do {
                    for record in changes.deletions {
                        if let label = memory.matrix!.remove(record) { try memory.graph?.remove(label: label) }
                    }
                    for (upsert, label) in zip(changes.upserts, labels) {
                        if let row = memory.matrix!.row(of: upsert.record), memory.matrix!.labels[row] != label {
                            try memory.graph?.remove(label: memory.matrix!.labels[row])
                        }
                        memory.matrix!.upsert(upsert.record, label: label, vector: upsert.vector, truncated: upsert.truncated)
                        try memory.graph?.add(upsert.vector, label: label)
                    }
                    memory.version = version
                } catch {
                    memory = Memory()
                }
            }
        }
    }

    /// Starts a rebuild beside the live vectors: an empty second table, replacing any left by an interrupted one.
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``.
    public func beginRebuild() throws {
        try wrap {
            try database.write { db in
                try db.execute(sql: """
                    DROP TABLE IF EXISTS vector_rebuild;
                    CREATE TABLE vector_rebuild (entity TEXT NOT NULL, key NOT NULL, vector BLOB NOT NULL,
                        truncated INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (entity, key));
                    """)
            }
        }
    }

    /// Adds vectors to the rebuild begun by ``beginRebuild()``; searches still see the live vectors.
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``.
    public func appendToRebuild(_ upserts: [VectorChanges.Upsert]) throws {
        try wrap {
            try database.write { db in
                for upsert in upserts {
                    try db.execute(sql: """
                        INSERT INTO vector_rebuild (entity, key, vector, truncated) VALUES (?, ?, ?, ?)
                        ON CONFLICT (entity, key) DO UPDATE SET vector = excluded.vector, truncated = excluded.truncated
                        """, arguments: [upsert.record.entity, upsert.record.key, Self.data(upsert.vector), upsert.truncated])
                }
            }
        }
    }

    /// Replaces the live vectors by the rebuilt ones, with their cursor, model and embedded fields, in one transaction.
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``, also when no rebuild was begun.
    public func finishRebuild(cursor: HistoryCursor, model: (fingerprint: String, name: String), dimensions: Int,
                              fields: String? = nil) throws {
        try memory.withLock { memory in
            try wrap {
                try database.write { db in
                    guard try db.tableExists("vector_rebuild") else {
                        throw EmbeddingError.vectorIndex(path: file, problem: "no rebuild to finish")
                    }
                    try db.execute(sql: "DROP TABLE vector; ALTER TABLE vector_rebuild RENAME TO vector; \(Self.truncatedIndex)")
                    try Self.setMeta(db, "dimensions", dimensions)
                    try Self.setMeta(db, "model_fingerprint", model.fingerprint)
                    try Self.setMeta(db, "model_name", model.name)
                    try Self.setMeta(db, "fields", fields)
                    try Self.setCursor(db, cursor)
                    _ = try Self.bumpVersion(db)
                }
                memory = Memory()
            }
        }
    }

    /// Forgets every vector and the cursor (the next consumer round starts over).
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``.
    public func removeAll() throws {
        try memory.withLock { memory in
            try wrap {
                try database.write { db in
                    try db.execute(sql: "DELETE FROM vector; DROP TABLE IF EXISTS vector_rebuild; DELETE FROM meta WHERE name != 'version'")
                    _ = try Self.bumpVersion(db)
                }
                memory = Memory()
            }
        }
    }

    // MARK: Searching

    /// The `limit` records whose vectors are nearest `query` (cosine), best first, optionally only of `entities`
    /// or only among `records`.
    ///
    /// - Parameter candidates: the HNSW candidate list of this search (hnswlib's ef), ``hnswCandidates`` when nil;
    ///   exact search ignores it.
    /// - Throws: ``EmbeddingError/dimensionMismatch(expected:found:path:)`` when the query has other dimensions
    ///   than the vectors held; ``EmbeddingError/vectorIndex(path:problem:)``.
    public func search(_ query: [Float], limit: Int, entities: Set<String>? = nil, records: Set<RecordID>? = nil,
                       candidates: Int? = nil) throws -> [VectorHit] {
        guard limit > 0 else { return [] }
        return try memory.withLock { memory in
            try wrap {
                try refresh(&memory)
                guard let matrix = memory.matrix, matrix.count > 0 else { return [] }
                guard query.count == matrix.dimensions else {
                    throw EmbeddingError.dimensionMismatch(expected: query.count, found: matrix.dimensions, path: file)
                }
                let restricted = entities != nil || records != nil
                func allowed(_ record: RecordID) -> Bool {
                    (entities?.contains(record.entity) ?? true) && (records?.contains(record) ?? true)
                }
                if let graph = memory.graph {
                    var k = restricted ? min(matrix.count, limit * 8) : limit
                    while true {
                        let found = try graph.search(query, k: k, candidates: max(candidates ?? hnswCandidates, k))
                        let hits = found.compactMap { entry -> VectorHit? in
                            guard let row = matrix.row(ofLabel: entry.label) else { return nil }
                            let record = matrix.records[row]
                            return allowed(record) ? VectorHit(record: record, similarity: entry.similarity) : nil
                        }
                        if hits.count >= limit || k >= matrix.count || !restricted { return Array(hits.prefix(limit)) }
                        if k * 8 >= matrix.count { break }
                        k *= 8
                    }
                }
                var mask: [UInt8]?
                if restricted { mask = matrix.records.map { allowed($0) ? 1 : 0 } }
                if memory.scores.count < matrix.count { memory.scores = [Float](repeating: 0, count: matrix.count) }
                let k = min(limit, matrix.count)
                var rows = [Int64](repeating: 0, count: k)
                var similarities = [Float](repeating: 0, count: k)
                var found: Int32 = 0
                var rescored: Int64 = 0
                var message: UnsafeMutablePointer<CChar>?
                let count = Int64(matrix.count), dimensions = Int32(matrix.dimensions)
                let succeeded = memory.scores.withUnsafeMutableBufferPointer { scores in
                    matrix.values.withUnsafeBufferPointer { values in
                        switch exactScan {
                        case .compact:
                            matrix.codes.withUnsafeBufferPointer { codes in
                                ce_exact_search_compact(values.baseAddress, codes.baseAddress, matrix.scales, matrix.radii, count,
                                                        dimensions, query, Int32(k), mask, scores.baseAddress, &rows,
                                                        &similarities, &found, &rescored, &message)
                            }
                        case .float32:
                            ce_exact_search(values.baseAddress, count, dimensions, query, Int32(k), mask, scores.baseAddress,
                                            &rows, &similarities, &found, &message)
                        }
                    }
                }
                guard succeeded else { throw EmbeddingError.computation(EncoderCore.take(message) ?? "exact search failed") }
                let bytes = exactScan == .compact
                    ? matrix.count * (matrix.dimensions + 8) + Int(rescored) * matrix.dimensions * 4
                    : matrix.count * matrix.dimensions * 4
                statistics.withLock { statistics in
                    statistics.searches += 1
                    statistics.rowsScanned += matrix.count
                    statistics.rowsRescored += Int(rescored)
                    statistics.bytesRead += bytes
                }
                return (0..<Int(found)).map { VectorHit(record: matrix.records[Int(rows[$0])], similarity: similarities[$0]) }
            }
        }
    }

    /// What exact searches through this handle have read since it was opened.
    public var scanStatistics: ScanStatistics { statistics.withLock { $0 } }

    /// The stored vectors of `records`; records without a vector are left out.
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)`` when the vectors cannot be read.
    public func vectors(of records: [RecordID]) throws -> [RecordID: [Float]] {
        try memory.withLock { memory in
            try wrap {
                try refresh(&memory)
                guard let matrix = memory.matrix else { return [:] }
                var vectors: [RecordID: [Float]] = [:]
                for record in records {
                    if let row = matrix.row(of: record) { vectors[record] = Array(matrix.vector(at: row)) }
                }
                return vectors
            }
        }
    }

    /// Reloads the vectors when a commit (of another handle or process) changed them since they were read.
    private func refresh(_ memory: inout Memory) throws {
        let version = try database.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'version'") ?? 0 }
        if version == memory.version, memory.matrix != nil { return }
        let loaded = try database.read { db -> (Int64, VectorMatrix?) in
            let version = try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'version'") ?? 0
            guard let dimensions = try Int.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'dimensions'") else {
                return (version, nil)
            }
            var matrix = VectorMatrix(dimensions: dimensions)
            matrix.reserve(try Int.fetchOne(db, sql: "SELECT count(*) FROM vector") ?? 0)
            let rows = try Row.fetchCursor(db, sql: "SELECT rowid, entity, key, vector, truncated FROM vector")
            while let row = try rows.next() {
                let vector = Self.floats(row[3])
                guard vector.count == dimensions else {
                    throw EmbeddingError.dimensionMismatch(expected: dimensions, found: vector.count, path: file)
                }
                matrix.upsert(RecordID(entity: row[1], key: row[2]), label: row[0], vector: vector, truncated: row[4])
            }
            return (version, matrix)
        }
        var fresh = Memory()
        fresh.version = loaded.0
        fresh.matrix = loaded.1
        if let matrix = loaded.1, matrix.count >= hnswThreshold {
            let built = try graph(over: matrix)
            fresh.graph = built.graph
            fresh.graphOrigin = built.origin
        }
        memory = fresh
    }

    /// The graph over `matrix`: the kept one when it matches (``keepsGraphFile``), else built (and kept).
    private func graph(over matrix: VectorMatrix) throws -> (graph: HNSWGraph, origin: GraphOrigin) {
        var origin = GraphOrigin(loaded: false)
        let file = HNSWGraphFile(folder: path)
        if keepsGraphFile {
            switch file.load(for: matrix, connections: hnswConnections, constructionCandidates: hnswConstructionCandidates,
                             kernel: distanceKernel) {
            case .loaded(let graph): return (graph, GraphOrigin(loaded: true))
            case .unusable(let reason): origin.rebuildReason = reason
            case .absent: break
            }
        }
        let graph = try HNSWGraph(dimensions: matrix.dimensions, capacity: matrix.count, connections: hnswConnections,
                                  constructionCandidates: hnswConstructionCandidates, kernel: distanceKernel)
        try graph.addAll(matrix.values, labels: matrix.labels, threads: graphThreads, progress: graphProgress)
        if keepsGraphFile {
            do {
                try file.save(graph, for: matrix)
            } catch {
                origin.saveProblem = "\(error)"
            }
        }
        return (graph, origin)
    }

    /// Where the HNSW graph in memory came from: nil until a search above ``hnswThreshold`` vectors loaded one.
    public var graphOrigin: GraphOrigin? { memory.withLock { $0.graphOrigin } }

    /// Loads the vectors, and the HNSW graph above ``hnswThreshold`` vectors, when they are not in memory yet (a
    /// search does it when needed): to time loading apart from searching.
    ///
    /// - Throws: ``EmbeddingError/vectorIndex(path:problem:)``.
    public func load() throws {
        try memory.withLock { memory in try wrap { try refresh(&memory) } }
    }
}

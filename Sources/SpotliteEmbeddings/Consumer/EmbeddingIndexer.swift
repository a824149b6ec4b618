import Foundation
import GRDB
import SpotliteStore

/// Keeps a ``VectorIndex`` in line with a store: a ``HistoryConsumer`` (run it with a ``HistoryConsumerDriver``,
/// live or on demand) that embeds the configured text fields of every inserted or updated record, in batches, and
/// removes the vector of every deleted record (or of one whose text became empty).
///
/// ```swift
/// let encoder = try SentenceEncoder(directory: URL(fileURLWithPath: "Index/models/all-MiniLM-L6-v2"))
/// let vectors = try VectorIndex(path: "Index/vectors")
/// let embedder = EmbeddingIndexer(encoder: encoder, vectors: vectors, fields: ["Package": ["name", "summary"]])
/// let driver = try HistoryConsumerDriver(store: store, consumer: embedder)
/// try await driver.processPending()
/// let hits = try vectors.search(encoder.vector(for: "baking bread"), limit: 10)
/// ```
///
/// Its position is saved in the store under ``consumerName`` (``defaultName`` by default), so history cleanup waits
/// for it as for the search indexer. The vectors and the history cursor they reflect are committed together in
/// the vector index, which is where it resumes (``resumePoint()``): a crash at any point loses nothing and applies
/// nothing twice that matters. When the history it needs was deleted, or the vectors were made by another model,
/// it rebuilds beside the live vectors from the rows and switches in one step.
public struct EmbeddingIndexer: HistoryConsumer {
    /// The default position name.
    public static let defaultName = "spotlite.embedder"

    /// The position name in the store.
    public let consumerName: String
    /// The model.
    public let encoder: SentenceEncoder
    /// Where the vectors go.
    public let vectors: VectorIndex
    /// For each embedded entity, the text fields whose values are embedded, in this order.
    public let fields: [String: [String]]
    /// The model's name as configured, recorded with the vectors (``VectorIndexState/modelName``).
    public let modelName: String
    /// Records embedded per call to the model.
    public let batchSize: Int
    /// Where its rounds' time goes (shared by its copies).
    public let timings: EmbeddingRoundTimings

    /// An embedder of `fields` (entity → text columns) with `encoder` into `vectors`, timing its rounds into `timings`.
    public init(encoder: SentenceEncoder, vectors: VectorIndex, fields: [String: [String]],
                modelName: String? = nil, consumerName: String = EmbeddingIndexer.defaultName, batchSize: Int = 64,
                timings: EmbeddingRoundTimings = EmbeddingRoundTimings()) {
        self.timings = timings
        self.encoder = encoder
        self.vectors = vectors
        self.fields = fields
        self.modelName = modelName ?? encoder.directory.lastPathComponent
        self.consumerName = consumerName
        self.batchSize = max(1, batchSize)
    }

    public typealias Document = String

    /// The embedded fields in words, entities in name order (`Note: title, body; Task: text`): recorded with the
    /// vectors, so that vectors of other fields are rebuilt rather than mixed with new ones.
    public var fieldsDescription: String {
        fields.keys.sorted().map { "\($0): \(fields[$0]!.joined(separator: ", "))" }.joined(separator: "; ")
    }

    /// The embedded entities.
    public var filter: HistoryRequest { HistoryRequest(entities: Set(fields.keys)) }

    /// Inserts and deletes, and updates of an embedded field.
    public func includes(_ change: HistoryChange) -> Bool {
        guard change.changeType == .update, let columns = change.updatedColumns, let embedded = fields[change.entity] else {
            return true
        }
        return columns.contains { embedded.contains($0) }
    }

    /// The embedded fields' text, one per line; nil when the record is gone or its text is empty.
    public func document(for record: RecordID, in db: Database) throws -> String? {
        guard let columns = fields[record.entity], !columns.isEmpty else { return nil }
        guard let keyColumn = try db.primaryKey(record.entity).columns.first else { return nil }
        let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let statement = try db.cachedStatement(
            sql: "SELECT \(list) FROM \(record.entity.quotedDatabaseIdentifier) WHERE \(keyColumn.quotedDatabaseIdentifier) = ?")
        guard let row = try Row.fetchOne(statement, arguments: [record.key]) else { return nil }
        return Self.text(of: Array(row.databaseValues))
    }

    static func text(of values: [DatabaseValue]) -> String? {
        var parts: [String] = []
        for value in values {
            switch value.storage {
            case .string(let text): if !text.isEmpty { parts.append(text) }
            case .int64(let number): parts.append(String(number))
            case .double(let number): parts.append(String(number))
            case .null, .blob: break
            }
        }
        let text = parts.joined(separator: "\n")
        return text.contains(where: { !$0.isWhitespace }) ? text : nil
    }

    /// Embeds the batch's upserts and commits them, its deletions and its cursor in one transaction.
    public func apply(_ batch: HistoryBatch<String>) async throws {
        timings.batchBegan()
        if batch.kind == .snapshot, batch.isFirstOfSnapshot { try vectors.removeAll() }
        var changes = VectorChanges(deletions: batch.deletions)
        let embedded = try embed(batch.upserts.map { ($0.record, $0.document) })
        changes.upserts = embedded.upserts
        changes.deletions += embedded.empty
        timings.embedded()
        try vectors.commit(changes, cursor: batch.cursor, model: (encoder.fingerprint, modelName), fields: fieldsDescription)
        timings.committed()
    }

    /// Starts timing the round (``timings``).
    public func roundWillBegin(number: Int, resynchronizing reason: HistoryResynchronizationReason?) async throws {
        timings.roundBegan()
    }

    /// Ends timing the round (``timings``).
    public func roundDidEnd(number: Int, result: Result<HistoryConsumerRound, any Error>) async {
        timings.roundEnded()
    }

    /// The vectors of `texts`, `batchSize` at a time; records whose text has no words come back in `empty`.
    func embed(_ texts: [(RecordID, String)]) throws -> (upserts: [VectorChanges.Upsert], empty: [RecordID]) {
        var upserts: [VectorChanges.Upsert] = []
        var empty: [RecordID] = []
        var pending: [(RecordID, [Int32], Bool)] = []
        upserts.reserveCapacity(texts.count)
        func flush() throws {
            guard !pending.isEmpty else { return }
            let flat = try encoder.vectors(forTokens: pending.map(\.1))
            let dimensions = encoder.dimensions
            for (index, entry) in pending.enumerated() {
                upserts.append(.init(record: entry.0, vector: Array(flat[(index * dimensions)..<((index + 1) * dimensions)]),
                                     truncated: entry.2))
            }
            pending.removeAll(keepingCapacity: true)
        }
        for (record, text) in texts {
            let tokens = encoder.tokens(of: text)
            guard tokens.ids.count > 2 else {
                empty.append(record)
                continue
            }
            pending.append((record, tokens.ids, tokens.truncated))
            if pending.count >= batchSize { try flush() }
        }
        try flush()
        return (upserts, empty)
    }

    /// After the cursor committed with the vectors; the start when there is none.
    public func resumePoint() async throws -> HistoryResumePoint {
        guard let cursor = try vectors.cursor() else { return .start }
        return .after(cursor)
    }

    /// When the vectors were made by another model than ``encoder``, or of other fields than ``fields``.
    public func resynchronizationReason(resumingAfter cursor: HistoryCursor) async throws -> String? {
        let state = try vectors.madeBy()
        guard state.held else { return nil }
        if let dimensions = state.dimensions, dimensions != encoder.dimensions {
            return "the vectors have \(dimensions) dimensions but the model \(modelName) makes \(encoder.dimensions)"
        }
        if let fingerprint = state.modelFingerprint, fingerprint != encoder.fingerprint {
            return "the vectors were made by another model (\(state.modelName ?? "unknown")) than \(modelName)"
        }
        if let embedded = state.fields, embedded != fieldsDescription {
            return "the embedded fields changed (\(embedded.isEmpty ? "none" : embedded) is now \(fieldsDescription.isEmpty ? "none" : fieldsDescription))"
        }
        return nil
    }

    /// Reads every embedded record in one read transaction, embeds them into a table beside the live vectors, and
    /// switches in one step, with the token the rows reflect.
    public func resynchronize(because reason: HistoryResynchronizationReason, from store: SpotliteStore) async throws
        -> HistoryResynchronization
    {
        let (token, texts) = try store.read { db -> (HistoryToken?, [(RecordID, String)]) in
            let token = try SpotliteStore.currentToken(in: db)
            var texts: [(RecordID, String)] = []
            for entity in fields.keys.sorted() {
                guard let columns = fields[entity], !columns.isEmpty, try db.tableExists(entity),
                      let keyColumn = try db.primaryKey(entity).columns.first
                else { continue }
                let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
                let rows = try Row.fetchCursor(db, sql: "SELECT \(keyColumn.quotedDatabaseIdentifier), \(list) FROM \(entity.quotedDatabaseIdentifier)")
                while let row = try rows.next() {
                    let key: DatabaseValue = row[0]
                    if let text = Self.text(of: Array(row.databaseValues.dropFirst())) {
                        texts.append((RecordID(entity: entity, key: key), text))
                    }
                }
            }
            return (token, texts)
        }
        // Timed as one batch: the rebuild table's writes count as embedding, the switch as committing.
        timings.batchBegan()
        try vectors.beginRebuild()
        let chunk = batchSize * 16
        var start = 0
        while start < texts.count {
            let end = min(start + chunk, texts.count)
            try vectors.appendToRebuild(try embed(Array(texts[start..<end])).upserts)
            start = end
        }
        timings.embedded()
        try vectors.finishRebuild(cursor: HistoryCursor(token: token), model: (encoder.fingerprint, modelName),
                                  dimensions: encoder.dimensions, fields: fieldsDescription)
        timings.committed()
        return .completed(through: token)
    }
}

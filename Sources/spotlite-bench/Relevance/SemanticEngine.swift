import Foundation
import GRDB
import SpotliteEmbeddings
import SpotliteStore

/// The semantic side of a relevance run: the collection's texts embedded with the model and kept in a vector index
/// under a cache folder, so that a second run over the same documents, fields and model embeds nothing; queries are
/// embedded one at a time and searched exactly (what the product does below its HNSW threshold). Used from one
/// task only.
final class SemanticEngine {
    let encoder: SentenceEncoder
    let vectors: VectorIndex
    /// The folder holding this collection's vectors.
    let folder: String
    /// Whether this run embedded the documents (false: they came from the cache).
    let embedded: Bool
    /// Documents with text to embed (the others have no vector, as in the product).
    let documents: Int
    /// Documents embedded by this run (fewer than `documents` when an interrupted run had embedded the others).
    let embeddedCount: Int
    let tokens: Int
    let seconds: Double
    private let entity: String
    private var keyOfRecord: [RecordID: String] = [:]
    private var recordOfKey: [String: RecordID] = [:]

    /// Loads the model and the collection's vectors from `cache`, embedding `fields` (joined by a line break, as the
    /// embedding indexer joins a record's fields) of every record that is not there yet.
    init(model: String, cache: String, corpus: Corpus, fields: [String], entity: String, batchSize: Int) throws {
        let encoder = try SentenceEncoder(directory: URL(fileURLWithPath: model))
        self.encoder = encoder
        self.entity = entity
        var texts: [(key: String, text: String)] = []
        for record in corpus.records {
            guard let key = record[corpus.key] else { continue }
            let text = fields.compactMap { record[$0] }.filter { !$0.isEmpty }.joined(separator: "\n")
            if text.contains(where: { !$0.isWhitespace }) { texts.append((key, text)) }
        }
        // The cache's name identifies the model, the fields and every text: other documents get other vectors.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ string: String) {
            for byte in string.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            hash ^= 0xff
            hash = hash &* 0x100_0000_01b3
        }
        mix(encoder.fingerprint)
        fields.forEach(mix)
        for (key, text) in texts {
            mix(key)
            mix(text)
        }
        let folder = cache + "/" + String(hash, radix: 16)
        self.folder = folder
        let vectors = try VectorIndex(path: folder, hnswThreshold: .max)
        self.vectors = vectors
        for (key, _) in texts {
            keyOfRecord[RecordID(entity: entity, key: key.databaseValue)] = key
            recordOfKey[key] = RecordID(entity: entity, key: key.databaseValue)
        }
        documents = texts.count

        let state = try vectors.state()
        if state.vectors == texts.count, state.modelFingerprint == encoder.fingerprint {
            embedded = false
            embeddedCount = 0
            tokens = 0
            seconds = 0
            Progress.note("semantic: \(texts.count) vectors read from \(folder)")
            return
        }
        // An interrupted run left some of the vectors: embed only the others.
        if state.modelFingerprint == encoder.fingerprint {
            texts = try texts.filter { try vectors.vector(for: RecordID(entity: entity, key: $0.key.databaseValue)) == nil }
            if state.vectors > 0 { Progress.note("semantic: \(state.vectors) vectors kept from an interrupted run") }
        } else {
            try vectors.removeAll()
        }
        embedded = true
        embeddedCount = texts.count
        let started = Stopwatch.nanoseconds()
        var tokenCount = 0
        var start = 0
        var lastNote = started
        while start < texts.count {
            let end = min(start + batchSize, texts.count)
            let sequences = texts[start..<end].map { encoder.tokens(of: $0.text) }
            tokenCount += sequences.reduce(0) { $0 + $1.ids.count }
            let flat = try encoder.vectors(forTokens: sequences.map(\.ids))
            let dimensions = encoder.dimensions
            let upserts = (start..<end).map { row in
                VectorChanges.Upsert(record: RecordID(entity: entity, key: texts[row].key.databaseValue),
                                     vector: Array(flat[((row - start) * dimensions)..<((row - start + 1) * dimensions)]),
                                     truncated: sequences[row - start].truncated)
            }
            try vectors.commit(VectorChanges(upserts: upserts), cursor: nil,
                               model: (fingerprint: encoder.fingerprint, name: URL(fileURLWithPath: model).lastPathComponent))
            start = end
            let now = Stopwatch.nanoseconds()
            if now - lastNote > 30_000_000_000 || start == texts.count {
                lastNote = now
                let elapsed = Double(now - started) / 1e9
                Progress.note(String(format: "semantic: embedded %d of %d texts in %.0f s (%.0f docs/s, %.0f tokens/s)",
                                     start, texts.count, elapsed, Double(start) / elapsed, Double(tokenCount) / elapsed))
            }
        }
        tokens = tokenCount
        seconds = Double(Stopwatch.nanoseconds() - started) / 1e9
    }

    /// The query's vector; nil for a text with no words.
    func vector(for text: String) throws -> [Float]? {
        do { return try encoder.vector(for: text) } catch EmbeddingError.emptyText { return nil }
    }

    /// The keys of the `limit` documents nearest `vector`, best first.
    func search(_ vector: [Float]?, limit: Int) throws -> [String] {
        guard let vector else { return [] }
        return try vectors.search(vector, limit: limit).compactMap { keyOfRecord[$0.record] }
    }

    /// The stored vectors of the documents of `keys`, in their order (those without one left out).
    func vectors(ofKeys keys: [String]) throws -> [[Float]] {
        let records = keys.compactMap { recordOfKey[$0] }
        let stored = try vectors.vectors(of: records)
        return records.compactMap { stored[$0] }
    }

    /// The keys of the `limit` documents nearest the meaning of `text`, best first.
    func search(_ text: String, limit: Int) throws -> [String] {
        try search(vector(for: text), limit: limit)
    }
}

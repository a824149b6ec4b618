import Foundation
import SpotliteEmbeddings
import SpotliteSearch
import SpotliteStore

/// The model and the vector index a configuration names (`[embeddings]`), opened together: what semantic search
/// reads and what ``embedder`` keeps up to date.
public struct SemanticIndex: Sendable {
    /// The model.
    public let encoder: SentenceEncoder
    /// The vectors.
    public let vectors: VectorIndex
    /// The embedded fields of each embedded entity.
    public let fields: [String: [String]]
    /// The configuration's `[embeddings]` table.
    public let settings: EmbeddingsConfiguration
    /// Where the rounds of every ``embedder`` of this index spend their time.
    public let embedderTimings = EmbeddingRoundTimings()

    /// A semantic index over an open model and vector index: `fields` are the embedded text fields by entity.
    public init(encoder: SentenceEncoder, vectors: VectorIndex, fields: [String: [String]],
                settings: EmbeddingsConfiguration = EmbeddingsConfiguration()) {
        self.encoder = encoder
        self.vectors = vectors
        self.fields = fields
        self.settings = settings
    }

    /// Opens the model and the vector index of `configuration`.
    ///
    /// - Throws: ``HybridSearchError/embeddingsNotConfigured(mode:)`` without `[embeddings]`;
    ///   ``EmbeddingError/modelMissing(path:)`` and ``EmbeddingError/modelDamaged(path:problem:)`` (naming the
    ///   model's path and `make deps`); ``EmbeddingError/vectorIndex(path:problem:)``.
    public init(configuration: SpotliteConfiguration, mode: SearchMode = .semantic) throws {
        guard let settings = configuration.embeddings else { throw HybridSearchError.embeddingsNotConfigured(mode: mode) }
        let directory = settings.modelDirectory(indexPath: configuration.indexPath)
        encoder = try SentenceEncoder(directory: URL(fileURLWithPath: directory))
        vectors = try VectorIndex(path: settings.vectorIndexPath(besides: configuration.indexPath))
        fields = configuration.embeddedFields
        self.settings = settings
    }

    /// An embedding consumer keeping ``vectors`` in line with the store, under the configured author.
    public var embedder: EmbeddingIndexer {
        EmbeddingIndexer(encoder: encoder, vectors: vectors, fields: fields, modelName: (settings.model as NSString).lastPathComponent,
                         consumerName: settings.author, batchSize: settings.batchSize, timings: embedderTimings)
    }
}

extension SemanticIndex {
    /// Brings the vectors up to the store's current token from the embedder's own position (`rebuild`: embeds every
    /// record again beside the live vectors and switches), and says what it did in the keyword index's terms:
    /// `indexed` records embedded, `deleted` vectors removed, `rebuilt` with the reason (a first start, vectors of
    /// another model or dimension, history deleted before the embedder read it, or the request).
    public func update(store: SpotliteStore, rebuild: Bool = false) async throws -> IndexUpdateSummary {
        let clock = ContinuousClock()
        let started = clock.now
        let driver = try HistoryConsumerDriver(store: store, consumer: embedder)
        let round = rebuild ? try await driver.resynchronize(reason: "requested") : try await driver.processPending()
        var summary = IndexUpdateSummary()
        summary.token = try vectors.state().cursor?.token ?? round.position
        summary.transactions = round.transactions
        summary.changes = round.upserts + round.deletions
        summary.indexed = round.snapshot ? try vectors.state().vectors : round.upserts
        summary.deleted = round.deletions
        summary.rebuilt = round.snapshot
        summary.reason = round.resynchronization.map(Self.reason)
        summary.seconds = (clock.now - started).timeInterval
        return summary
    }

    private static func reason(_ reason: HistoryResynchronizationReason) -> String {
        switch reason {
        case .firstStart: return "no vectors yet"
        default: return reason.description
        }
    }

    /// Fails when the vectors cannot answer a search by this model: never built, or made by another model.
    ///
    /// - Throws: ``HybridSearchError/vectorsNotBuilt(path:)`` and ``HybridSearchError/vectorsOfAnotherModel(path:reason:)``.
    public func checkVectors() throws {
        let state = try vectors.state()
        guard state.cursor != nil || state.vectors > 0 else { throw HybridSearchError.vectorsNotBuilt(path: vectors.path) }
        if let dimensions = state.dimensions, dimensions != encoder.dimensions {
            throw HybridSearchError.vectorsOfAnotherModel(
                path: vectors.path, reason: "they have \(dimensions) dimensions and the model \(encoder.directory.lastPathComponent) makes \(encoder.dimensions)")
        }
        if let fingerprint = state.modelFingerprint, fingerprint != encoder.fingerprint {
            throw HybridSearchError.vectorsOfAnotherModel(
                path: vectors.path, reason: "they were made by \(state.modelName ?? "another model"), not by \(encoder.directory.path)")
        }
    }
}

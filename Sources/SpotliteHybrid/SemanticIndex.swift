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
                         consumerName: settings.author, batchSize: settings.batchSize)
    }
}

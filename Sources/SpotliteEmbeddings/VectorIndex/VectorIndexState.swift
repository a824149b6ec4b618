import SpotliteStore

/// What a ``VectorIndex`` holds, as committed.
public struct VectorIndexState: Sendable, Hashable {
    /// Vectors held.
    public var vectors: Int
    /// Of those, records whose text was cut to the model's maximum tokens.
    public var truncated: Int
    /// The vector dimensions; nil before the first vector.
    public var dimensions: Int?
    /// The fingerprint of the model that made the vectors (``SentenceEncoder/fingerprint``); nil before any.
    public var modelFingerprint: String?
    /// The model's folder as it was configured when the vectors were made.
    public var modelName: String?
    /// Which fields of which entities the vectors embed, as the embedder described them
    /// (``EmbeddingIndexer/fieldsDescription``); nil in vectors made before it was recorded.
    public var fields: String?
    /// Where the vectors stand in the store's history: they reflect every change through it.
    public var cursor: HistoryCursor?
}

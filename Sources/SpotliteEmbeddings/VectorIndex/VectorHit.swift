import SpotliteStore

/// A record found by meaning: its cosine similarity to the query, from -1 to 1.
public struct VectorHit: Sendable, Hashable {
    /// The record.
    public var record: RecordID
    /// The cosine similarity of its vector and the query's (both normalised, so their dot product).
    public var similarity: Float
}

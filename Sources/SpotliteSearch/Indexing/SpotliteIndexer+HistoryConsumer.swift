import SpotliteStore

/// The indexer consumes history with its own position (its author), so trackers and cleaners configured with it
/// wait for what it has not indexed.
extension SpotliteIndexer: HistoryPositionHolder {
    /// The indexer's position name: ``IndexerConfiguration/author``.
    public nonisolated var consumerName: String { configuration.indexer.author }
}

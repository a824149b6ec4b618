import SpotliteStore

extension SpotliteIndexer {
    /// Where the index stands against its store (``IndexStatus``), with every reason the next update would rebuild
    /// it (``IndexStatus/rebuildReason``). Takes no lock: it works while another process updates the index.
    ///
    /// - Throws: what ``IndexStatus/init(store:configuration:indexPath:)`` throws; errors reading the index's
    ///   metadata, except that of a shard that cannot be reached (the status names it).
    public func status() throws -> IndexStatus {
        var status = try IndexStatus(store: store, configuration: configuration, indexPath: indexPath)
        guard status.exists, status.rebuildCause == nil else { return status }
        do {
            status.rebuildCause = try updater.rebuildReason()
        } catch where !status.unavailableShards.isEmpty {
            // The status already says which shard cannot be read; what it holds is unknown.
        }
        return status
    }
}

import SpotliteStore

extension SpotliteIndexer {
    /// The history token the live index reflects (committed with its documents), or nil without an index.
    ///
    /// - Throws: ``SearchError/indexCorrupt(path:reason:)`` when the index cannot be read;
    ///   ``SearchError/engine(_:outcome:)`` for other engine failures.
    public nonisolated func indexedToken() throws -> HistoryToken? {
        if let layout = directory.liveLayout(), layout.isPlaced {
            do {
                return try layout.committedToken()
            } catch SearchError.engine(let error, nil) {
                throw SearchError.reading(error, path: indexPath)
            }
        }
        guard let generation = directory.liveGeneration else { return nil }
        do {
            let generationPath = directory.generationPath(generation)
            // Each shard commits its own token; the index reflects the history up to the smallest.
            if let layout = ShardLayout.read(generationPath: generationPath) {
                return try layout.committedToken()
            }
            let database = try XapianDatabase(path: generationPath)
            let metadata = try IndexMetadata(reading: database.metadata(forKey:))
            return metadata.token.flatMap { $0.rawValue > 0 ? $0 : nil }
        } catch SearchError.engine(let error, nil) {
            throw SearchError.reading(error, path: indexPath)
        }
    }

    /// Waits until the index reflects `token`: read-your-writes for search. Pass the token of a write
    /// (`SpotliteStore.writeReturningToken(author:context:_:)`); searches started after this returns see it.
    ///
    /// Someone must update meanwhile: live mode (``start()``), or ``update()`` from another task or process.
    /// Returns at once when the index is already there; cancel the waiting task to give up.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first; the errors of ``indexedToken()``.
    public nonisolated func waitUntilIndexed(through token: HistoryToken) async throws {
        // Subscribed before reading the index's token, so a commit in between is not missed.
        let updates = indexUpdates()
        if let indexed = try indexedToken(), indexed >= token { return }
        for await _ in updates {
            // Read back rather than trust the event's token: with shards, one shard's commit is not the index's.
            if let indexed = try indexedToken(), indexed >= token { return }
        }
        throw CancellationError()
    }
}

import Foundation
import SpotliteStore

extension SpotliteIndexer {
    /// Removes the index, the indexer's position in the store and its registration as a consumer, so cleanup stops
    /// waiting for it at once.
    ///
    /// Shards placed at locations (`shards = ["tcp://HOST:PORT", …]`) are emptied through their servers first: every
    /// document the index wrote there and its metadata are deleted and committed, then the shard map goes. Every
    /// shard is opened (and its identity checked) before any is emptied, so a shard that cannot be reached fails the
    /// call with nothing deleted. With `keepingPlacedShards`, only the local state goes (the shard map and the lock):
    /// the documents stay on the servers, and the next build rewrites them by generation tag and sweep.
    /// Refuses while live indexing runs: call ``stop()`` first, or the index would be rebuilt at once.
    ///
    /// - Throws: ``SearchError/indexingRunning`` while live indexing runs;
    ///   ``SearchError/indexLocked(path:holderPID:)`` when another indexer holds the index;
    ///   ``SearchError/shardUnavailable(shard:reason:)`` or ``SearchError/shardIdentityChanged(shard:expected:found:)``
    ///   for a placed shard that cannot be emptied (nothing is deleted then);
    ///   ``SearchError/indexPartlyDeleted(shard:error:)`` when a shard fails once emptying has begun;
    ///   ``SearchError/cannotWrite(path:reason:)`` when the directory cannot be removed; SQLite's errors.
    @discardableResult
    public func deleteIndex(keepingPlacedShards: Bool = false) async throws -> IndexDeletion {
        guard !liveMode.isRunning else { throw SearchError.indexingRunning }
        return try await queued { indexer in try indexer.performDeletion(keepingPlacedShards: keepingPlacedShards) }
    }

    private func performDeletion(keepingPlacedShards: Bool) throws -> IndexDeletion {
        guard !liveMode.isRunning else { throw SearchError.indexingRunning }
        var deletion = IndexDeletion(hadIndex: false)
        try withWriterLock {
            deletion.hadIndex = directory.exists || directory.hasShardMap
            if !keepingPlacedShards, let map = ShardMap.read(in: directory),
               let layout = ShardLayout(directory: directory, map: map) {
                deletion.documentsDeleted = try emptyPlacedShards(layout)
                deletion.emptiedShards = (0..<layout.count).map(layout.shardName)
            }
            do {
                try directory.remove()
            } catch {
                throw SearchError.cannotWrite(path: indexPath, reason: "\(error.localizedDescription)")
            }
        }
        // Unregistered, not only without a position: cleanup stops waiting for it at once (a registered consumer
        // without a position would hold history back for the whole maximum duration). The next update registers
        // it again, with a driver of its own.
        historyDriver = nil
        try store.unregisterConsumer(configuration.indexer.author)
        return deletion
    }

    /// Deletes every document the index wrote in the placed shards of `layout` (all carry a generation tag) and the
    /// index's metadata there; returns how many documents went.
    private func emptyPlacedShards(_ layout: ShardLayout) throws -> Int {
        // All opened first: a shard down or replaced fails before anything is deleted anywhere.
        var writers: [XapianWritableDatabase] = []
        defer { for writer in writers { try? writer.close() } }
        for shard in 0..<layout.count {
            do {
                writers.append(try layout.openWriter(shard, action: .open, noSync: false, checkIdentity: true))
            } catch SearchError.engine(let error, nil) {
                throw SearchError.engine(error, outcome: .nothingDeleted(shard: layout.shardName(shard)))
            }
        }
        var deleted = 0
        for (shard, writer) in writers.enumerated() {
            do {
                let before = try writer.documentCount()
                try writer.sweep(prefix: ShardMap.tagPrefix, keeping: ShardMap.tagPrefix,
                                 spellingSlot: layout.recordsSpelling(shard) ? DocumentBuilder.recordSlot : nil)
                for key in IndexMetadata.allKeys { try writer.setMetadata("", forKey: key) }
                try writer.commit()
                deleted += before - (try writer.documentCount())
            } catch {
                let named = ShardLayout.naming(error, shard: layout.shardName(shard))
                if case SearchError.engine(let error, nil) = named {
                    throw SearchError.indexPartlyDeleted(shard: layout.shardName(shard), error: error)
                }
                throw named
            }
        }
        return deleted
    }
}

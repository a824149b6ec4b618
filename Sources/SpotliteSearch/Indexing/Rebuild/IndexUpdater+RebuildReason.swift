import Foundation
import GRDB
import SpotliteStore

extension IndexUpdater {
    /// Why the live index cannot be updated from history, or nil when it can: reads the index's directory, its
    /// shards' metadata and the store, and lets ``IndexRebuildPolicy`` decide.
    func rebuildReason() throws -> IndexRebuildReason? {
        if let locations = configuration.shards.locations {
            guard let map = ShardMap.read(in: directory), let layout = ShardLayout(directory: directory, map: map) else {
                return directory.liveGeneration == nil ? .noIndex : .shardsPlaced(locations: locations.count)
            }
            if layout.locations != locations {
                return .shardLocationsChanged(index: map.shards.map(\.location), configured: locations.map(\.description))
            }
            // Unreachable shards and shards answering with another UUID are errors, not reasons to rebuild.
            return try rebuildReason(layout: layout, shards: layout.metadata())
        }
        if ShardMap.read(in: directory) != nil { return .shardsInDirectory }
        guard let generation = directory.liveGeneration else { return .noIndex }
        let generationPath = directory.generationPath(generation)
        guard let layout = ShardLayout.read(generationPath: generationPath) else {
            if FileManager.default.fileExists(atPath: generationPath + "/iamglass") {
                return .singleDatabase(shards: shardCount(existing: nil))
            }
            return .unreadable(detail: "its generation \(generationPath) lists no shards")
        }
        let shards: [IndexMetadata]
        do {
            shards = try layout.metadata()
            let database = try XapianDatabase(path: generationPath)
            _ = try database.documentCount()
        } catch let error as SearchError where error.engineCode?.isNetwork == true {
            // A remote shard that cannot be reached is not damaged: rebuilding would only fail the same way.
            throw error
        } catch {
            return .unreadable(detail: "\(error)")
        }
        let wanted = shardCount(existing: layout.count)
        if wanted != layout.count {
            return .shardCountChanged(index: layout.count, configured: wanted)
        }
        return try rebuildReason(layout: layout, shards: shards)
    }

    /// Why the shards of `layout`, whose metadata is `shards`, cannot be updated from history, or nil when they can.
    private func rebuildReason(layout: ShardLayout, shards: [IndexMetadata]) throws -> IndexRebuildReason? {
        let gap = try store.captureGap()
        let facts = IndexRebuildPolicy.Store(storeID: store.storeID, modelVersion: try store.currentModelVersion()?.description,
                                             captureGap: gap.count, captureGapDetail: gap.reason,
                                             currentToken: try store.currentToken())
        if let reason = IndexRebuildPolicy(fingerprint: schema.fingerprint).reason(shards: shards, store: facts) {
            return reason
        }
        return try largeBacklogReason(layout: layout)
    }

    /// Why applying the pending history would cost more than a rebuild, or nil.
    private func largeBacklogReason(layout: ShardLayout) throws -> IndexRebuildReason? {
        guard let share = currentSettings.backlogRebuildShare else { return nil }
        let documents = try layout.openCombined().database.documentCount()
        guard documents >= IndexRebuildPolicy.minimumDocuments else { return nil }
        do {
            let after = try layout.committedToken()
            let count = try store.countChanges(HistoryRequest.after(after).changeTypes([.insert, .update, .delete]))
            guard IndexRebuildPolicy.mayOutweigh(count: count, documents: documents, share: share) else { return nil }
            // Read them, since updates of columns no field reads cost next to nothing to apply (an UPDATE of such a
            // column on every row must not rebuild the index), and updates of stored, number or date columns alone
            // a quarter.
            let pending = try weighIndexedChanges(after: after, documents: documents, total: count, share: share)
            return IndexRebuildPolicy.backlogReason(pending, documents: documents, share: share)
        } catch let error as SpotliteStoreError where error.area == .history {
            return nil  // history purged past the index: the update finds out and says so
        }
    }

    /// The changes after `token` that can change a document (``IndexRecordReader/indexes(_:)``), read a page at a
    /// time; stops once their weight is past the line for every way the `total` changes not yet read could split.
    private func weighIndexedChanges(after token: HistoryToken?, documents: Int, total: Int, share: Double) throws
        -> IndexRebuildPolicy.PendingWeight {
        let reader = IndexRecordReader(schema: schema, provider: provider)
        let request = HistoryRequest().changeTypes([.insert, .update, .delete])
        var cursor = HistoryCursor(token: token)
        var pending = IndexRebuildPolicy.PendingWeight()
        var seen = 0
        while true {
            let page = try store.fetchHistory(after: cursor, matching: request, maximumChanges: 10_000)
            for transaction in page.transactions {
                for change in transaction.changes {
                    seen += 1
                    guard reader.indexes(change) else { continue }
                    pending.changes += 1
                    switch change.changeType {
                    case .insert: pending.inserts += 1
                    case .delete: pending.deletes += 1
                    case .update: if provider == nil, Self.keepsTerms(change, schema: schema) { pending.valuesOnly += 1 }
                    }
                }
            }
            if IndexRebuildPolicy.isSettled(pending, documents: documents, unread: total - seen, share: share)
                || page.isComplete || page.next == cursor {
                return pending
            }
            cursor = page.next
        }
    }

    /// How many shards to build: the configured count, else the existing index's, else one per core up to four.
    func shardCount(existing: Int?) -> Int {
        configuration.shards.count ?? existing ?? ShardLayout.defaultCount
    }
}

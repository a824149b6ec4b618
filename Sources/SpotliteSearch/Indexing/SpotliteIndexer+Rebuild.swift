import Foundation
import GRDB
import SpotliteStore
#if canImport(Glibc)
import Glibc
#endif

extension SpotliteIndexer {
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
        } catch let error as XapianError where error.code.isNetwork {
            // A remote shard that cannot be reached is not damaged: rebuilding would only fail the same way.
            throw SearchError.engine(error)
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

    /// Pending changes past this share of the index's documents are applied by a rebuild instead
    /// (``IndexRebuildPolicy/rebuildShare``).
    package static var rebuildShare: Double { IndexRebuildPolicy.rebuildShare }

    /// Why applying the pending history would cost more than a rebuild, or nil.
    private func largeBacklogReason(layout: ShardLayout) throws -> IndexRebuildReason? {
        guard let share = backlogRebuildShare else { return nil }
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
        } catch is HistoryError {
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

    /// Indexes a snapshot of every row into a new generation and makes it live. The snapshot and its token come
    /// from one read transaction, so the history after that token is exactly what the snapshot misses. Each shard
    /// of the new generation is written by a thread of its own.
    func rebuildGeneration(reason: IndexRebuildReason, into summary: inout IndexUpdateSummary) throws {
        if let locations = configuration.shards.locations {
            try rebuildInPlace(at: locations, reason: reason, into: &summary)
            return
        }
        logger.info("rebuilding the index at \(indexPath): \(reason)")
        // Read before the snapshot: a migration in between makes the next update rebuild again, never skip one.
        let modelVersion = try store.currentModelVersion()
        let captureGap = try store.captureGap().count
        let existing = directory.liveGeneration.flatMap { ShardLayout.read(generationPath: directory.generationPath($0)) }
        let generation = directory.nextGeneration()
        let path = directory.generationPath(generation)
        let layout = ShardLayout(generationPath: path, count: shardCount(existing: existing?.count))
        var keepNew = false
        defer { if !keepNew { try? FileManager.default.removeItem(atPath: path) } }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SearchError.cannotWrite(path: path, reason: "\(error.localizedDescription)")
        }
        // A fresh generation nobody reads yet: no fsync per commit, one sync of the whole tree before the switch.
        let token: HistoryToken?, indexed: Int, unreadable: IndexUpdateSummary
        do {
            let writers = try ShardWriterSet(layout: layout, action: .createOrOverwrite, noSync: true, schema: schema,
                                             flushThreshold: ShardWriterSet.rebuildFlushThreshold(shards: layout.count),
                                             writeHook: documentWriteHook, commitHook: shardCommitHook)
            do {
                (token, indexed, unreadable) = try indexSnapshot(into: writers)
                let metadata = rebuildMetadata(modelVersion: modelVersion, captureGap: captureGap, clearingAbsent: false)
                try writers.commit(metadata: metadata, checkpoint: IndexCheckpoint(token: token))
            } catch {
                try? writers.close()
                throw error
            }
            try writers.close()
        } catch let error as XapianError {
            throw SearchError.engine(error, outcome: "while rebuilding the index; the index in use is unchanged")
        }
        try layout.writeStub()
        for shardPath in layout.shardPaths { try Self.syncTree(shardPath) }
        try Self.syncTree(path)
        try directory.makeLive(generation)
        keepNew = true
        // An index whose shards were placed at locations before: the stub is live now, the map is no longer.
        if unlink(ShardMap.path(in: directory)) == 0 { StubFile.syncDirectory(containing: directory.stubPath) }
        directory.removeStaleGenerations()
        finishRebuild(token: token, indexed: indexed, unreadable: unreadable, reason: reason, into: &summary)
    }

    /// Rebuilds shards placed at `locations` (remote servers or fixed paths) in place, while searches keep answering
    /// from them: every document of a snapshot is written (replacing its earlier version) with a new generation tag;
    /// then, in the same commit as its new token, each shard sweeps the documents tagged otherwise (rows deleted
    /// since); last the shard map records the new tag and the shards' UUIDs. Interrupted at any point (even
    /// `kill -9`), each shard holds what its committed token says plus documents that replaying history from that
    /// token rewrites or deletes, so the next update is exact; the next rebuild's fresh tag sweeps any leftovers.
    private func rebuildInPlace(at locations: [ShardLocation], reason: IndexRebuildReason,
                                into summary: inout IndexUpdateSummary) throws {
        logger.info("rebuilding the index at \(indexPath) in place on \(locations.count) shards: \(reason)")
        let modelVersion = try store.currentModelVersion()
        let captureGap = try store.captureGap().count
        let generation = ShardMap.newGeneration()
        var layout = ShardLayout(directoryPath: directory.path, locations: locations, expectedUUIDs: nil,
                                 tagTerm: ShardMap.tagPrefix + generation)
        layout.remote = configuration.remote
        let token: HistoryToken?, indexed: Int, unreadable: IndexUpdateSummary, uuids: [String]
        do {
            // The identity check is off: a rebuild is how a shard's database gets (re)recorded in the map.
            let writers = try ShardWriterSet(layout: layout, action: .createOrOpen, noSync: false, schema: schema,
                                             writeHook: documentWriteHook, commitHook: shardCommitHook,
                                             tagTerm: layout.tagTerm, checkIdentity: false, listsDocuments: true)
            do {
                (token, indexed, unreadable) = try indexSnapshot(into: writers, fresh: false)
                // Keys absent from this build are emptied (deleted), since the shards keep their old metadata.
                let metadata = rebuildMetadata(modelVersion: modelVersion, captureGap: captureGap, clearingAbsent: true)
                // The checkpoint between transactions also clears a change id left inside one by an earlier update.
                try writers.commit(metadata: metadata, checkpoint: IndexCheckpoint(token: token),
                                   sweepKeeping: layout.tagTerm)
                uuids = writers.uuids
            } catch {
                try? writers.close()
                throw error
            }
            try writers.close()
        } catch let error as XapianError {
            throw SearchError.engine(error, outcome: "while rebuilding the index in place; the shards keep their last committed token")
        }
        let map = ShardMap(generation: generation,
                           shards: zip(locations, uuids).map { ShardMap.Shard(location: $0.description, uuid: $1) })
        try map.write(in: directory)
        // A local index the shards replace: searches follow the map now; its generations go.
        if unlink(directory.stubPath) == 0 { StubFile.syncDirectory(containing: directory.stubPath) }
        directory.removeStaleGenerations()
        finishRebuild(token: token, indexed: indexed, unreadable: unreadable, reason: reason, into: &summary)
    }

    /// The metadata every shard of a rebuilt index commits with its snapshot's checkpoint. `clearingAbsent` writes
    /// an empty value for a key this build does not set (shards rebuilt in place keep their earlier metadata).
    private func rebuildMetadata(modelVersion: ModelVersionID?, captureGap: Int,
                                 clearingAbsent: Bool) -> [(key: String, value: String)] {
        var metadata: [(key: String, value: String)] = [
            (IndexMetadata.storeIDKey, store.storeID),
            (IndexMetadata.fingerprintKey, schema.fingerprint),
            (IndexMetadata.descriptionKey, configuration.indexDescription),
            (IndexMetadata.formatKey, IndexMetadata.format),
            (IndexMetadata.updatedAtKey, String(Date().timeIntervalSince1970)),
            (IndexMetadata.captureGapKey, String(captureGap)),
        ]
        if let modelVersion {
            metadata.append((IndexMetadata.modelVersionKey, modelVersion.description))
        } else if clearingAbsent {
            metadata.append((IndexMetadata.modelVersionKey, ""))
        }
        return metadata
    }

    /// Makes a rebuild that just went live known: the update's summary, and ``indexUpdates()``. The history
    /// driver saves the position in the store at `token` next.
    private func finishRebuild(token: HistoryToken?, indexed: Int, unreadable: IndexUpdateSummary, reason: IndexRebuildReason,
                               into summary: inout IndexUpdateSummary) {
        summary.rebuilt = true
        summary.reason = reason.description
        summary.indexed += indexed
        summary.noteUnreadable(of: unreadable)
        summary.token = token
        postCommit(token: token, summary: summary)
    }

    /// Indexes every row of one read snapshot into the shards and returns the token the snapshot reflects, with the
    /// number of documents written and their unreadable values. This thread reads rows; the shards' threads build and
    /// write documents. `fresh` adds documents without looking for earlier ones (a new generation); otherwise they
    /// replace them.
    private func indexSnapshot(into writers: ShardWriterSet,
                               fresh: Bool = true) throws -> (HistoryToken?, Int, IndexUpdateSummary) {
        let reader = IndexRecordReader(schema: schema, provider: provider)
        let progress = progressHandler
        let result: (HistoryToken?, Int, IndexUpdateSummary) = try store.read { db in
            let token = try SpotliteStore.currentToken(in: db)
            var total = 0
            for name in schema.entityNames {
                total += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedDatabaseIdentifier)") ?? 0
            }
            progress?(IndexProgress(done: 0, total: total))
            var batcher = ShardBatcher(writers: writers, fresh: fresh)
            var done = 0
            var indexed = 0
            var unreadable = IndexUpdateSummary()
            for name in schema.entityNames {
                let entity = try schema.entity(named: name)
                let rows = try Row.fetchCursor(db, sql: "SELECT \(try reader.selection(of: entity, in: db)) FROM \(name.quotedDatabaseIdentifier)")
                while let row = try rows.next() {
                    done += 1
                    let key: DatabaseValue = row[entity.key]
                    if let attributes = try reader.attributeSet(entity: entity, key: key, row: row, in: db) {
                        unreadable.noteUnreadable(entity.unreadableValues(key: key, in: attributes))
                        batcher.add(ShardRecord(entity: entity, key: key, attributes: attributes),
                                    idTerm: DocumentIdentity.term(entity: name, key: key))
                        indexed += 1
                    }
                    if done % 1000 == 0 {
                        progress?(IndexProgress(done: done, total: total))
                        // A shard that failed discards everything: stop reading rather than feed it.
                        try writers.failIfAnyFailed()
                        if isStopRequested { throw CancellationError() }
                    }
                }
            }
            batcher.flush()
            progress?(IndexProgress(done: done, total: total))
            return (token, indexed, unreadable)
        }
        try writers.wait()
        return result
    }

    /// Makes a generation written without fsync durable, before it becomes live.
    private static func syncTree(_ path: String) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names {
            let fd = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            let result = fsync(fd)
            close(fd)
            guard result == 0 else {
                throw SearchError.cannotWrite(path: path + "/" + name, reason: String(cString: strerror(errno)))
            }
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}

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
            status.rebuildCause = try rebuildReason()
        } catch where !status.unavailableShards.isEmpty {
            // The status already says which shard cannot be read; what it holds is unknown.
        }
        return status
    }
}

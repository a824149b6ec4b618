import Foundation
import GRDB
import SpotliteStore
#if canImport(Glibc)
import Glibc
#endif

extension IndexUpdater {
    /// Indexes a snapshot of every row into a new generation and makes it live. The snapshot and its token come
    /// from one read transaction, so the history after that token is exactly what the snapshot misses. Each shard
    /// of the new generation is written by a thread of its own.
    func rebuildGeneration(reason: IndexRebuildReason, state: inout State) throws {
        if let locations = configuration.shards.locations {
            try rebuildInPlace(at: locations, reason: reason, state: &state)
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
        let settings = currentSettings
        let token: HistoryToken?, indexed: Int, unreadable: IndexUpdateSummary
        do {
            let writers = try ShardWriterSet(layout: layout, action: .createOrOverwrite, noSync: true, schema: schema,
                                             flushThreshold: ShardWriterSet.rebuildFlushThreshold(shards: layout.count),
                                             writeHook: settings.documentWriteHook, commitHook: settings.shardCommitHook)
            do {
                (token, indexed, unreadable) = try indexSnapshot(into: writers)
                let metadata = rebuildMetadata(modelVersion: modelVersion, captureGap: captureGap, clearingAbsent: false)
                try writers.commit(metadata: metadata, checkpoint: IndexCheckpoint(token: token))
            } catch {
                try? writers.close()
                throw error
            }
            try writers.close()
        } catch SearchError.engine(let error, nil) {
            throw SearchError.engine(error, outcome: .rebuildDiscarded)
        }
        try layout.writeStub()
        for shardPath in layout.shardPaths { try Self.syncTree(shardPath) }
        try Self.syncTree(path)
        try directory.makeLive(generation)
        keepNew = true
        // An index whose shards were placed at locations before: the stub is live now, the map is no longer.
        if unlink(ShardMap.path(in: directory)) == 0 { StubFile.syncDirectory(containing: directory.stubPath) }
        directory.removeStaleGenerations()
        finishRebuild(token: token, indexed: indexed, unreadable: unreadable, reason: reason, state: &state)
    }

    /// Rebuilds shards placed at `locations` (remote servers or fixed paths) in place, while searches keep answering
    /// from them: every document of a snapshot is written (replacing its earlier version) with a new generation tag;
    /// then, in the same commit as its new token, each shard sweeps the documents tagged otherwise (rows deleted
    /// since); last the shard map records the new tag and the shards' UUIDs. Interrupted at any point (even
    /// `kill -9`), each shard holds what its committed token says plus documents that replaying history from that
    /// token rewrites or deletes, so the next update is exact; the next rebuild's fresh tag sweeps any leftovers.
    private func rebuildInPlace(at locations: [ShardLocation], reason: IndexRebuildReason,
                                state: inout State) throws {
        logger.info("rebuilding the index at \(indexPath) in place on \(locations.count) shards: \(reason)")
        let modelVersion = try store.currentModelVersion()
        let captureGap = try store.captureGap().count
        let generation = ShardMap.newGeneration()
        var layout = ShardLayout(directoryPath: directory.path, locations: locations, expectedUUIDs: nil,
                                 tagTerm: ShardMap.tagPrefix + generation)
        layout.remote = configuration.remote
        let settings = currentSettings
        let token: HistoryToken?, indexed: Int, unreadable: IndexUpdateSummary, uuids: [String]
        do {
            // The identity check is off: a rebuild is how a shard's database gets (re)recorded in the map.
            let writers = try ShardWriterSet(layout: layout, action: .createOrOpen, noSync: false, schema: schema,
                                             writeHook: settings.documentWriteHook, commitHook: settings.shardCommitHook,
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
        } catch SearchError.engine(let error, nil) {
            throw SearchError.engine(error, outcome: .inPlaceRebuildStopped)
        }
        let map = ShardMap(generation: generation,
                           shards: zip(locations, uuids).map { ShardMap.Shard(location: $0.description, uuid: $1) })
        try map.write(in: directory)
        // A local index the shards replace: searches follow the map now; its generations go.
        if unlink(directory.stubPath) == 0 { StubFile.syncDirectory(containing: directory.stubPath) }
        directory.removeStaleGenerations()
        finishRebuild(token: token, indexed: indexed, unreadable: unreadable, reason: reason, state: &state)
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

    /// Makes a rebuild that just went live known: the update's summary, and `indexUpdates()`. The history
    /// driver saves the position in the store at `token` next.
    private func finishRebuild(token: HistoryToken?, indexed: Int, unreadable: IndexUpdateSummary, reason: IndexRebuildReason,
                               state: inout State) {
        state.summary.rebuilt = true
        state.rebuilds += 1
        state.summary.reason = reason.description
        state.summary.rebuildCause = reason
        state.summary.indexed += indexed
        state.summary.noteUnreadable(of: unreadable)
        state.summary.token = token
        postCommit(token: token, state: &state)
    }

    /// Indexes every row of one read snapshot into the shards and returns the token the snapshot reflects, with the
    /// number of documents written and their unreadable values. This thread reads rows; the shards' threads build and
    /// write documents. `fresh` adds documents without looking for earlier ones (a new generation); otherwise they
    /// replace them.
    private func indexSnapshot(into writers: ShardWriterSet,
                               fresh: Bool = true) throws -> (HistoryToken?, Int, IndexUpdateSummary) {
        let reader = IndexRecordReader(schema: schema, provider: provider)
        let progress = currentSettings.progressHandler
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

import Foundation
import GRDB
import SpotliteStore
#if canImport(Glibc)
import Glibc
#endif

extension SpotliteIndexer {
    /// Why the live index cannot be updated from history, or nil when it can.
    func rebuildReason() throws -> String? {
        guard let generation = directory.liveGeneration else { return "there is no index yet" }
        let metadata: IndexMetadata
        do {
            let database = try XapianDatabase(path: directory.generationPath(generation))
            metadata = try IndexMetadata(reading: database.metadata(forKey:))
            _ = try database.documentCount()
        } catch {
            return "the index could not be read (\(error))"
        }
        if metadata.storeID != store.storeID {
            return "the index was built from another store (store id \(metadata.storeID ?? "none"), this store is \(store.storeID))"
        }
        if metadata.format != IndexMetadata.format {
            return "the index was written by another version of Spotlite (index format \(metadata.format ?? "none"), this version writes \(IndexMetadata.format))"
        }
        let modelVersion = try store.currentModelVersion()?.description
        if metadata.modelVersion != modelVersion {
            return "the store was migrated to another model version (\(metadata.modelVersion ?? "none") is now \(modelVersion ?? "none"))"
        }
        let gap = try store.captureGap()
        if metadata.captureGap != gap.count {
            return gap.reason ?? "history capture was broken in the store (gap \(gap.count))"
        }
        if metadata.fingerprint != schema.fingerprint {
            return "the indexing configuration changed (fields, language or stopwords: fingerprint \(metadata.fingerprint ?? "none") is now \(schema.fingerprint))"
        }
        let current = try store.currentToken()
        if let token = metadata.token, token.rawValue > 0, token > (current ?? HistoryToken(rawValue: 0)) {
            return "the index is ahead of the store (token \(token) > \(current.map { "\($0)" } ?? "none")): the store was re-created"
        }
        return nil
    }

    /// Indexes a snapshot of every row into a new generation and makes it live. The snapshot and its token come
    /// from one read transaction, so the history after that token is exactly what the snapshot misses.
    func rebuildGeneration(reason: String, into summary: inout IndexUpdateSummary) throws {
        logger.info("rebuilding the index at \(indexPath): \(reason)")
        // Read before the snapshot: a migration in between makes the next update rebuild again, never skip one.
        let modelVersion = try store.currentModelVersion()
        let captureGap = try store.captureGap().count
        let generation = directory.nextGeneration()
        let path = directory.generationPath(generation)
        var keepNew = false
        defer { if !keepNew { try? FileManager.default.removeItem(atPath: path) } }
        // A fresh generation nobody reads yet: no fsync per commit, one sync of the whole tree before the switch.
        let token: HistoryToken?, indexed: Int
        do {
            let writer = try XapianWritableDatabase(path: path, action: .createOrOverwrite, noSync: true)
            let builder = try DocumentBuilder(schema: schema, spellingDatabase: writer)
            (token, indexed) = try indexSnapshot(writer: writer, builder: builder)
            try writer.setMetadata(IndexMetadata.tokenText(token), forKey: IndexMetadata.tokenKey)
            try writer.setMetadata(store.storeID, forKey: IndexMetadata.storeIDKey)
            try writer.setMetadata(schema.fingerprint, forKey: IndexMetadata.fingerprintKey)
            try writer.setMetadata(configuration.indexDescription, forKey: IndexMetadata.descriptionKey)
            try writer.setMetadata(IndexMetadata.format, forKey: IndexMetadata.formatKey)
            if let modelVersion { try writer.setMetadata(modelVersion.description, forKey: IndexMetadata.modelVersionKey) }
            try writer.setMetadata(String(captureGap), forKey: IndexMetadata.captureGapKey)
            try writer.setMetadata(String(Date().timeIntervalSince1970), forKey: IndexMetadata.updatedAtKey)
            try writer.commit()
            try writer.close()
        } catch let error as XapianError {
            throw SearchError.engine(type: error.type, message: "\(error.message) while rebuilding the index; the index in use is unchanged")
        }
        try Self.syncTree(path)
        try directory.makeLive(generation)
        keepNew = true
        directory.removeStaleGenerations()
        advancePosition(to: token)
        summary.rebuilt = true
        summary.reason = reason
        summary.indexed += indexed
        summary.token = token
        postCommit(token: token, summary: summary)
    }

    /// Indexes every row of one read snapshot and returns the token the snapshot reflects, with the number of
    /// documents written.
    private func indexSnapshot(writer: XapianWritableDatabase, builder: DocumentBuilder) throws -> (HistoryToken?, Int) {
        let reader = IndexRecordReader(schema: schema, provider: provider)
        let progress = progressHandler
        return try store.read { db in
            let token = try SpotliteStore.currentToken(in: db)
            var total = 0
            for name in schema.entityNames {
                total += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedDatabaseIdentifier)") ?? 0
            }
            progress?(IndexProgress(done: 0, total: total))
            var done = 0
            var indexed = 0
            for name in schema.entityNames {
                let entity = try schema.entity(named: name)
                let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)")
                while let row = try rows.next() {
                    done += 1
                    let key: DatabaseValue = row[entity.key]
                    if let attributes = try reader.attributeSet(entity: entity, key: key, row: row, in: db) {
                        try write(try builder.document(entity: entity, key: key, attributes: attributes), to: writer, fresh: true)
                        indexed += 1
                    }
                    if done % 1000 == 0 {
                        progress?(IndexProgress(done: done, total: total))
                        if isStopRequested { throw IndexingStopped() }
                    }
                }
            }
            progress?(IndexProgress(done: done, total: total))
            return (token, indexed)
        }
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

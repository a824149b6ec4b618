import Foundation
import GRDB
import SpotliteStore

extension SpotliteIndexer {
    /// How many times a batch that Xapian failed to write is replayed before the update gives up.
    static let maximumReplays = 3

    /// Applies the history after the live index's token, replaying from the last committed token when Xapian loses
    /// a batch: a failed write discards every change since the last commit, metadata included, so the token in
    /// the index still describes exactly what the index holds.
    func applyHistory(into summary: inout IndexUpdateSummary) throws {
        guard let layout = directory.liveLayout() else { return }
        var replays = 0
        while true {
            do {
                try applyHistory(to: layout, into: &summary)
                return
            } catch let error as XapianError where error.code.isDamage {
                // Replaying would meet the same damaged table: let the update rebuild.
                throw SearchError.engine(error, outcome: "the index stays at its last committed token")
            } catch let error as XapianError where error.code != .databaseLock {
                replays += 1
                logger.warning("index write failed (\(error)); replaying from the last committed token (attempt \(replays))")
                guard replays <= Self.maximumReplays else {
                    throw SearchError.engine(error, outcome: "the index stays at its last committed token; the next update retries")
                }
            }
        }
    }

    /// A document to bring in line with the store: upsert (read the current row) or delete.
    private struct PendingChange {
        var entity: String
        var key: DatabaseValue
        var delete: Bool
    }

    /// What was read since the last commit; added to the summary only once a commit makes it true.
    private struct Tally {
        var transactions = 0
        var changes = 0
    }

    /// A commit handed to the shards, not yet known to have succeeded, and what it makes true once it has.
    private struct InFlightCommit {
        var checkpoint: IndexCheckpoint
        var tally: Tally
        var indexed: Int
        var deleted: Int
    }

    /// Reads the history after the index's checkpoint a page of at most `batch_size` changes at a time, so that a
    /// transaction of any size is applied in bounded memory: a transaction bigger than a page is read, applied and
    /// committed in pieces, each commit recording how far into the transaction it got (``IndexCheckpoint``). A crash
    /// resumes after the last piece every shard committed; a piece replayed by a shard that had committed it
    /// already is harmless, since each change rewrites a document from the record's current row (or deletes it).
    ///
    /// The shards write and commit a batch on their own threads while this one reads the next batch's history and
    /// rows: a commit is announced (summary, position, ``indexUpdates()``) once every shard has made it, just
    /// before the next batch is handed over, or at the end.
    private func applyHistory(to layout: ShardLayout, into summary: inout IndexUpdateSummary) throws {
        let writer: ShardWriterSet
        do {
            writer = try ShardWriterSet(layout: layout, action: .open, noSync: false, schema: schema,
                                        writeHook: documentWriteHook, commitHook: shardCommitHook,
                                        tagTerm: layout.tagTerm)
        } catch let error as XapianError where error.code == .databaseLock {
            throw SearchError.indexLocked(path: indexPath, holderPID: nil)
        }
        defer { try? writer.close() }

        // Shards commit in parallel, so a crash can leave some ahead: replay from the one furthest behind.
        var committed = writer.committedCheckpoint
        var announcedToken = committed.token
        if summary.token == nil { summary.token = committed.token }
        let batchSize = max(1, configuration.indexer.batchSize)
        // By id term, byte for byte: keys differing only in Unicode normalisation are different rows.
        var pending: [ExactText: PendingChange] = [:]
        var order: [ExactText] = []
        var tally = Tally()
        var inFlight: InFlightCommit?
        var cursor = committed.cursor
        while true {
            let page = try store.fetchHistory(after: cursor, maximumChanges: batchSize)
            for transaction in page.transactions {
                for change in transaction.changes {
                    guard let entity = schema.entities[change.entity] else { continue }
                    if change.changeType == .update, provider == nil, let columns = change.updatedColumns,
                       entity.relevantColumns.isDisjoint(with: columns) {
                        continue
                    }
                    let id = ExactText(DocumentIdentity.term(entity: change.entity, key: change.key))
                    if pending[id] == nil { order.append(id) }
                    pending[id] = PendingChange(entity: change.entity, key: change.key, delete: change.changeType == .delete)
                }
                tally.changes += transaction.changes.count
            }
            // Each transaction completes once: on the page holding its last change.
            tally.transactions += page.transactions.count - (page.lastTransactionIsPartial ? 1 : 0)
            let reached = IndexCheckpoint(page.next)
            let isLast = page.isComplete || page.next == cursor
            cursor = page.next
            // Pages hold at most a batch of changes, so what waits for a commit stays under two batches.
            if pending.count >= batchSize || (isLast && (reached != committed || !pending.isEmpty)) {
                try flush(&pending, order: &order, writer: writer, checkpoint: reached, tally: &tally,
                          inFlight: &inFlight, announcedToken: &announcedToken, into: &summary)
                committed = reached
                // Stopping: what is committed is exact; the rest is applied by the next update.
                if isStopRequested { break }
            }
            if isLast { break }
        }
        try announce(&inFlight, writer: writer, announcedToken: &announcedToken, into: &summary)
    }

    /// Reads the pending records' rows, then (once the commit in flight is announced) hands their documents to the
    /// shards with a commit of `checkpoint`, which becomes the commit in flight.
    private func flush(_ pending: inout [ExactText: PendingChange], order: inout [ExactText], writer: ShardWriterSet,
                       checkpoint: IndexCheckpoint, tally: inout Tally, inFlight: inout InFlightCommit?,
                       announcedToken: inout HistoryToken?, into summary: inout IndexUpdateSummary) throws {
        var changes = order.compactMap { pending[$0] }
        pending.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        let reader = IndexRecordReader(schema: schema, provider: provider)
        let (documents, dependents) = try store.read { db in
            let dependents = try reader.dependents(of: changes.map { IndexRecordID(entity: $0.entity, key: $0.key) }, in: db)
            let upserts = changes.filter { !$0.delete }.map { IndexRecordID(entity: $0.entity, key: $0.key) } + dependents
            return (try reader.attributeSets(for: upserts, in: db), dependents)
        }
        changes += dependents.map { PendingChange(entity: $0.entity, key: $0.key, delete: false) }
        try announce(&inFlight, writer: writer, announcedToken: &announcedToken, into: &summary)
        var indexed = 0, deleted = 0
        var batcher = ShardBatcher(writers: writer, fresh: false)
        var deletions = Array(repeating: [String](), count: writer.writers.count)
        for change in changes {
            let id = DocumentIdentity.term(entity: change.entity, key: change.key)
            if !change.delete, let record = documents[ExactText(id)] {
                batcher.add(ShardRecord(entity: record.entity, key: change.key, attributes: record.attributes), idTerm: id)
                indexed += 1
            } else {
                deletions[ShardLayout.shard(of: id, among: deletions.count)].append(id)
                deleted += 1
            }
        }
        batcher.flush()
        for (shard, terms) in deletions.enumerated() { writer.writers[shard].delete(terms) }
        // Every shard commits the checkpoint, even one this batch did not touch: the index's is the smallest.
        writer.submitCommit(metadata: [(IndexMetadata.updatedAtKey, String(Date().timeIntervalSince1970))],
                            checkpoint: checkpoint)
        inFlight = InFlightCommit(checkpoint: checkpoint, tally: tally, indexed: indexed, deleted: deleted)
        tally = Tally()
    }

    /// Waits until every shard has made the commit in flight (throwing the first shard's failure), then makes it
    /// known: the summary, the indexer's position in the store (whole transactions only: what every shard has
    /// committed), and ``indexUpdates()``.
    private func announce(_ inFlight: inout InFlightCommit?, writer: ShardWriterSet, announcedToken: inout HistoryToken?,
                          into summary: inout IndexUpdateSummary) throws {
        guard let commit = inFlight else { return }
        try writer.wait()
        inFlight = nil
        let token = writer.committedCheckpoint.token
        // Only now is it true. The tally holds the transactions completed before the commit's checkpoint.
        summary.indexed += commit.indexed
        summary.deleted += commit.deleted
        summary.transactions += commit.tally.transactions
        summary.changes += commit.tally.changes
        summary.token = token
        // Pieces of one big transaction do not move the position: no store write for each of them.
        if token != announcedToken { advancePosition(to: token) }
        announcedToken = token
        postCommit(token: token, summary: summary)
    }
}

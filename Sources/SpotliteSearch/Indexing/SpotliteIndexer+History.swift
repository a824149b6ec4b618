import Foundation
import GRDB
import Logging
import SpotliteStore

extension SpotliteIndexer {
    /// How many times a batch that Xapian failed to write is replayed before the update gives up.
    static let maximumReplays = 3

    /// A document to bring in line with the store: its new version, or nil to delete it.
    struct PendingChange {
        var entity: String
        var key: DatabaseValue
        var document: RecordDocument?
        /// Every change since the document was written touched only columns that make no terms.
        var termsUnchanged = false
    }

    /// What was read since the last commit; added to the summary only once a commit makes it true.
    struct Tally {
        var transactions = 0
        var changes = 0
    }

    /// A commit handed to the shards, not yet known to have succeeded, and what it makes true once it has.
    struct InFlightCommit {
        var checkpoint: IndexCheckpoint
        var tally: Tally
        var indexed: Int
        var deleted: Int
        /// The unreadable values of the documents it writes (``IndexUpdateSummary/unreadableValues``).
        var unreadable = IndexUpdateSummary()
    }

    /// The shards open for writing during one round of the history driver, and what waits for a commit.
    ///
    /// Batches gather until they hold `batch_size` records (a page of history holds at most that many changes, so
    /// what waits stays under two batches), then are handed to the shards with a commit of the checkpoint reached.
    /// The shards write and commit on their own threads while the driver reads the next batch's history and rows:
    /// a commit is announced (summary, ``indexUpdates()``) once every shard has made it, just before the next one
    /// is handed over, or at the end. The driver saves the position from ``historyResumePoint()``, which says only
    /// what every shard has committed.
    final class HistoryRound {
        let writer: ShardWriterSet
        /// By id term, byte for byte: keys differing only in Unicode normalisation are different rows.
        var pending: [ExactText: PendingChange] = [:]
        var order: [ExactText] = []
        var tally = Tally()
        var inFlight: InFlightCommit?
        /// The checkpoint of the last batch received, and of the last commit handed to the shards.
        var reached: IndexCheckpoint
        var submitted: IndexCheckpoint

        init(writer: ShardWriterSet) {
            self.writer = writer
            reached = writer.committedCheckpoint
            submitted = reached
        }
    }

    // MARK: - The driver's hooks

    /// Where the index resumes: the checkpoint every shard committed (``IndexCheckpoint``). When the index must
    /// be rebuilt first (``rebuildReason()``), that reason waits in ``pendingRebuildReason`` and reading starts
    /// from nothing: the rebuild's token replaces it.
    func historyResumePoint() throws -> HistoryResumePoint {
        if let round = historyRound { return .after(round.writer.committedCheckpoint.cursor) }
        // Just rebuilt: its checkpoint is known without opening the shards again.
        if let rebuilt = rebuiltCheckpoint { return .after(rebuilt.cursor) }
        if pendingRebuildReason == nil { pendingRebuildReason = try rebuildReason() }
        if pendingRebuildReason != nil { return .after(HistoryCursor(token: nil)) }
        return .after(try openHistoryRound().writer.committedCheckpoint.cursor)
    }

    /// Applies one batch of history: its documents wait with the others until a commit is due.
    func applyHistoryBatch(_ batch: HistoryBatch<RecordDocument>) throws {
        let round = try openHistoryRound()
        let termsUnchanged = recordsWithUnchangedTerms(batch.transactions)
        for upsert in batch.upserts {
            let keepsTerms = !termsUnchanged.isEmpty
                && termsUnchanged.contains(ExactText(DocumentIdentity.term(entity: upsert.record.entity, key: upsert.record.key)))
            round.add(PendingChange(entity: upsert.record.entity, key: upsert.record.key, document: upsert.document,
                                    termsUnchanged: keepsTerms))
        }
        for record in batch.deletions {
            round.add(PendingChange(entity: record.entity, key: record.key, document: nil))
        }
        for transaction in batch.transactions { round.tally.changes += transaction.changes.count }
        // Each transaction completes once: in the batch holding its last change.
        let cut = batch.cursor?.changeID != nil && !batch.transactions.isEmpty
        round.tally.transactions += batch.transactions.count - (cut ? 1 : 0)
        if let cursor = batch.cursor { round.reached = IndexCheckpoint(cursor) }
        guard round.pending.count >= max(1, configuration.indexer.batchSize) else { return }
        try submit(round)
        if isStopRequested {
            // Stopping: what is committed is exact; the rest is applied by the next update.
            try announce(round)
            throw CancellationError()
        }
    }

    /// The records (by id term) whose every change in `transactions` is an update of columns that make no terms
    /// (``IndexSchema/Entity/termColumns``): their documents keep their terms. None when a document provider decides
    /// documents (it may read anything).
    func recordsWithUnchangedTerms(_ transactions: [HistoryTransaction]) -> Set<ExactText> {
        provider == nil ? Self.recordsWithUnchangedTerms(transactions, schema: schema) : []
    }

    /// ``recordsWithUnchangedTerms(_:)`` for documents built from rows by `schema`.
    static func recordsWithUnchangedTerms(_ transactions: [HistoryTransaction], schema: IndexSchema) -> Set<ExactText> {
        // Most batches change words: they need no id terms made for every change.
        guard transactions.contains(where: { $0.changes.contains { keepsTerms($0, schema: schema) } }) else { return [] }
        var unchanged = Set<ExactText>(), changed = Set<ExactText>()
        for transaction in transactions {
            for change in transaction.changes {
                let id = ExactText(DocumentIdentity.term(entity: change.entity, key: change.key))
                if keepsTerms(change, schema: schema) {
                    if !changed.contains(id) { unchanged.insert(id) }
                } else {
                    changed.insert(id)
                    unchanged.remove(id)
                }
            }
        }
        return unchanged
    }

    /// Whether `change` is an update of columns that make no terms (``IndexSchema/Entity/termColumns``), for documents
    /// built from rows by `schema`.
    static func keepsTerms(_ change: HistoryChange, schema: IndexSchema) -> Bool {
        guard change.changeType == .update, let columns = change.updatedColumns,
              let entity = schema.entities[change.entity] else { return false }
        return entity.termColumns.isDisjoint(with: columns)
    }

    /// Commits what waits, and waits for every shard's commit.
    func flushHistory() throws {
        guard let round = historyRound else { return }
        if !round.pending.isEmpty || round.reached != round.submitted { try submit(round) }
        try announce(round)
    }

    /// Rebuilds the index for the driver, and returns the token the new generation reflects.
    func rebuild(because reason: HistoryResynchronizationReason) throws -> HistoryToken? {
        closeHistoryRound()
        let why: IndexRebuildReason
        switch reason {
        case .firstStart:
            why = .noIndex
        case .historyDeleted(let requested, let purgedThrough):
            why = .historyDeleted(requested: requested, purgedThrough: purgedThrough)
        case .requested(let reason):
            why = pendingRebuildReason ?? .requested(reason)
        }
        pendingRebuildReason = nil
        try rebuildGeneration(reason: why, into: &summary)
        rebuiltCheckpoint = IndexCheckpoint(token: summary.token)
        return summary.token
    }

    // MARK: - Writing the shards

    /// The round's shards, opened on first use.
    private func openHistoryRound() throws -> HistoryRound {
        if let round = historyRound { return round }
        guard let layout = directory.liveLayout() else {
            throw SearchError.indexCorrupt(path: indexPath, reason: "the index has no live generation to update")
        }
        let writer: ShardWriterSet
        do {
            writer = try ShardWriterSet(layout: layout, action: .open, noSync: false, schema: schema,
                                        writeHook: documentWriteHook, commitHook: shardCommitHook,
                                        tagTerm: layout.tagTerm)
        } catch let error as XapianError where error.code == .databaseLock {
            throw SearchError.indexLocked(path: indexPath, holderPID: nil)
        }
        let round = HistoryRound(writer: writer)
        rebuiltCheckpoint = nil
        // Shards commit in parallel, so a crash can leave some ahead: replay from the one furthest behind.
        if summary.token == nil { summary.token = round.submitted.token }
        historyRound = round
        return round
    }

    /// Closes the round's shards. A commit not yet made is lost with them, and its changes come again: the
    /// checkpoint in the shards still says exactly what they hold.
    func closeHistoryRound() {
        guard let round = historyRound else { return }
        historyRound = nil
        try? round.writer.close()
    }

    /// Hands what waits to the shards with a commit of the checkpoint reached, once the commit in flight is
    /// announced.
    private func submit(_ round: HistoryRound) throws {
        let changes = round.order.compactMap { round.pending[$0] }
        round.pending.removeAll(keepingCapacity: true)
        round.order.removeAll(keepingCapacity: true)
        try announce(round)
        let writer = round.writer
        var indexed = 0, deleted = 0
        var unreadable = IndexUpdateSummary()
        var batcher = ShardBatcher(writers: writer, fresh: false)
        var deletions = Array(repeating: [String](), count: writer.writers.count)
        for change in changes {
            let id = DocumentIdentity.term(entity: change.entity, key: change.key)
            if let document = change.document {
                unreadable.noteUnreadable(document.entity.unreadableValues(key: change.key, in: document.attributes))
                batcher.add(ShardRecord(entity: document.entity, key: change.key, attributes: document.attributes,
                                        termsUnchanged: change.termsUnchanged), idTerm: id)
                indexed += 1
            } else {
                deletions[ShardLayout.shard(of: id, among: deletions.count)].append(id)
                deleted += 1
            }
        }
        batcher.flush()
        for (shard, terms) in deletions.enumerated() { writer.writers[shard].delete(terms) }
        // Every shard commits the checkpoint, even one this batch did not touch: the index's is the smallest. The
        // format too: an index of an older updatable format now holds this version's records.
        writer.submitCommit(metadata: [(IndexMetadata.updatedAtKey, String(Date().timeIntervalSince1970)),
                                       (IndexMetadata.formatKey, IndexMetadata.format)],
                            checkpoint: round.reached)
        round.inFlight = InFlightCommit(checkpoint: round.reached, tally: round.tally, indexed: indexed, deleted: deleted,
                                        unreadable: unreadable)
        round.submitted = round.reached
        round.tally = Tally()
    }

    /// Waits until every shard has made the commit in flight (throwing the first shard's failure), then makes it
    /// known: the summary and ``indexUpdates()``.
    private func announce(_ round: HistoryRound) throws {
        guard let commit = round.inFlight else { return }
        try round.writer.wait()
        round.inFlight = nil
        let token = round.writer.committedCheckpoint.token
        // Only now is it true. The tally holds the transactions completed before the commit's checkpoint.
        summary.indexed += commit.indexed
        summary.deleted += commit.deleted
        summary.transactions += commit.tally.transactions
        summary.changes += commit.tally.changes
        summary.noteUnreadable(of: commit.unreadable)
        summary.token = token
        postCommit(token: token, summary: summary)
    }
}

extension SpotliteIndexer.HistoryRound {
    func add(_ change: SpotliteIndexer.PendingChange) {
        let id = ExactText(DocumentIdentity.term(entity: change.entity, key: change.key))
        var change = change
        if let earlier = pending[id] {
            // An earlier change not yet written may have changed the terms.
            change.termsUnchanged = change.termsUnchanged && earlier.termsUnchanged
        } else {
            order.append(id)
        }
        pending[id] = change
    }
}

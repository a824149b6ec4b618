import Foundation
import GRDB
import Logging
import SpotliteStore

extension IndexUpdater {
    // MARK: - The driver's hooks

    /// Where the index resumes: the checkpoint every shard committed (``IndexCheckpoint``). When the index must
    /// be rebuilt first (``rebuildReason()``), that reason waits in ``State/pendingRebuildReason`` and reading
    /// starts from nothing: the rebuild's token replaces it.
    func resumePoint() throws -> HistoryResumePoint {
        try state.withLock { state in
            try Self.checkNotRetired(state)
            if let round = state.round { return .after(round.writer.committedCheckpoint.cursor) }
            // Just rebuilt: its checkpoint is known without opening the shards again.
            if let rebuilt = state.rebuiltCheckpoint { return .after(rebuilt.cursor) }
            if state.pendingRebuildReason == nil { state.pendingRebuildReason = try rebuildReason() }
            if state.pendingRebuildReason != nil { return .after(HistoryCursor(token: nil)) }
            return .after(try openRound(&state).writer.committedCheckpoint.cursor)
        }
    }

    /// Applies one batch of history: its documents wait with the others until a commit is due.
    func apply(_ batch: HistoryBatch<RecordDocument>) throws {
        try state.withLock { state in
            try Self.checkNotRetired(state)
            let round = try openRound(&state)
            let termsUnchanged = recordsWithUnchangedTerms(batch.transactions)
            for upsert in batch.upserts {
                let document = upsert.document
                round.add(IndexRound.PendingChange(
                    record: upsert.record, idTerm: document.idTerm, document: document,
                    termsUnchanged: !termsUnchanged.isEmpty && termsUnchanged.contains(ExactText(document.idTerm))))
            }
            for record in batch.deletions {
                round.add(IndexRound.PendingChange(record: record, idTerm: DocumentIdentity.term(of: record),
                                                   document: nil))
            }
            for transaction in batch.transactions { round.tally.changes += transaction.changes.count }
            // Each transaction completes once: in the batch holding its last change.
            let cut = batch.cursor?.changeID != nil && !batch.transactions.isEmpty
            round.tally.transactions += batch.transactions.count - (cut ? 1 : 0)
            if let cursor = batch.cursor { round.reached = IndexCheckpoint(cursor) }
            guard round.pendingCount >= max(1, configuration.indexer.batchSize) else { return }
            try submit(round, state: &state)
            if isStopRequested {
                // Stopping: what is committed is exact; the rest is applied by the next update.
                try announce(round, state: &state)
                throw CancellationError()
            }
        }
    }

    /// Commits what waits, and waits for every shard's commit.
    func flush() throws {
        try state.withLock { state in
            try Self.checkNotRetired(state)
            guard let round = state.round else { return }
            if round.hasUnsubmitted { try submit(round, state: &state) }
            try announce(round, state: &state)
        }
    }

    /// Rebuilds the index for the driver, and returns the token the new generation reflects.
    func rebuild(because reason: HistoryResynchronizationReason) throws -> HistoryToken? {
        try state.withLock { state in
            try Self.checkNotRetired(state)
            state.round?.close()
            state.round = nil
            let why: IndexRebuildReason
            switch reason {
            case .firstStart:
                why = .noIndex
            case .historyDeleted(let requested, let purgedThrough):
                why = .historyDeleted(requested: requested, purgedThrough: purgedThrough)
            case .requested(let reason):
                why = state.pendingRebuildReason ?? .requested(reason)
            }
            state.pendingRebuildReason = nil
            try rebuildGeneration(reason: why, state: &state)
            state.rebuiltCheckpoint = IndexCheckpoint(token: state.summary.token)
            return state.summary.token
        }
    }

    // MARK: - Which documents keep their terms

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

    // MARK: - Writing the shards

    /// The round's shards, opened on first use.
    private func openRound(_ state: inout State) throws -> IndexRound {
        if let round = state.round { return round }
        guard let layout = directory.liveLayout() else {
            throw SearchError.indexCorrupt(path: indexPath, reason: "the index has no live generation to update")
        }
        let settings = currentSettings
        let writer: ShardWriterSet
        do {
            writer = try ShardWriterSet(layout: layout, action: .open, noSync: false, schema: schema,
                                        writeHook: settings.documentWriteHook, commitHook: settings.shardCommitHook,
                                        tagTerm: layout.tagTerm)
        } catch SearchError.engine(let error, nil) where error.code == .databaseLock {
            throw SearchError.indexLocked(path: indexPath, holderPID: nil)
        }
        let round = IndexRound(writer: writer)
        state.rebuiltCheckpoint = nil
        // Shards commit in parallel, so a crash can leave some ahead: replay from the one furthest behind.
        if state.summary.token == nil { state.summary.token = round.submitted.token }
        state.round = round
        return round
    }

    /// Hands what waits to the shards with a commit of the checkpoint reached, once the commit in flight is
    /// announced.
    private func submit(_ round: IndexRound, state: inout State) throws {
        try announce(round, state: &state)
        round.submit()
    }

    /// Waits until every shard has made the commit in flight (throwing the first shard's failure), then makes it
    /// known: the summary and `indexUpdates()`.
    private func announce(_ round: IndexRound, state: inout State) throws {
        guard let done = try round.completeInFlight() else { return }
        let commit = done.commit, committed = done.committed
        // Only now is it true. The tally holds the transactions completed before the commit's checkpoint.
        state.summary.indexed += commit.indexed
        state.summary.deleted += commit.deleted
        state.summary.transactions += commit.tally.transactions
        state.summary.changes += commit.tally.changes
        state.summary.noteUnreadable(of: commit.unreadable)
        state.summary.token = committed.token
        postCommit(token: committed.token, state: &state)
    }
}

import Foundation
import GRDB
import SpotliteStore

extension SpotliteIndexer {
    /// How many times a batch that Xapian failed to write is replayed before the update gives up.
    static let maximumReplays = 3
    /// History transactions read at a time.
    static let transactionsPerPage = 100

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
        let committed = writer.committedToken
        var lastComplete = committed
        if summary.token == nil { summary.token = committed }
        let batchSize = max(1, configuration.indexer.batchSize)
        // Transactions are read a page at a time, so that big transactions (an import commits thousands of rows in
        // one) never pile up in memory; commits follow the batch size, not the pages.
        let pageSize = min(batchSize, Self.transactionsPerPage)
        // By id term, byte for byte: keys differing only in Unicode normalisation are different rows.
        var pending: [ExactText: PendingChange] = [:]
        var order: [ExactText] = []
        var tally = Tally()
        while true {
            let transactions = try store.fetchHistory(HistoryRequest.after(lastComplete).limit(pageSize))
            if transactions.isEmpty { break }
            for transaction in transactions {
                for (position, change) in transaction.changes.enumerated() {
                    guard let entity = schema.entities[change.entity] else { continue }
                    if change.changeType == .update, provider == nil, let columns = change.updatedColumns,
                       entity.relevantColumns.isDisjoint(with: columns) {
                        continue
                    }
                    let id = ExactText(DocumentIdentity.term(entity: change.entity, key: change.key))
                    if pending[id] == nil { order.append(id) }
                    pending[id] = PendingChange(entity: change.entity, key: change.key, delete: change.changeType == .delete)
                    if pending.count >= batchSize, position < transaction.changes.count - 1 {
                        // A huge transaction is committed in pieces under the token before it; replaying a partly
                        // applied transaction is harmless since documents are rebuilt from the current rows.
                        try flush(&pending, order: &order, writer: writer, token: lastComplete,
                                  tally: &tally, into: &summary)
                        if isStopRequested { return }
                    }
                }
                tally.transactions += 1
                tally.changes += transaction.changes.count
                lastComplete = transaction.token
                if pending.count >= batchSize {
                    try flush(&pending, order: &order, writer: writer, token: lastComplete,
                              tally: &tally, into: &summary)
                    // Stopping: what is committed is exact; the rest is applied by the next update.
                    if isStopRequested { return }
                }
            }
        }
        if lastComplete != committed || !pending.isEmpty || tally.transactions > 0 {
            try flush(&pending, order: &order, writer: writer, token: lastComplete, tally: &tally,
                      into: &summary)
        }
    }

    /// Writes the pending documents and commits them with `token` in the metadata, then advances the indexer's
    /// position in the store to it.
    private func flush(_ pending: inout [ExactText: PendingChange], order: inout [ExactText], writer: ShardWriterSet,
                       token: HistoryToken?, tally: inout Tally,
                       into summary: inout IndexUpdateSummary) throws {
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
        // Every shard commits the token, even one this batch did not touch: the index's token is the smallest.
        try writer.commit(metadata: [(IndexMetadata.tokenKey, IndexMetadata.tokenText(token)),
                                     (IndexMetadata.updatedAtKey, String(Date().timeIntervalSince1970))],
                          token: token)
        // Only now is it true. The tally holds the transactions completed since the last commit: those up to `token`.
        summary.indexed += indexed
        summary.deleted += deleted
        summary.transactions += tally.transactions
        summary.changes += tally.changes
        tally = Tally()
        summary.token = token
        advancePosition(to: token)
        postCommit(token: token, summary: summary)
    }
}

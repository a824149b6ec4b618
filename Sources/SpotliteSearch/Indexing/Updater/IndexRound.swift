import Foundation
import GRDB
import SpotliteStore

/// One round of the history driver, as the index sees it: the shards open for writing (the round owns their
/// ``ShardWriterSet`` from the first batch to its end) and what waits for a commit.
///
/// Batches gather until they hold `batch_size` records (a page of history holds at most that many changes, so what
/// waits stays under two batches), then are handed to the shards with a commit of the checkpoint reached. The
/// shards write and commit on their own threads while the driver reads the next batch's history and rows: a commit
/// is made known (``IndexUpdater``'s summary, `indexUpdates()`) once every shard has made it, just before the next
/// one is handed over, or at the end. The driver saves the position from the shards' committed checkpoint, which
/// says only what every shard has committed.
///
/// Not thread-safe: its ``IndexUpdater`` holds it under its lock.
final class IndexRound {
    /// A document to bring in line with the store: its new version, or nil to delete it.
    struct PendingChange {
        var record: RecordID
        /// The document's id term (``DocumentIdentity``): the record's identity in the index.
        var idTerm: String
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

    let writer: ShardWriterSet
    /// By id term, byte for byte: keys differing only in Unicode normalisation are different rows.
    private var pending: [ExactText: PendingChange] = [:]
    private var order: [ExactText] = []
    var tally = Tally()
    private var inFlight: InFlightCommit?
    /// The checkpoint of the last batch received, and of the last commit handed to the shards.
    var reached: IndexCheckpoint
    private(set) var submitted: IndexCheckpoint

    init(writer: ShardWriterSet) {
        self.writer = writer
        reached = writer.committedCheckpoint
        submitted = reached
    }

    /// How many documents wait for the next commit.
    var pendingCount: Int { pending.count }

    /// Whether anything was received since the last commit was handed over: documents, or history that moved the
    /// checkpoint without touching one.
    var hasUnsubmitted: Bool { !pending.isEmpty || reached != submitted }

    /// Adds a change to what waits; a later change of the same document replaces an earlier one.
    func add(_ change: PendingChange) {
        let id = ExactText(change.idTerm)
        var change = change
        if let earlier = pending[id] {
            // An earlier change not yet written may have changed the terms.
            change.termsUnchanged = change.termsUnchanged && earlier.termsUnchanged
        } else {
            order.append(id)
        }
        pending[id] = change
    }

    /// Waits until every shard has made the commit in flight (throwing the first shard's failure) and returns it,
    /// with the checkpoint every shard has committed now; nil when none was in flight.
    func completeInFlight() throws -> (commit: InFlightCommit, committed: IndexCheckpoint)? {
        guard let commit = inFlight else { return nil }
        try writer.wait()
        inFlight = nil
        return (commit, writer.committedCheckpoint)
    }

    /// Hands what waits to the shards with a commit of the checkpoint reached. The commit in flight must be
    /// complete (``completeInFlight()``).
    func submit() {
        precondition(inFlight == nil, "a commit is handed over while the previous one is in flight")
        let changes = order.compactMap { pending[$0] }
        pending.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        var indexed = 0, deleted = 0
        var unreadable = IndexUpdateSummary()
        var batcher = ShardBatcher(writers: writer, fresh: false)
        var deletions = Array(repeating: [String](), count: writer.writers.count)
        for change in changes {
            if let document = change.document {
                unreadable.noteUnreadable(document.entity.unreadableValues(key: change.record.key, in: document.attributes))
                batcher.add(ShardRecord(entity: document.entity, key: change.record.key, attributes: document.attributes,
                                        termsUnchanged: change.termsUnchanged), idTerm: change.idTerm)
                indexed += 1
            } else {
                deletions[ShardLayout.shard(of: change.idTerm, among: deletions.count)].append(change.idTerm)
                deleted += 1
            }
        }
        batcher.flush()
        for (shard, terms) in deletions.enumerated() { writer.writers[shard].delete(terms) }
        // Every shard commits the checkpoint, even one this batch did not touch: the index's is the smallest. The
        // format too: an index of an older updatable format now holds this version's records.
        writer.submitCommit(metadata: [(IndexMetadata.updatedAtKey, String(Date().timeIntervalSince1970)),
                                       (IndexMetadata.formatKey, IndexMetadata.format)],
                            checkpoint: reached)
        inFlight = InFlightCommit(checkpoint: reached, tally: tally, indexed: indexed, deleted: deleted,
                                  unreadable: unreadable)
        submitted = reached
        tally = Tally()
    }

    /// Closes the shards. A commit not yet made is lost with them, and its changes come again: the checkpoint in
    /// the shards still says exactly what they hold.
    func close() {
        try? writer.close()
    }
}

import SpotliteStore

/// Whether an index can follow its store's history or must be rebuilt, decided from what was read of both: no
/// input or output here, so every rule is tested on plain values (`IndexRebuildPolicyTests`).
struct IndexRebuildPolicy: Sendable {
    /// What the store says now.
    struct Store: Sendable {
        var storeID: String
        var modelVersion: String?
        var captureGap: Int
        /// How capture broke, when the store knows.
        var captureGapDetail: String?
        var currentToken: HistoryToken?
    }

    /// The fingerprint the configuration asks for (``IndexSchema/fingerprint``).
    var fingerprint: String
    /// The formats this version updates in place (``IndexMetadata/updatableFormats``).
    var updatableFormats: Set<String> = IndexMetadata.updatableFormats
    /// The format this version writes.
    var currentFormat: String = IndexMetadata.format

    /// Why shards whose metadata is `shards` (in shard order) cannot follow `store`'s history, or nil when they can.
    /// The backlog is weighed separately (``backlogReason(_:documents:share:)``): it reads history.
    func reason(shards: [IndexMetadata], store: Store) -> IndexRebuildReason? {
        guard let first = shards.first else { return .noIndex }
        for (number, metadata) in shards.enumerated() where metadata.shard != "\(number)/\(shards.count)" {
            return .misplacedShard(number: number, found: metadata.shard, expected: "\(number)/\(shards.count)")
        }
        for other in shards.dropFirst() where other.storeID != first.storeID || other.fingerprint != first.fingerprint
            || other.modelVersion != first.modelVersion {
            return .mixedShards
        }
        if first.storeID != store.storeID {
            return .anotherStore(index: first.storeID, store: store.storeID)
        }
        // Shards may differ here: a crash between shard commits can leave one marked with the newer format.
        for shard in shards where !updatableFormats.contains(shard.format ?? "") {
            return .anotherFormat(index: shard.format, current: currentFormat)
        }
        if first.modelVersion != store.modelVersion {
            return .modelVersionChanged(index: first.modelVersion, store: store.modelVersion)
        }
        if first.captureGap != store.captureGap {
            return .captureGap(count: store.captureGap, detail: store.captureGapDetail)
        }
        if first.fingerprint != fingerprint {
            return .configurationChanged(index: first.fingerprint, current: fingerprint)
        }
        // Shards commit one after the other: the furthest one says whether the store was re-created behind them.
        if let furthest = shards.compactMap(\.token).max(), furthest.rawValue > 0,
           furthest > (store.currentToken ?? HistoryToken(rawValue: 0)) {
            return .aheadOfStore(index: furthest, store: store.currentToken)
        }
        return nil
    }

    /// The inserts, updates and deletes that can change documents, and what applying them weighs in documents.
    struct PendingWeight: Sendable, Hashable {
        var changes = 0
        /// Of ``changes``, the updates of stored, number or date columns alone.
        var valuesOnly = 0
        var inserts = 0
        var deletes = 0

        /// What applying them costs, in documents written: an update of values alone keeps its document's terms.
        var weight: Double { Double(changes - valuesOnly) + Double(valuesOnly) * IndexRebuildPolicy.valuesOnlyUpdateWeight }

        /// About how many documents a rebuild would write after these changes, from `documents` now.
        func documentsAfter(_ documents: Int) -> Int { max(0, documents + inserts - deletes) }
    }

    /// Pending changes past this share of the index's documents are applied by a rebuild instead. Applying an
    /// UPDATE of every row costs less than a rebuild, and breaks even somewhat above one change per document (the
    /// benchmark's large-update figure, docs/benchmarks.md); the line is at 100%, a margin for noisier machines and
    /// for inserts (a fresh document costs a rebuild's share, without the rebuild's compact index). Changes, not
    /// distinct records, are counted, so only a backlog that touches rows more than once, or grows the index past
    /// twice its size, rebuilds. Deletes count as much as updates, and the line is drawn at the documents the
    /// rebuild would write: removing a document takes its words out of the spelling data and its postings out of
    /// every term's list, which costs about what an update does.
    static let rebuildShare = 1.0
    /// Below this many documents a rebuild saves too little to be worth a second code path.
    static let minimumDocuments = 1000
    /// What an update of stored, number or date columns alone weighs against one that changes terms: its document's
    /// terms are kept (``ShardWriter/Context/writeRest(_:)``), which measured about a quarter of a text update's
    /// time (the benchmark's incremental figure, docs/benchmarks.md).
    static let valuesOnlyUpdateWeight = 0.25

    /// Whether `count` pending changes could outweigh a rebuild of `documents` at all, before reading them: however
    /// they split, they weigh at most their count, and the rebuild writes at least the documents less all of them.
    static func mayOutweigh(count: Int, documents: Int, share: Double) -> Bool {
        documents >= minimumDocuments && Double(count) > share * Double(max(0, documents - count))
    }

    /// Whether the changes read so far settle the question: their weight is past the line even if every one of the
    /// `unread` changes were an insert (the most a rebuild could then write).
    static func isSettled(_ pending: PendingWeight, documents: Int, unread: Int, share: Double) -> Bool {
        pending.weight > share * Double(pending.documentsAfter(documents) + max(0, unread))
    }

    /// Why applying `pending` would cost more than rebuilding an index of `documents`, or nil.
    static func backlogReason(_ pending: PendingWeight, documents: Int, share: Double) -> IndexRebuildReason? {
        let written = pending.documentsAfter(documents)
        guard pending.weight > share * Double(written) else { return nil }
        return .largeBacklog(IndexBacklog(changes: pending.changes, valuesOnly: pending.valuesOnly,
                                          deletes: pending.deletes, rebuildDocuments: written,
                                          indexDocuments: documents, share: share))
    }
}

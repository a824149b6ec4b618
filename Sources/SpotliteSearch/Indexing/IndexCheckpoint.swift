import SpotliteStore

/// How far into history a shard (or the whole index) has committed: every transaction through ``token``, and, while a
/// transaction too big for one batch is applied in pieces, its changes through ``changeID``.
///
/// Committed in each shard's metadata with the documents, so that a `kill -9` in the middle of a million-row
/// transaction resumes after the last piece every shard committed instead of starting the transaction over. Only
/// ``token`` ever becomes the indexer's position in the store: cleanup may delete a transaction only once it is
/// wholly indexed.
struct IndexCheckpoint: Sendable, Hashable, Comparable {
    /// Every transaction through this token is indexed; nil: none.
    var token: HistoryToken?
    /// In the transaction after ``token``, the changes through this id are indexed; nil: none of them.
    var changeID: Int64?

    init(token: HistoryToken?, changeID: Int64? = nil) {
        self.token = token.flatMap { $0.rawValue > 0 ? $0 : nil }
        self.changeID = changeID
    }

    init(_ cursor: HistoryCursor) {
        self.init(token: cursor.token, changeID: cursor.changeID)
    }

    /// Where reading history resumes.
    var cursor: HistoryCursor { HistoryCursor(token: token, changeID: changeID) }

    /// Transactions in token order; within the transaction after the token, changes in id order (a checkpoint
    /// inside it is past one that only reached its token).
    static func < (lhs: IndexCheckpoint, rhs: IndexCheckpoint) -> Bool {
        let left = lhs.token?.rawValue ?? 0, right = rhs.token?.rawValue ?? 0
        if left != right { return left < right }
        return (lhs.changeID ?? 0) < (rhs.changeID ?? 0)
    }
}

import GRDB

/// A page of history read together with the store's current token, from one snapshot.
struct HistoryPage: Sendable {
    var transactions: [HistoryTransaction]
    /// Whether the page holds every match of its request up to ``currentToken`` (it was not cut by the limit).
    var isComplete: Bool
    var currentToken: HistoryToken?

    /// How far a reader that handled every transaction of the page has consumed history: through the snapshot's
    /// current token when the page is complete (later matches would have a greater token), else through the
    /// page's last transaction. Nil when nothing was ever recorded.
    var consumedThrough: HistoryToken? {
        let last = transactions.last?.token
        guard isComplete, let currentToken else { return last }
        return Swift.max(currentToken, last ?? currentToken)
    }
}

extension SpotliteStore {
    /// Seals pending foreign changes, then reads the request's transactions and the current token in one read
    /// transaction, so that nothing committed in between can be skipped over.
    func fetchPage(_ request: HistoryRequest) throws -> HistoryPage {
        let query = try HistoryQuery(request, rangesKnownKept: rangesKeptSinceOpen)
        try sealIfNeeded()
        return try databasePool.read { db in
            let transactions = try query.transactions(db)
            return HistoryPage(
                transactions: transactions, isComplete: request.limit.map { transactions.count < $0 } ?? true,
                currentToken: try HistoryRecorder.currentToken(db))
        }
    }

    /// `fetchPage(_:)` through GRDB's async APIs: the work runs on the pool's own connection queues (a write may
    /// wait for another process's lock up to the busy timeout), never on the caller's thread.
    func fetchPageAsynchronously(_ request: HistoryRequest) async throws -> HistoryPage {
        let query = try HistoryQuery(request, rangesKnownKept: rangesKeptSinceOpen)
        try await sealIfNeededAsynchronously()
        return try await databasePool.read { db in
            let transactions = try query.transactions(db)
            return HistoryPage(
                transactions: transactions, isComplete: request.limit.map { transactions.count < $0 } ?? true,
                currentToken: try HistoryRecorder.currentToken(db))
        }
    }
}

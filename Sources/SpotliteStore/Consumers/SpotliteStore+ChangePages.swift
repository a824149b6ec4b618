import Foundation
import GRDB

extension SpotliteStore {
    /// Reads the history after `cursor` that `filter` selects (its authors, context names, entities and change types;
    /// its start and limit are ignored), at most `maximumChanges` changes at a time: whole transactions while they
    /// fit, then a transaction too big for the rest of the page in pieces, by change id. Everything comes from one
    /// snapshot, with the store's current token, so nothing committed meanwhile is skipped.
    ///
    /// This is the paging of ``HistoryConsumerDriver``, for consumers that run their own loop: apply the page, save
    /// ``HistoryChangePage/position`` when there is one, continue from ``HistoryChangePage/next`` until
    /// ``HistoryChangePage/isComplete``.
    ///
    /// - Throws: ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` when history after `cursor` was deleted;
    ///   ``SpotliteStoreError/invalidLimit(_:)`` for `maximumChanges` below 1.
    public func fetchHistory(after cursor: HistoryCursor, matching filter: HistoryRequest = HistoryRequest(),
                             maximumChanges: Int) throws -> HistoryChangePage {
        guard maximumChanges >= 1 else { throw SpotliteStoreError.invalidLimit(maximumChanges) }
        var request = filter
        request.start = cursor.token.map { .afterToken($0) } ?? .beginning
        request.limit = nil
        let query = try HistoryQuery(request, rangesKnownKept: rangesKeptSinceOpen)
        try sealIfNeeded()
        return try databasePool.read { db in
            try query.changePage(after: cursor, maximumChanges: maximumChanges, in: db)
        }
    }
}

extension HistoryQuery {
    func changePage(after cursor: HistoryCursor, maximumChanges: Int, in db: Database) throws -> HistoryChangePage {
        try checkNotExpired(db)
        let currentToken = try HistoryRecorder.currentToken(db)
        let (sql, arguments) = try changesSQL(select: Self.changeColumns, in: db)
        var changes: [HistoryChange] = []
        var after = ""
        if let changeID = cursor.changeID,
           let cutToken = try HistoryToken.fetchOne(db, sql: "SELECT token FROM spotlite_change WHERE id = ?", arguments: [changeID]) {
            // The rest of the transaction that the previous page cut after this change, then what follows it: two
            // range scans, so that reading a huge transaction page by page costs the same at its end as at its
            // start (one condition excluding its beginning would walk past it on every page).
            changes = try decodeChanges(
                db, sql: sql + " AND t.token = ? AND c.id > ? ORDER BY c.id LIMIT \(maximumChanges + 1)",
                arguments: arguments + [cutToken, changeID])
            after = " AND t.token > \(cutToken.rawValue)"
        }
        if changes.count <= maximumChanges {
            changes += try decodeChanges(
                db, sql: sql + after + " ORDER BY \(Self.changeOrder) LIMIT \(maximumChanges + 1 - changes.count)",
                arguments: arguments)
        }
        let isCut = changes.count > maximumChanges
        let cutsTransaction = isCut && changes[maximumChanges].token == changes[maximumChanges - 1].token
        if isCut { changes.removeLast(changes.count - maximumChanges) }

        let transactions = try headers(of: changes, in: db)
        var next = cursor
        var position: HistoryToken?
        if let last = transactions.last {
            let completeThrough = cutsTransaction ? transactions.dropLast().last?.token : last.token
            if cutsTransaction {
                next = HistoryCursor(token: completeThrough ?? cursor.token, changeID: last.changes.last?.changeID)
            } else {
                next = HistoryCursor(token: last.token)
            }
            position = completeThrough
        }
        if !isCut {
            // Complete: every later transaction up to the snapshot's current token did not match the request.
            let candidates = [currentToken, transactions.last?.token, cursor.token].compactMap { $0 }
            next = HistoryCursor(token: candidates.max())
            position = next.token
        }
        if position == cursor.token { position = nil }
        var passedOver = 0
        if let position {
            let total = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM spotlite_transaction WHERE token > ? AND token <= ?",
                arguments: [cursor.token ?? HistoryToken(0), position]) ?? 0
            passedOver = max(0, total - transactions.filter { $0.token <= position }.count)
        }
        return HistoryChangePage(
            transactions: transactions, lastTransactionIsPartial: cutsTransaction, isComplete: !isCut, next: next,
            position: position, passedOver: passedOver)
    }

    /// The transactions of `changes`, each with its changes of the list, in token order.
    private func headers(of changes: [HistoryChange], in db: Database) throws -> [HistoryTransaction] {
        var tokens: [HistoryToken] = []
        var byToken: [HistoryToken: [HistoryChange]] = [:]
        for change in changes {
            if byToken[change.token] == nil { tokens.append(change.token) }
            byToken[change.token, default: []].append(change)
        }
        var transactions: [HistoryTransaction] = []
        for chunk in stride(from: 0, to: tokens.count, by: 500) {
            let slice = Array(tokens[chunk..<min(chunk + 500, tokens.count)])
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT token, timestamp, author, context, pid FROM spotlite_transaction WHERE token IN (\(AuthorFilter.placeholders(slice.count))) ORDER BY token",
                arguments: StatementArguments(slice))
            for row in rows {
                let token: HistoryToken = row["token"]
                transactions.append(HistoryTransaction(
                    token: token, timestamp: Date(timeIntervalSince1970: row["timestamp"]), author: row["author"],
                    contextName: row["context"], processID: (row["pid"] as Int64?).map(Int32.init),
                    changes: byToken[token] ?? []))
            }
        }
        return transactions
    }
}

import Foundation
import GRDB

/// Deletes history inside the caller's write transaction and remembers how far it went, so that consumers
/// behind it are told their position expired instead of silently skipping changes.
enum HistoryPurger {
    /// Returns the number of transactions that match (and, unless `dryRun`, were deleted).
    static func delete(_ request: HistoryDeleteRequest, dryRun: Bool, in db: Database) throws -> Int {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        switch request.bound {
        case .beforeToken(let token):
            conditions.append("token < ?")
            arguments.append(token)
        case .throughToken(let token):
            conditions.append("token <= ?")
            arguments.append(token)
        case .beforeDate(let date):
            conditions.append("timestamp < ?")
            arguments.append(date.timeIntervalSince1970)
        case .throughCommonPosition(let authors):
            guard let watermark = try PositionTable.commonPosition(of: authors, in: db) else { return 0 }
            conditions.append("token <= ?")
            arguments.append(watermark)
        }
        if let authors = request.authors, let (sql, names) = AuthorFilter.including(authors).sqlCondition(column: "author") {
            conditions.append(sql)
            arguments += names
        }
        let whereClause = " WHERE " + conditions.joined(separator: " AND ")
        let selection = StatementArguments(arguments)

        guard let summary = try Row.fetchOne(
            db, sql: "SELECT count(*) AS count, max(token) AS newest, max(timestamp) AS latest FROM spotlite_transaction" + whereClause,
            arguments: selection)
        else { return 0 }
        let count: Int = summary["count"]
        guard count > 0, !dryRun else { return count }

        let highestChangeID = try ChangeIDKeeper.highestID(db)
        // The changes lie in the transactions' ranges of change ids: a scan of that span only (see ChangeRanges).
        try db.execute(
            sql: """
                DELETE FROM spotlite_change
                WHERE id BETWEEN (SELECT min(first_change) FROM spotlite_transaction\(whereClause))
                             AND (SELECT max(last_change) FROM spotlite_transaction\(whereClause))
                  AND token IN (SELECT token FROM spotlite_transaction\(whereClause))
                """,
            arguments: StatementArguments(arguments + arguments + arguments))
        try db.execute(sql: "DELETE FROM spotlite_transaction" + whereClause, arguments: selection)
        try ChangeIDKeeper.keep(above: highestChangeID, in: db)

        let newest: HistoryToken = summary["newest"]
        let latest: Double = summary["latest"]
        if newest > (try HistoryRecorder.purgedThrough(db) ?? HistoryToken(0)) {
            try HistorySchema.setMeta(db, HistorySchema.MetaKey.purgedThrough, newest)
        }
        let purgedTimestamp = try HistorySchema.meta(db, HistorySchema.MetaKey.purgedThroughTimestamp, as: Double.self)
        if latest > (purgedTimestamp ?? -.infinity) {
            try HistorySchema.setMeta(db, HistorySchema.MetaKey.purgedThroughTimestamp, latest)
        }
        return count
    }
}

import Foundation
import GRDB

/// Reads history for a ``HistoryRequest`` inside one read transaction, so the expiry check and the rows
/// come from the same snapshot.
struct HistoryQuery: Sendable {
    let request: HistoryRequest
    /// The store's transactions were known to keep their change ranges when its handle was opened
    /// (``SpotliteStore/rangesKeptSinceOpen``): the schema is not read again for each request.
    let rangesKnownKept: Bool

    init(_ request: HistoryRequest, rangesKnownKept: Bool = false) throws(SpotliteStoreError) {
        if let limit = request.limit, limit < 1 { throw .invalidLimit(limit) }
        self.request = request
        self.rangesKnownKept = rangesKnownKept
    }

    /// Whether the transactions keep their ranges, in `db`'s snapshot: read from the schema only when the handle
    /// did not know it at opening (a read-only handle on an older store, which a writer may upgrade meanwhile).
    func rangesKept(_ db: Database) throws -> Bool {
        try rangesKnownKept || ChangeRanges.areKept(db)
    }

    func transactions(_ db: Database) throws -> [HistoryTransaction] {
        try checkNotExpired(db)
        let kept = try rangesKept(db)
        var (conditions, arguments) = transactionConditions()
        if request.hasChangeFilters {
            let (changeSQL, changeArguments) = changeConditions()
            conditions.append(Self.anyChange(matching: changeSQL, rangesKept: kept))
            arguments += changeArguments
        }
        var sql = "SELECT t.token, t.timestamp, t.author, t.context, t.pid FROM spotlite_transaction t"
        sql += Self.whereClause(conditions) + " ORDER BY t.token"
        if let limit = request.limit { sql += " LIMIT \(limit)" }
        var transactions = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
            HistoryTransaction(
                token: row["token"], timestamp: Date(timeIntervalSince1970: row["timestamp"]),
                author: row["author"], contextName: row["context"], processID: (row["pid"] as Int64?).map(Int32.init),
                changes: [])
        }
        guard let first = transactions.first?.token, let last = transactions.last?.token else { return [] }

        let (changeSQL, changeArguments) = changeConditions()
        var changesByToken: [HistoryToken: [HistoryChange]] = [:]
        let select = "SELECT \(Self.changeColumns) FROM \(ChangeRanges.join(rangesKept: kept))"
        let order = " ORDER BY \(Self.changeOrder)"
        if request.authors == .all && request.contextNames == nil {
            // Every transaction in the range was selected: one range scan is cheaper than lists of tokens.
            let sql = select + Self.whereClause(["t.token BETWEEN ? AND ?", changeSQL]) + order
            for change in try changes(db, sql: sql, arguments: [first, last] + changeArguments) {
                changesByToken[change.token, default: []].append(change)
            }
        } else {
            for chunk in stride(from: 0, to: transactions.count, by: 500) {
                let tokens = transactions[chunk..<min(chunk + 500, transactions.count)].map(\.token)
                let tokenList = "t.token IN (\(AuthorFilter.placeholders(tokens.count)))"
                let sql = select + Self.whereClause([tokenList, changeSQL]) + order
                for change in try changes(db, sql: sql, arguments: tokens + changeArguments) {
                    changesByToken[change.token, default: []].append(change)
                }
            }
        }
        for index in transactions.indices {
            transactions[index].changes = changesByToken[transactions[index].token] ?? []
        }
        return transactions
    }

    /// The columns of `spotlite_change c` that ``decodeChanges(_:sql:arguments:)`` reads.
    static let changeColumns = "c.id, c.token, c.entity, c.\"key\", c.type, c.columns, c.tombstone"

    /// History order, for SQL over ``ChangeRanges/join(rangesKept:)``: by transaction, then by change. Named by the
    /// transaction's token, the order of the loop over transactions, so SQLite sorts nothing.
    static let changeOrder = "t.token, c.id"

    /// A condition on transaction `t`: it has a change matching `changeSQL` (conditions on `c`).
    static func anyChange(matching changeSQL: String, rangesKept: Bool) -> String {
        "EXISTS (SELECT 1 FROM spotlite_change c WHERE \(ChangeRanges.changeOfTransaction(rangesKept: rangesKept)) AND \(changeSQL))"
    }

    func changes(_ db: Database) throws -> [HistoryChange] {
        try checkNotExpired(db)
        let (sql, arguments) = try changesSQL(select: Self.changeColumns, in: db)
        var limited = sql + " ORDER BY \(Self.changeOrder)"
        if let limit = request.limit { limited += " LIMIT \(limit)" }
        return try decodeChanges(db, sql: limited, arguments: arguments)
    }

    func transactionCount(_ db: Database) throws -> Int {
        try checkNotExpired(db)
        var (conditions, arguments) = transactionConditions()
        if request.hasChangeFilters {
            let (changeSQL, changeArguments) = changeConditions()
            conditions.append(Self.anyChange(matching: changeSQL, rangesKept: try rangesKept(db)))
            arguments += changeArguments
        }
        let count = try Int.fetchOne(
            db, sql: "SELECT count(*) FROM spotlite_transaction t" + Self.whereClause(conditions),
            arguments: StatementArguments(arguments)) ?? 0
        return request.limit.map { min($0, count) } ?? count
    }

    func changeCount(_ db: Database) throws -> Int {
        try checkNotExpired(db)
        let (sql, arguments) = try changesSQL(select: "count(*)", in: db)
        let count = try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
        return request.limit.map { min($0, count) } ?? count
    }

    // MARK: - Expiry

    func checkNotExpired(_ db: Database) throws {
        switch request.start {
        case .oldestRetained:
            return
        case .beginning:
            if let purged = try HistoryRecorder.purgedThrough(db) {
                throw SpotliteStoreError.expiredToken(requested: nil, purgedThrough: purged)
            }
        case .afterToken(let token):
            if let purged = try HistoryRecorder.purgedThrough(db), token < purged {
                throw SpotliteStoreError.expiredToken(requested: token, purgedThrough: purged)
            }
            let current = try HistoryRecorder.currentToken(db)
            if token > (current ?? HistoryToken(0)) {
                throw SpotliteStoreError.unknownToken(requested: token, current: current)
            }
        case .afterDate(let date):
            if let purged = try HistorySchema.meta(db, HistorySchema.MetaKey.purgedThroughTimestamp, as: Double.self),
                date.timeIntervalSince1970 < purged
            {
                throw SpotliteStoreError.expiredDate(requested: date, purgedThrough: Date(timeIntervalSince1970: purged))
            }
        }
    }

    // MARK: - SQL

    private func transactionConditions() -> ([String], [(any DatabaseValueConvertible)?]) {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        switch request.start {
        case .beginning, .oldestRetained:
            break
        case .afterToken(let token):
            conditions.append("t.token > ?")
            arguments.append(token)
        case .afterDate(let date):
            conditions.append("t.timestamp > ?")
            arguments.append(date.timeIntervalSince1970)
        }
        if let (sql, authors) = request.authors.sqlCondition(column: "t.author") {
            conditions.append(sql)
            arguments += authors
        }
        if let contexts = request.contextNames,
            let (sql, names) = AuthorFilter.including(contexts).sqlCondition(column: "t.context")
        {
            conditions.append(sql)
            arguments += names
        }
        return (conditions, arguments)
    }

    /// Conditions on `c` (spotlite_change); "1" when there are none. Written `+c.column`, checks of the changes a
    /// transaction's range (or the token index) selects: SQLite would otherwise build an automatic index on them
    /// for every request and sort the result.
    private func changeConditions() -> (String, [(any DatabaseValueConvertible)?]) {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let entities = request.entities {
            conditions.append(entities.isEmpty ? "0" : "+c.entity IN (\(AuthorFilter.placeholders(entities.count)))")
            arguments += entities.sorted()
        }
        if let types = request.changeTypes {
            // Integers from our own enum: safe to inline.
            let list = types.map { String($0.rawValue) }.sorted().joined(separator: ",")
            conditions.append(types.isEmpty ? "0" : "+c.type IN (\(list))")
        }
        return (conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), arguments)
    }

    /// `SELECT select` over the changes the request selects, each with its transaction `t`; the caller may append
    /// more conditions (after `AND`) and the order.
    func changesSQL(select: String, in db: Database) throws -> (String, StatementArguments) {
        var (conditions, arguments) = transactionConditions()
        let (changeSQL, changeArguments) = changeConditions()
        conditions.append(changeSQL)
        arguments += changeArguments
        let sql = "SELECT \(select) FROM \(ChangeRanges.join(rangesKept: try rangesKept(db)))"
            + Self.whereClause(conditions)
        return (sql, StatementArguments(arguments))
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    // MARK: - Decoding

    private func changes(
        _ db: Database, sql: String, arguments: [(any DatabaseValueConvertible)?]
    ) throws -> [HistoryChange] {
        try decodeChanges(db, sql: sql, arguments: StatementArguments(arguments))
    }

    func decodeChanges(_ db: Database, sql: String, arguments: StatementArguments) throws -> [HistoryChange] {
        let decoder = JSONDecoder()
        // Columns by position (the SELECT lists id, token, entity, key, type, columns, tombstone in this order):
        // a lookup by name lowercases the name for every row and column, a large share of a long listing's time.
        var changes: [HistoryChange] = []
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() {
            let typeValue: Int = row[4]
            guard let changeType = HistoryChangeType(rawValue: typeValue) else {
                throw DatabaseError(message: "spotlite_change row \(row[0] as Int64) has unknown type \(typeValue)")
            }
            let columns = try (row[5] as String?).map { try decoder.decode([String].self, from: Data($0.utf8)) }
            let tombstone = try (row[6] as String?).map { try Self.decodeTombstone($0, db) }
            changes.append(HistoryChange(
                changeID: row[0], token: row[1], entity: row[2], key: row[3],
                changeType: changeType, updatedColumns: columns, tombstone: tombstone))
        }
        return changes
    }

    /// Lets SQLite parse the JSON so integers stay integers and reals stay reals.
    private static func decodeTombstone(_ json: String, _ db: Database) throws -> [String: DatabaseValue] {
        let statement = try db.cachedStatement(sql: "SELECT \"key\", value FROM json_each(?)")
        var values: [String: DatabaseValue] = [:]
        for row in try Row.fetchAll(statement, arguments: [json]) {
            values[row["key"]] = row["value"] as DatabaseValue
        }
        return values
    }
}

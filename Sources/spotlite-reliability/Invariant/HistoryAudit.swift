import GRDB
import Spotlite

/// Checks Spotlite's history tables in one read transaction:
///
/// - the database passes SQLite's `quick_check`;
/// - every change belongs to an existing transaction (no unsealed or orphan change) and lies in that transaction's
///   range of change ids (where requests look for it), and no transaction is empty;
/// - change order is token order (tokens follow commit order) and the purge mark is a token that was issued;
/// - no attributed transaction was left open (`spotlite_current.token` is NULL between writes);
/// - with `ledger`, replaying the history of `Item` gives each live row exactly `rev` updates since its insert, and
///   every key the history says is present has a row and vice versa: no commit without its history, no history
///   without its commit. Valid only while no history has been cleaned.
enum HistoryAudit {
    struct Result {
        var problems: [String] = []
        var changes = 0
        var transactions = 0
    }

    static func audit(_ db: Database, ledger: Bool) throws -> Result {
        var result = Result()
        func problem(_ text: String) { result.problems.append(text) }

        let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
        if check != ["ok"] { problem("SQLite quick_check: \(check.prefix(3).joined(separator: "; "))") }

        result.changes = try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_change WHERE \(ChangeIDKeeper.excludingKeepers)") ?? 0
        result.transactions = try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_transaction") ?? 0
        let unsealed = try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_change WHERE token IS NULL") ?? 0
        if unsealed > 0 { problem("\(unsealed) changes have no transaction (foreign writes left unsealed)") }
        let orphans = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM spotlite_change c WHERE c.token IS NOT NULL AND c.\(ChangeIDKeeper.excludingKeepers)
              AND NOT EXISTS (SELECT 1 FROM spotlite_transaction t WHERE t.token = c.token)
            """) ?? 0
        if orphans > 0 { problem("\(orphans) changes belong to no transaction") }
        let rangesKept = try ChangeRanges.areKept(db)
        if rangesKept {
            let outside = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM spotlite_change c JOIN spotlite_transaction t ON t.token = c.token
                WHERE c.id NOT BETWEEN t.first_change AND t.last_change OR t.first_change IS NULL OR t.last_change IS NULL
                """) ?? 0
            if outside > 0 { problem("\(outside) changes lie outside their transaction's range of change ids (no request sees them)") }
        }
        let empty = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM spotlite_transaction t
            WHERE NOT EXISTS (SELECT 1 FROM spotlite_change c WHERE \(ChangeRanges.changeOfTransaction(rangesKept: rangesKept)))
            """) ?? 0
        if empty > 0 { problem("\(empty) transactions have no changes") }
        let outOfOrder = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM (SELECT token, lag(token) OVER (ORDER BY id) AS previous FROM spotlite_change
                                  WHERE token IS NOT NULL AND \(ChangeIDKeeper.excludingKeepers))
            WHERE token < previous
            """) ?? 0
        if outOfOrder > 0 { problem("\(outOfOrder) changes have a smaller token than a change committed before them") }
        let purged = try Int64.fetchOne(db, sql: "SELECT value FROM spotlite_meta WHERE \"key\" = 'purged_through'")
        let newest = try Int64.fetchOne(db, sql: "SELECT max(token) FROM spotlite_transaction")
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'spotlite_transaction'")
        if let purged, purged > max(newest ?? 0, sequence ?? 0) {
            problem("history is marked purged through token \(purged), beyond any token issued (\(sequence ?? 0))")
        }
        if let open = try Int64.fetchOne(db, sql: "SELECT token FROM spotlite_current WHERE id = 1") {
            problem("spotlite_current still points at token \(open): later foreign writes would be misattributed")
        }
        if ledger, try db.tableExists(ItemModel.entity), try db.columns(in: ItemModel.entity).contains(where: { $0.name == "rev" }) {
            result.problems += try replayLedger(db)
        }
        return result
    }

    /// Replays the history of `Item` key by key and compares it with the rows.
    private static func replayLedger(_ db: Database) throws -> [String] {
        struct State {
            var exists = false
            var updates = 0
        }
        var problems: [String] = []
        var states: [String: State] = [:]
        let changes = try Row.fetchCursor(db, sql: "SELECT \"key\", type, id FROM spotlite_change WHERE entity = ? ORDER BY id",
                                          arguments: [ItemModel.entity])
        while let change = try changes.next() {
            let key = InvariantChecker.keyText(change["key"] as DatabaseValue)
            let type = HistoryChangeType(rawValue: change["type"])
            let id: Int64 = change["id"]
            var state = states[key] ?? State()
            switch type {
            case .insert:
                if state.exists, problems.count < 20 { problems.append("change \(id) inserts \(key), which history says exists") }
                state = State(exists: true, updates: 0)
            case .update:
                if !state.exists, problems.count < 20 { problems.append("change \(id) updates \(key), which history says does not exist") }
                state.updates += 1
            case .delete:
                if !state.exists, problems.count < 20 { problems.append("change \(id) deletes \(key), which history says does not exist") }
                state = State()
            case nil:
                if problems.count < 20 { problems.append("change \(id) has an unknown type") }
            }
            states[key] = state
        }
        var present = Set<String>()
        let rows = try Row.fetchCursor(db, sql: "SELECT id, rev FROM \(ItemModel.entity)")
        while let row = try rows.next() {
            let key = InvariantChecker.keyText(row["id"] as DatabaseValue)
            present.insert(key)
            let rev: Int = row["rev"] ?? -1
            guard let state = states[key], state.exists else {
                if problems.count < 40 { problems.append("row \(key) (rev \(rev)) has no history: a commit without its history") }
                continue
            }
            if state.updates != rev, problems.count < 40 {
                problems.append("row \(key) has rev \(rev) but history records \(state.updates) updates since its insert")
            }
        }
        for (key, state) in states where state.exists && !present.contains(key) {
            if problems.count < 40 { problems.append("history says \(key) exists but it has no row: history without its commit") }
        }
        return problems
    }
}

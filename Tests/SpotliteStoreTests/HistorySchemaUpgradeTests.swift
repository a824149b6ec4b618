import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Stores of history schema 2 (the change table indexed on `token`) are upgraded to schema 3 (transactions keep
/// the range of their change ids) when first opened for writing, without losing or reordering anything.
@Suite("Upgrading history schema 2 stores", .blockingWork)
struct HistorySchemaUpgradeTests {
    /// Every history request's answer (or error) on `store`, to compare: fetches and counts after
    /// every token and a few dates, with each filter, limits, and paging through changes at several page sizes.
    static func answers(_ store: SpotliteStore) throws -> [Answer] {
        var requests: [(String, HistoryRequest)] = [("allRetained", .allRetained), ("beginning", .after(nil as HistoryToken?))]
        let current = try store.read(HistoryRecorder.currentToken)?.rawValue ?? 0
        for token in 0...(current + 1) {
            requests.append(("after \(token)", .after(HistoryToken(token))))
        }
        for seconds in [999.5, 1001.5, 1003.5, 1005.5, 1_700_000_000] {
            requests.append(("after date \(seconds)", .after(Date(timeIntervalSince1970: seconds))))
        }
        let filters: [(String, (HistoryRequest) -> HistoryRequest)] = [
            ("", { $0 }),
            (" authors app", { $0.including(authors: ["app"]) }),
            (" authors nil+importer", { $0.including(authors: [nil, "importer"]) }),
            (" not app", { $0.excluding(authors: ["app"]) }),
            (" context main", { $0.contexts(["main"]) }),
            (" context nil", { $0.contexts([nil]) }),
            (" entity Item", { $0.entities(["Item"]) }),
            (" entity none", { $0.entities([]) }),
            (" deletes", { $0.changeTypes([.delete]) }),
            (" updates of Package", { $0.changeTypes([.update]).entities(["Package"]) }),
            (" limit 1", { $0.limit(1) }),
            (" limit 2 of Item", { $0.limit(2).entities(["Item"]) }),
        ]
        var lines: [Answer] = []
        func record(_ name: String, _ body: () throws -> AnyHashable) {
            do { lines.append(Answer(request: name, value: try body())) } catch {
                lines.append(Answer(request: name, value: "error \(error)"))
            }
        }
        for (name, base) in requests {
            for (filterName, filter) in filters {
                let request = filter(base)
                let label = name + filterName
                record("fetchHistory \(label)") { try store.fetchHistory(request) }
                record("fetchChanges \(label)") { try store.fetchChanges(request) }
                record("countHistory \(label)") { try store.countHistory(request) }
                record("countChanges \(label)") { try store.countChanges(request) }
            }
        }
        for (filterName, filter) in filters.prefix(10) {
            for size in [1, 2, 3, 100] {
                for start in [nil, HistoryToken(1), HistoryToken(3)] {
                    record("pages of \(size) after \(start.map(String.init(describing:)) ?? "nil")\(filterName)") {
                        var cursor = HistoryCursor(token: start)
                        var pages: [HistoryChangePage] = []
                        while pages.count < 50 {
                            let page = try store.fetchHistory(after: cursor, matching: filter(HistoryRequest()), maximumChanges: size)
                            pages.append(page)
                            if page.isComplete { break }
                            cursor = page.next
                        }
                        return pages
                    }
                }
            }
        }
        return lines
    }

    /// A request and its answer (a value, or the error's description).
    struct Answer: Hashable {
        var request: String
        var value: AnyHashable
    }

    /// History as schema 2's own SQL reads it (the `sqlite3` shell, through the index on `token`).
    static func shellDump(_ path: String) throws -> String {
        try SQLiteShell.run(path, """
            SELECT t.token, t.timestamp, t.author, t.context, t.pid, c.id, c.entity, c."key", c.type, c.columns, c.tombstone
            FROM spotlite_change c JOIN spotlite_transaction t ON t.token = c.token ORDER BY c.token, c.id;
            SELECT 'pending', id, entity, "key", type, columns FROM spotlite_change WHERE token IS NULL ORDER BY id;
            SELECT 'keeper', id FROM spotlite_change WHERE token = 0;
            """)
    }

    static func readOnly(_ path: String) throws -> SpotliteStore {
        try SpotliteStore(path: path, model: Fixtures.model, options: StoreOptions(readOnly: true))
    }

    @Test func everyRequestAnswersTheSameAfterTheUpgrade() throws {
        let directory = try TemporaryDirectory()
        let path = try HistorySchema2Fixture.make(in: directory)
        let shellBefore = try Self.shellDump(path)
        let before = try Self.answers(try Self.readOnly(path))
        #expect(before.count > 800)
        let retained = try #require(before.first { $0.request == "fetchHistory allRetained" }?.value as? [HistoryTransaction])
        #expect(retained.map(\.token.rawValue) == [2, 3, 4, 5, 6])

        let store = try SpotliteStore(path: path, model: Fixtures.model)
        #expect(try store.captureGap().count == 0, "the triggers stayed in place through the upgrade")
        #expect(try store.read(HistorySchema.storedVersion) == 3)
        #expect(store.storeID == "version-2-store")
        #expect(try Self.shellDump(path) == shellBefore, "the same rows, ids and tokens; pending changes and the keeper kept")
        let after = try Self.answers(try Self.readOnly(path))
        for (old, new) in zip(before, after) where old != new {
            Issue.record("\(old.request): before the upgrade \(old.value)\nafter: \(new.value)")
        }
        #expect(after.count == before.count)
        #expect(try Self.readOnly(path).hasPendingChanges())
    }

    @Test func theUpgradeReplacesTheTokenIndexAndGivesEveryTransactionItsRange() throws {
        let directory = try TemporaryDirectory()
        let path = try HistorySchema2Fixture.make(in: directory)
        _ = try SpotliteStore(path: path, model: Fixtures.model)
        let indexes = try SQLiteShell.run(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'spotlite_change';")
        #expect(indexes.trimmingCharacters(in: .whitespacesAndNewlines) == "spotlite_change_pending")
        // Each transaction's range is exactly the ids of its changes.
        let ranges = try SQLiteShell.run(path, """
            SELECT t.token, t.first_change, t.last_change, min(c.id), max(c.id)
            FROM spotlite_transaction t JOIN spotlite_change c ON c.token = t.token GROUP BY t.token ORDER BY t.token;
            """)
        let rows = ranges.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.map { $0[0] } == ["2", "3", "4", "5", "6"])
        for row in rows { #expect(row[1] == row[3] && row[2] == row[4], "\(row)") }
    }

    @Test func afterTheUpgradePendingAndNewChangesAreRecordedWithLaterIDs() throws {
        let directory = try TemporaryDirectory()
        let path = try HistorySchema2Fixture.make(in: directory)
        let keeper = try #require(Int64(try SQLiteShell.run(path, "SELECT id FROM spotlite_change WHERE token = 0;")
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let store = try SpotliteStore(path: path, model: Fixtures.model)
        let retained = try store.fetchHistory(.allRetained)
        // The foreign changes that waited through the upgrade are sealed into one transaction, after the others.
        let sealed = try #require(retained.last)
        #expect(sealed.author == nil)
        #expect(sealed.changes.map(\.key) == ["pending".databaseValue, 2.databaseValue])
        #expect(sealed.changes.allSatisfy { $0.changeID > keeper })
        #expect(sealed.token > HistoryToken(7), "tokens continue above the transaction another program deleted")

        try store.write(author: "app", context: "main") { db in
            try db.execute(sql: "INSERT INTO Package (name) VALUES ('after-upgrade'); UPDATE Item SET label = 'bag?' WHERE id = 2")
        }
        try SQLiteShell.run(path, "INSERT INTO Package (name) VALUES ('shell-after'); DELETE FROM Item WHERE id = 2;")
        let newer = try store.fetchHistory(.after(sealed.token))
        #expect(newer.map(\.author) == ["app", nil])
        #expect(newer[0].changes.map(\.changeType) == [.insert, .update])
        #expect(newer[1].changes.map(\.changeType) == [.insert, .delete])
        #expect(newer[1].changes[1].tombstone == ["label": "bag?".databaseValue, "weight": 3.0.databaseValue, "payload": .null])
        let ids = (retained + newer).flatMap { $0.changes.map(\.changeID) }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)
        #expect(try store.historyStatistics().changes == ids.count)

        // Deleting all history still keeps ids above every one given.
        try store.deleteHistory(.through(try #require(try store.currentToken())))
        #expect(try store.fetchHistory(.allRetained).isEmpty)
        try SQLiteShell.run(path, "INSERT INTO Package (name) VALUES ('last');")
        #expect(try store.fetchHistory(.allRetained).flatMap { $0.changes.map(\.changeID) } == [try #require(ids.max()) + 1])
    }

    @Test func reopeningAnUpgradedStoreChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = try HistorySchema2Fixture.make(in: directory)
        _ = try SpotliteStore(path: path, model: Fixtures.model)
        let dump = try SQLiteShell.run(path, ".dump")
        _ = try SpotliteStore(path: path, model: Fixtures.model)
        #expect(try SQLiteShell.run(path, ".dump") == dump)
    }

    @Test func aReadOnlyHandleReadsASchema2StoreWithoutUpgradingIt() throws {
        let directory = try TemporaryDirectory()
        let path = try HistorySchema2Fixture.make(in: directory)
        let reader = try Self.readOnly(path)
        #expect(try reader.fetchHistory(.allRetained).map(\.token.rawValue) == [2, 3, 4, 5, 6])
        #expect(try SQLiteShell.run(path, "SELECT value FROM spotlite_meta WHERE \"key\" = 'history_schema_version';")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "2")
        // A writer upgrades the store under the open reader, which then reads by ranges.
        let writer = try SpotliteStore(path: path, model: Fixtures.model)
        try writer.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('new')") }
        let tokens = try reader.fetchHistory(.allRetained).map(\.token.rawValue)
        #expect(tokens.count == 7 && tokens.prefix(5) == [2, 3, 4, 5, 6])
        #expect(try reader.fetchChanges(.after(HistoryToken(6))).map(\.key) == ["pending".databaseValue, 2.databaseValue, "new".databaseValue])
        // Only the handle that opened the store before the upgrade reads the schema again on each request.
        #expect(!reader.rangesKeptSinceOpen)
        #expect(writer.rangesKeptSinceOpen)
        let laterReader = try Self.readOnly(path)
        #expect(laterReader.rangesKeptSinceOpen)
        #expect(try laterReader.fetchHistory(.allRetained) == (try reader.fetchHistory(.allRetained)))
    }

    /// The upgrade is one SQLite transaction: when it fails, the store stays as schema 2 left it.
    @Test func aFailedUpgradeLeavesTheStoreAsItWas() throws {
        let directory = try TemporaryDirectory()
        let path = try HistorySchema2Fixture.make(in: directory)
        // A column of that name makes adding Spotlite's own fail halfway through the upgrade.
        try SQLiteShell.run(path, "ALTER TABLE spotlite_transaction ADD COLUMN last_change TEXT;")
        let dump = try SQLiteShell.run(path, ".dump")
        #expect(throws: DatabaseError.self) { try SpotliteStore(path: path, model: Fixtures.model) }
        #expect(try SQLiteShell.run(path, ".dump") == dump)
    }

    /// A program still running schema 2's code after the upgrade (a Spotlite process started before it) cannot
    /// create transactions without a range, which no request would see: its writes fail and are rolled back.
    @Test func aWriterOfSchema2IsStoppedAfterTheUpgrade() throws {
        let directory = try TemporaryDirectory()
        let path = try HistorySchema2Fixture.make(in: directory)
        let store = try SpotliteStore(path: path, model: Fixtures.model)
        let before = try store.fetchHistory(.allRetained)
        let failure = #expect(throws: SQLiteShell.Failure.self) {
            try SQLiteShell.run(path, HistorySchema2Fixture.write(
                author: "old-process", context: nil, timestamp: 2000, "INSERT INTO Package (name) VALUES ('lost?');"))
        }
        #expect(failure?.standardError.contains("history schema 3") == true, "\(String(describing: failure))")
        #expect(try SQLiteShell.run(path, "SELECT count(*) FROM Package WHERE name = 'lost?';")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(try store.fetchHistory(.allRetained) == before)
    }
}

/// Requests read a transaction's changes by the range of their ids, and find pending changes and keepers through
/// the partial index: none scans the change table.
@Suite("Reading history by ranges of change ids", .blockingWork)
struct ChangeRangePlanTests {
    static func plan(_ db: Database, _ sql: String, _ arguments: StatementArguments = []) throws -> String {
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            .joined(separator: "; ")
    }

    @Test func requestsUseRangesAndThePartialIndex() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.store.read { db in
            for request in [HistoryRequest.after(HistoryToken(1)), .allRetained.entities(["Package"]), .allRetained.including(authors: ["app"])] {
                let (sql, arguments) = try HistoryQuery(request).changesSQL(select: HistoryQuery.changeColumns, in: db)
                let plan = try Self.plan(db, sql + " ORDER BY \(HistoryQuery.changeOrder)", arguments)
                #expect(plan.contains("SEARCH c USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"), "\(plan)")
                #expect(!plan.contains("SCAN c") && !plan.contains("TEMP B-TREE"), "\(plan)")
            }
            for sql in ["SELECT count(*), min(ts), min(id), max(id) FROM spotlite_change WHERE token IS NULL",
                        "SELECT EXISTS (SELECT 1 FROM spotlite_change WHERE token IS NULL)",
                        "DELETE FROM spotlite_change WHERE \(ChangeIDKeeper.isKeeper)"] {
                let plan = try Self.plan(db, sql)
                #expect(plan.contains("spotlite_change_pending"), "\(sql): \(plan)")
            }
        }
    }

    @Test func aTransactionsChangesAreExactlyItsRange() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('s1'); INSERT INTO Item (id) VALUES (7);")
        try test.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET summary = 'x'; INSERT INTO Item (id) VALUES (8)")
        }
        // A write that records nothing leaves no transaction.
        try test.store.write(author: "app") { db in try db.execute(sql: "UPDATE Package SET summary = summary") }
        let history = try test.allHistory()
        #expect(history.map { $0.changes.count } == [1, 2, 3])
        let ranges = try test.store.read { db in
            try Row.fetchAll(db, sql: "SELECT first_change, last_change FROM spotlite_transaction ORDER BY token")
                .map { [$0[0] as Int64, $0[1] as Int64] }
        }
        #expect(ranges == history.map { [$0.changes.first!.changeID, $0.changes.last!.changeID] })
        #expect(ranges.flatMap { $0 } == ranges.flatMap { $0 }.sorted())
    }
}

import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("History capture", .blockingWork)
struct CaptureTests {
    @Test func insertIsRecordedWithAttribution() throws {
        let test = try TestStore()
        let before = Date()
        try test.insertPackage("zsh", summary: "shell", author: "app", context: "batchContext")

        let history = try test.allHistory()
        let transaction = try #require(history.first)
        #expect(history.count == 1)
        #expect(transaction.author == "app")
        #expect(transaction.contextName == "batchContext")
        #expect(transaction.processID == getpid())
        #expect(abs(transaction.timestamp.timeIntervalSince(before)) < 60)
        #expect(transaction.changes.count == 1)
        let change = try #require(transaction.changes.first)
        #expect(change.entity == "Package")
        #expect(change.key == "zsh".databaseValue)
        #expect(change.changeType == .insert)
        #expect(change.updatedColumns == nil)
        #expect(change.tombstone == nil)
        #expect(change.token == transaction.token)
        #expect(try test.store.currentToken() == transaction.token)
    }

    @Test func writeContextCarriesAuthorAndName() throws {
        let test = try TestStore()
        try test.store.write(in: WriteContext(transactionAuthor: "sync", name: "importContext")) { db in
            try db.execute(sql: "INSERT INTO Item (id, label) VALUES (7, 'seven')")
        }
        let transaction = try #require(try test.allHistory().first)
        #expect(transaction.author == "sync")
        #expect(transaction.contextName == "importContext")
        #expect(transaction.changes.first?.key.isInteger == true)
        #expect(transaction.changes.first?.key == 7.databaseValue)
    }

    @Test func updateRecordsOnlyTheChangedColumns() throws {
        let test = try TestStore()
        try test.insertPackage("zsh", summary: "shell", section: "shells", size: 10)
        try test.store.write(author: "app") { db in
            // section is assigned its current value: not a change.
            try db.execute(sql: "UPDATE Package SET summary = 'Z shell', section = 'shells', size = 11 WHERE name = 'zsh'")
        }
        let update = try #require(try test.allHistory().last?.changes.first)
        #expect(update.changeType == .update)
        #expect(update.key == "zsh".databaseValue)
        #expect(update.updatedColumns == ["summary", "size"])
        #expect(update.tombstone == nil)
    }

    @Test func updateFromNullAndToNullIsAChange() throws {
        let test = try TestStore()
        try test.insertPackage("zsh", section: nil)
        try test.store.write(author: "app") { db in try db.execute(sql: "UPDATE Package SET section = 'shells'") }
        try test.store.write(author: "app") { db in try db.execute(sql: "UPDATE Package SET section = NULL") }
        let updates = try test.allHistory().dropFirst().map { $0.changes.first?.updatedColumns }
        #expect(updates == [["section"], ["section"]])
    }

    @Test func updateThatChangesNothingIsNotRecorded() throws {
        let test = try TestStore()
        try test.insertPackage("zsh", summary: "shell", size: 10)
        let token = try test.store.currentToken()
        let changed = try test.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET summary = 'shell', size = 10 WHERE name = 'zsh'")
            return db.changesCount
        }
        #expect(changed == 1, "SQLite did run the update")
        #expect(try test.store.currentToken() == token)
        #expect(try test.allHistory().count == 1)
    }

    @Test func deleteRecordsATombstoneOfPreservedColumns() throws {
        let test = try TestStore()
        try test.insertPackage("zsh", summary: "shell", section: "shells", size: 10)
        try test.store.write(author: "cleaner") { db in try db.execute(sql: "DELETE FROM Package WHERE name = 'zsh'") }
        let transaction = try #require(try test.allHistory().last)
        let delete = try #require(transaction.changes.first)
        #expect(transaction.author == "cleaner")
        #expect(delete.changeType == .delete)
        #expect(delete.key == "zsh".databaseValue)
        #expect(delete.tombstone == ["name": "zsh".databaseValue, "summary": "shell".databaseValue])
        #expect(delete.updatedColumns == nil)
    }

    @Test func tombstoneKeepsValueTypes() throws {
        let test = try TestStore()
        try test.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Item (id, label, weight, payload) VALUES (1, '42', 3.0, 5)")
            try db.execute(sql: "INSERT INTO Item (id, label, weight, payload) VALUES (2, NULL, 2.5, x'00ff')")
        }
        try test.store.write(author: "app") { db in try db.execute(sql: "DELETE FROM Item") }
        let deletes = try #require(try test.allHistory().last?.changes)
        #expect(deletes.count == 2)
        let first = try #require(deletes.first?.tombstone)
        #expect(first["label"]?.storage == "42".databaseValue.storage)
        #expect(first["weight"]?.isReal == true)
        #expect(first["weight"] == 3.0.databaseValue)
        #expect(first["payload"]?.isInteger == true)
        let second = try #require(deletes.last?.tombstone)
        #expect(second["label"] == .null)
        // JSON cannot hold blobs: a blob in an untyped column is kept as hex rather than failing the delete.
        #expect(second["payload"] == "00FF".databaseValue)
    }

    @Test func deleteOfEntityWithoutPreservedColumnsHasAnEmptyTombstone() throws {
        let entity = EntityDescription(name: "Tag", key: "name", attributes: [AttributeDescription(name: "color")])
        let test = try TestStore(model: StoreModel(entities: [entity]))
        try test.store.write(author: "app") { db in try db.execute(sql: "INSERT INTO Tag VALUES ('red', '#f00')") }
        try test.store.write(author: "app") { db in try db.execute(sql: "DELETE FROM Tag") }
        let delete = try #require(try test.allHistory().last?.changes.first)
        #expect(delete.changeType == .delete)
        #expect(delete.tombstone == [:])
    }

    @Test func keyChangeIsADeletePlusAnInsert() throws {
        let test = try TestStore()
        try test.insertPackage("zsh", summary: "shell")
        try test.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET name = 'zsh5', size = 5 WHERE name = 'zsh'")
        }
        let transaction = try #require(try test.allHistory().last)
        #expect(transaction.changes.map(\.changeType) == [.delete, .insert])
        #expect(transaction.changes.map(\.key) == ["zsh".databaseValue, "zsh5".databaseValue])
        #expect(transaction.changes.first?.tombstone == ["name": "zsh".databaseValue, "summary": "shell".databaseValue])
        #expect(transaction.changes.last?.tombstone == nil)
    }

    @Test func upsertIsRecordedAsInsertThenUpdate() throws {
        let test = try TestStore()
        let upsert = """
            INSERT INTO Package (name, summary) VALUES ('zsh', ?)
            ON CONFLICT(name) DO UPDATE SET summary = excluded.summary
            """
        try test.store.write(author: "importer") { db in try db.execute(sql: upsert, arguments: ["one"]) }
        try test.store.write(author: "importer") { db in try db.execute(sql: upsert, arguments: ["two"]) }
        let changes = try test.allHistory().flatMap(\.changes)
        #expect(changes.map(\.changeType) == [.insert, .update])
        #expect(changes.last?.updatedColumns == ["summary"])
    }

    /// SQLite runs no delete trigger for the row REPLACE removes (recursive triggers are off by default, and
    /// other programs would not turn them on): the new row is recorded as an insert of an existing key.
    @Test func insertOrReplaceOfAnExistingRowIsRecordedAsAnInsert() throws {
        let test = try TestStore()
        try test.insertPackage("zsh", summary: "old")
        try test.store.write(author: "importer") { db in
            try db.execute(sql: "INSERT OR REPLACE INTO Package (name, summary) VALUES ('zsh', 'new')")
        }
        let changes = try test.allHistory().flatMap(\.changes)
        #expect(changes.map(\.changeType) == [.insert, .insert])
        #expect(changes.map(\.key) == ["zsh".databaseValue, "zsh".databaseValue])
    }

    @Test func batchSQLOfTenThousandRowsIsOneTransaction() throws {
        let test = try TestStore()
        let rows = 10_000
        try test.store.write(author: "importer", context: "batch") { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO Package (name, summary, size) SELECT 'pkg' || i, 'summary ' || i, i FROM n
                    """,
                arguments: [rows])
        }
        try test.store.write(author: "importer", context: "batch") { db in
            try db.execute(sql: "UPDATE Package SET size = size + 1 WHERE size % 2 = 0")
        }
        try test.store.write(author: "importer", context: "batch") { db in
            try db.execute(sql: "DELETE FROM Package")
        }

        let history = try test.allHistory()
        #expect(history.count == 3)
        let (inserts, updates, deletes) = (history[0].changes, history[1].changes, history[2].changes)
        #expect(inserts.count == rows)
        #expect(inserts.allSatisfy { $0.changeType == .insert && $0.token == history[0].token })
        #expect(Set(inserts.map(\.key)).count == rows)
        #expect(inserts.map(\.changeID) == inserts.map(\.changeID).sorted())
        #expect(updates.count == rows / 2)
        #expect(updates.allSatisfy { $0.changeType == .update && $0.updatedColumns == ["size"] })
        #expect(deletes.count == rows)
        #expect(deletes.allSatisfy { $0.changeType == .delete && $0.tombstone?["summary"] != nil })
        #expect(try test.store.countChanges(.allRetained) == rows * 2 + rows / 2)
    }

    @Test func rollbackRecordsNothing() throws {
        struct Abort: Error {}
        let test = try TestStore()
        try test.insertPackage("first")
        let token = try #require(try test.store.currentToken())

        #expect(throws: Abort.self) {
            try test.store.write(author: "app") { db in
                try db.execute(sql: "INSERT INTO Package (name) VALUES ('ghost')")
                try db.execute(sql: "DELETE FROM Package WHERE name = 'first'")
                throw Abort()
            }
        }
        #expect(try test.store.currentToken() == token)
        #expect(try test.store.countChanges(.allRetained) == 1)
        #expect(try test.store.hasPendingChanges() == false)
        let rows = try test.store.read { db in try String.fetchAll(db, sql: "SELECT name FROM Package") }
        #expect(rows == ["first"])

        try test.insertPackage("second")
        let next = try #require(try test.store.currentToken())
        #expect(next > token)
        #expect(try test.allHistory().map { $0.changes.map(\.key) } == [["first".databaseValue], ["second".databaseValue]])
    }

    @Test func failingStatementRollsBackTheWholeWrite() throws {
        let test = try TestStore()
        try test.insertPackage("zsh")
        #expect(throws: DatabaseError.self) {
            try test.store.write(author: "app") { db in
                try db.execute(sql: "INSERT INTO Package (name) VALUES ('bash')")
                try db.execute(sql: "INSERT INTO Package (name) VALUES ('zsh')")  // duplicate key
            }
        }
        #expect(try test.allHistory().count == 1)
        #expect(try test.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Package") } == 1)
    }

    @Test func rolledBackSavepointIsNotRecordedButTheRestIs() throws {
        let test = try TestStore()
        try test.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Package (name) VALUES ('kept')")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO Package (name) VALUES ('dropped')")
                return .rollback
            }
        }
        let changes = try test.allHistory().flatMap(\.changes)
        #expect(changes.map(\.key) == ["kept".databaseValue])
    }

    @Test func writeThatChangesNoTrackedRowLeavesNoTransaction() throws {
        let test = try TestStore()
        try test.insertPackage("zsh")
        let token = try #require(try test.store.currentToken())
        try test.store.write(author: "app") { db in
            try db.execute(sql: "CREATE TABLE Notes (id INTEGER PRIMARY KEY, text TEXT)")
            try db.execute(sql: "INSERT INTO Notes (text) VALUES ('not tracked')")
            try db.execute(sql: "UPDATE Package SET name = name")
        }
        try test.store.write(author: "app") { _ in }
        #expect(try test.store.currentToken() == token)
        #expect(try test.allHistory().count == 1)

        try test.insertPackage("bash")
        let next = try #require(try test.store.currentToken())
        #expect(next > token)
    }

    @Test func untrackedTableIsNotRecordedFromAnyWriter() throws {
        let test = try TestStore()
        try test.store.write(author: "app") { db in
            try db.execute(sql: "CREATE TABLE Notes (id INTEGER PRIMARY KEY, text TEXT)")
        }
        try SQLiteShell.run(test.path, "INSERT INTO Notes (text) VALUES ('from the shell');")
        try test.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Notes (text) VALUES ('from the app')")
            try db.execute(sql: "DELETE FROM Notes")
        }
        #expect(try test.store.hasPendingChanges() == false)
        #expect(try test.store.currentToken() == nil)
        #expect(try test.store.countChanges(.allRetained) == 0)
    }

    @Test func writesThroughThePoolDirectlyAreRecordedWithoutAuthor() throws {
        let test = try TestStore()
        try test.store.databasePool.write { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('raw')") }
        let transaction = try #require(try test.store.fetchHistory(.after(nil)).first)
        #expect(transaction.author == nil)
        #expect(transaction.processID == nil)
        #expect(transaction.changes.map(\.key) == ["raw".databaseValue])
    }
}

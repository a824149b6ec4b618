import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("Writes by programs that do not use Spotlite", .blockingWork)
struct ForeignWriterTests {
    @Test func sqliteShellWritesAreRecordedWithoutAuthor() throws {
        let test = try TestStore()
        try test.insertPackage("zsh", summary: "shell", author: "app")
        try SQLiteShell.run(test.path, """
            INSERT INTO Package (name, summary) VALUES ('bash', 'another shell');
            UPDATE Package SET size = 5, summary = 'Z shell' WHERE name = 'zsh';
            DELETE FROM Package WHERE name = 'bash';
            """)
        #expect(try test.store.hasPendingChanges())

        let history = try test.store.fetchHistory(.after(nil))
        #expect(history.count == 2)
        let foreign = try #require(history.last)
        #expect(foreign.author == nil)
        #expect(foreign.contextName == nil)
        #expect(foreign.processID == nil)
        #expect(abs(foreign.timestamp.timeIntervalSinceNow) < 60)
        #expect(foreign.token > history[0].token)
        #expect(foreign.changes.map(\.changeType) == [.insert, .update, .delete])
        #expect(foreign.changes[1].updatedColumns == ["summary", "size"])
        #expect(foreign.changes[2].tombstone == ["name": "bash".databaseValue, "summary": "another shell".databaseValue])
        #expect(try test.store.hasPendingChanges() == false)
    }

    @Test func foreignCommitsBeforeASealShareOneTransaction() throws {
        let test = try TestStore()
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('one');")
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('two');")
        let history = try test.store.fetchHistory(.after(nil))
        #expect(history.count == 1)
        #expect(history.first?.changes.map(\.key) == ["one".databaseValue, "two".databaseValue])
    }

    @Test func foreignChangesAreSealedBeforeTheNextAttributedWrite() throws {
        let test = try TestStore()
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('shell-row');")
        try test.insertPackage("app-row", author: "app")
        let history = try test.allHistory()
        #expect(history.map(\.author) == [nil, "app"])
        #expect(history.map { $0.changes.map(\.key) } == [["shell-row".databaseValue], ["app-row".databaseValue]])
        #expect(history[0].token < history[1].token)
    }

    @Test func shellSeesHistoryTablesAndATriggerFailureRollsBackItsWrite() throws {
        let test = try TestStore()
        // A foreign write that violates the table's constraints leaves neither the row nor its history.
        #expect(throws: SQLiteShell.Failure.self) {
            try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES (NULL);")
        }
        #expect(try test.store.hasPendingChanges() == false)
        let counted = try SQLiteShell.run(test.path, "SELECT count(*) FROM spotlite_change;")
        #expect(counted.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func readOnlyHandleDoesNotSealButSeesSealedChanges() throws {
        let test = try TestStore()
        let reader = try test.reopen(options: StoreOptions(readOnly: true))
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('shell-row');")
        #expect(try reader.fetchHistory(.after(nil)).isEmpty)
        #expect(try reader.hasPendingChanges())
        try test.store.sealPendingChanges()
        #expect(try reader.fetchHistory(.after(nil)).first?.changes.first?.key == "shell-row".databaseValue)
    }

    /// Two processes write at once: this one through the API, the `sqlite3` shell through a script of many small
    /// transactions. Every change is recorded once, and tokens follow commit order. The Event table's
    /// INTEGER PRIMARY KEY is assigned at insert time under the write lock, so it is the commit order.
    @Test(.timeLimit(.minutes(5))) func twoProcessesWritingConcurrently() throws {
        let event = EntityDescription(
            name: "Event", key: "id", keyType: .integer,
            attributes: [AttributeDescription(name: "source"), AttributeDescription(name: "n", type: .integer)])
        let test = try TestStore(model: StoreModel(entities: [event]))
        let perProcess = 3_000

        // A moment of work outside any transaction, as a real program has between writes; without it a writer takes
        // the write lock back at once and SQLite's busy handler lets it starve the other writer.
        let work = "SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) SELECT x FROM c)"
        var script = ""
        for n in 0..<perProcess {
            script += "BEGIN IMMEDIATE; INSERT INTO Event (source, n) VALUES ('shell', \(n)); COMMIT;\n"
            // The first line the shell prints says it is writing.
            if n == 0 { script += "SELECT 'writing';\n" }
            script += work + ";\n"
        }
        let shell = try SQLiteShell.start(test.path, script)
        // Start once the shell is writing, so that both really write at the same time.
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let more = shell.output.fileHandleForReading.availableData
            try #require(!more.isEmpty, "the sqlite3 shell ended before writing: \(String(decoding: shell.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
            printed.append(more)
        }
        #expect(String(decoding: printed, as: UTF8.self).hasPrefix("writing\n"))
        for n in 0..<perProcess {
            try test.store.write(author: "app", context: "loop") { db in
                try db.execute(sql: "INSERT INTO Event (source, n) VALUES ('app', ?)", arguments: [n])
            }
            _ = try test.store.read { db in try Int.fetchOne(db, sql: work) }
        }
        _ = try shell.finish()
        try test.store.sealPendingChanges()

        let history = try test.store.fetchHistory(.after(nil))
        let changes = history.flatMap(\.changes)
        #expect(changes.count == perProcess * 2)
        #expect(Set(changes.map(\.key)).count == perProcess * 2, "every row recorded exactly once")
        let tokens = history.map(\.token)
        #expect(tokens == tokens.sorted() && Set(tokens).count == tokens.count, "tokens unique and increasing")
        #expect(history.filter { $0.author == "app" }.count == perProcess, "one transaction per API write")
        #expect(history.filter { $0.author == nil }.flatMap(\.changes).count == perProcess)

        // Sorted by commit order (the rowid), tokens never go down.
        let tokenByKey = Dictionary(uniqueKeysWithValues: changes.map { (Int64.fromDatabaseValue($0.key)!, $0.token) })
        let inCommitOrder = tokenByKey.keys.sorted().map { tokenByKey[$0]! }
        #expect(inCommitOrder == inCommitOrder.sorted())
        // Both writers really interleaved: the shell's changes are spread over several sealed transactions.
        #expect(history.filter { $0.author == nil }.count > 1)
    }
}

import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("Import summary", .blockingWork)
struct RecordImporterTests {
    private func run(_ lines: [String], store: SpotliteStore, in directory: TemporaryDirectory) throws -> RecordImporter.Summary {
        let path = directory.path("input-\(UUID().uuidString).jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let importer = try RecordImporter(store: store, entity: "Package", batchSize: 1)
        return try importer.run(from: try #require(FileHandle(forReadingAtPath: path)))
    }

    @Test("a batch that changes nothing records no history transaction and is not counted as one")
    func emptyBatchesAreNotTransactions() throws {
        let directory = try TemporaryDirectory()
        let store = try SpotliteStore(path: directory.path("store.sqlite"), model: Fixtures.model)
        let first = try run([#"{"name": "vim", "summary": "editor"}"#, #"{"name": "absent", "_delete": true}"#],
                            store: store, in: directory)
        #expect(first.inserted == 1 && first.deleted == 0)
        #expect(first.transactions == 1, "the delete of an absent key recorded nothing")
        #expect(try store.historyStatistics().transactions == 1)
        let token = try #require(first.token)
        #expect(token == (try store.currentToken()))

        // Another writer commits after the import: the summary keeps the import's own token.
        try store.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('nano')") }
        let nothing = try run([#"{"name": "gone", "_delete": true}"#], store: store, in: directory)
        #expect(nothing.transactions == 0 && nothing.token == nil)
        #expect(try store.historyStatistics().transactions == 2)
    }

    /// The same line imported twice used to count as an update the second time, although nothing changed.
    @Test("a line giving a record the values it has is counted as unchanged, writes nothing and records no history")
    func unchangedRecordsAreCountedAsSuch() throws {
        let directory = try TemporaryDirectory()
        let store = try SpotliteStore(path: directory.path("store.sqlite"), model: Fixtures.model)
        let line = #"{"name": "vim", "summary": "editor"}"#
        let first = try run([line], store: store, in: directory)
        #expect(first.inserted == 1 && first.updated == 0 && first.unchanged == 0)
        let changes = try store.historyStatistics().changes
        let again = try run([line, #"{"name": "vim"}"#], store: store, in: directory)
        #expect(again.inserted == 0 && again.updated == 0 && again.unchanged == 2, "\(again)")
        #expect(again.transactions == 0 && again.token == nil)
        #expect(try store.historyStatistics().changes == changes)
        let changed = try run([#"{"name": "vim", "summary": "text editor"}"#], store: store, in: directory)
        #expect(changed.updated == 1 && changed.unchanged == 0 && changed.transactions == 1, "\(changed)")
    }
}

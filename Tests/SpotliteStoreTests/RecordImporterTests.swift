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
}

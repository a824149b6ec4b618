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

    /// The error a line (after a good one) gets from the importer, nothing of it imported.
    private func refusal(_ line: [UInt8], entity: String = "Package") throws -> SpotliteStoreError? {
        let directory = try TemporaryDirectory()
        let store = try SpotliteStore(path: directory.path("store.sqlite"), model: Fixtures.model)
        let path = directory.path("input.jsonl")
        let good = entity == "Package" ? #"{"name": "good"}"# : #"{"id": 1}"#
        try Data(Array(good.utf8) + [0x0A] + line).write(to: URL(fileURLWithPath: path))
        let importer = try RecordImporter(store: store, entity: entity, batchSize: 10)
        let error = #expect(throws: SpotliteStoreError.self) {
            try importer.run(from: try #require(FileHandle(forReadingAtPath: path)))
        }
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(entity)") } == 0)
        return error
    }

    @Test("each kind of bad line is refused by its cause, with its line number")
    func badLinesAreRefusedByCause() throws {
        let causes: [(String, String, SpotliteStoreError.LineProblem)] = [
            ("Package", "[1]", .notAnObject(found: .array)),
            ("Package", #""vim""#, .notAnObject(found: .string)),
            ("Package", "null", .notAnObject(found: .null)),
            ("Package", "true", .notAnObject(found: .numberOrBoolean)),
            ("Package", #"{"name": "a", "size": 9223372036854775808}"#, .integerOutOfRange(literal: "9223372036854775808")),
            ("Package", #"{"name": "a", "_delete": 1}"#, .deleteFlagNotBoolean),
            ("Package", #"{"summary": "no key"}"#, .missingKey("name")),
            ("Package", #"{"name": null}"#, .missingKey("name")),
            ("Package", #"{"name": ["a"]}"#, .keyOfWrongType("name", expected: .text, found: .array)),
            ("Package", #"{"name": 5}"#, .keyOfWrongType("name", expected: .text, found: nil)),
            ("Item", #"{"id": 1.5}"#, .keyOfWrongType("id", expected: .integer, found: nil)),
            ("Package", #"{"name": "a", "summary": "x\u0000y"}"#, .nulCharacter(column: "summary")),
        ]
        for (entity, line, cause) in causes {
            #expect(try refusal(Array(line.utf8), entity: entity) == .malformedLine(2, cause), "\(line)")
        }
        guard case .malformedLine(2, .unknownAttribute("colour", entity: "Package", known: let known))?
            = try refusal(Array(#"{"name": "a", "colour": "red"}"#.utf8)) else {
            Issue.record("an unknown attribute was not refused as one")
            return
        }
        #expect(known.contains("summary") && known == known.sorted())
        guard case .malformedLine(2, .notJSON)? = try refusal(Array("{not json".utf8)) else {
            Issue.record("a line that is not JSON was not refused as such")
            return
        }
        #expect(try refusal([0x7B, 0xFF, 0x7D]) == .malformedLine(2, .notUTF8))
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

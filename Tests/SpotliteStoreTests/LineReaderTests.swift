import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// The import's line reader: every line back exactly, across chunk boundaries, and a line without end stops it
/// with a clear error instead of filling memory.
@Suite("Import line reader", .blockingWork)
struct LineReaderTests {
    func reader(for bytes: [UInt8], in directory: TemporaryDirectory, limit: Int) throws -> LineReader {
        let path = directory.path("input-\(UUID().uuidString)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return LineReader(handle: try #require(FileHandle(forReadingAtPath: path)), maximumLineBytes: limit)
    }

    @Test("lines longer than a chunk, empty lines and a last line without newline come back whole")
    func linesAcrossChunks() throws {
        let directory = try TemporaryDirectory()
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: 3 << 20 + 17)
        let input = long + [0x0A, 0x0A] + Array("short".utf8) + [0x0A] + Array("last".utf8)
        var reader = try reader(for: input, in: directory, limit: 4 << 20)
        #expect(try reader.next() == long)
        #expect(try reader.next() == [])
        #expect(try reader.next() == Array("short".utf8))
        #expect(try reader.next() == Array("last".utf8))
        #expect(try reader.next() == nil)
        #expect(reader.bytesRead == input.count)
    }

    @Test("a line over the limit, with or without a newline after it, is an error")
    func lineTooLong() throws {
        let directory = try TemporaryDirectory()
        let long = [UInt8](repeating: UInt8(ascii: "b"), count: (2 << 20) + 1)
        for input in [long, long + [0x0A], Array("ok".utf8) + [0x0A] + long] {
            var reader = try reader(for: input, in: directory, limit: 2 << 20)
            if input.first == UInt8(ascii: "o") { #expect(try reader.next() == Array("ok".utf8)) }
            #expect(throws: LineReader.LineTooLong.self) { _ = try reader.next() }
        }
    }

    @Test("the importer names the line that is too long")
    func importerNamesTheLine() throws {
        let directory = try TemporaryDirectory()
        let store = try SpotliteStore(path: directory.path("store.sqlite"), model: Fixtures.model)
        let path = directory.path("packages.jsonl")
        var input = Data(#"{"name": "a", "summary": "fine"}"#.utf8 + [0x0A])
        input.append(Data(repeating: UInt8(ascii: " "), count: LineReader.defaultMaximumLineBytes + 1))
        try input.write(to: URL(fileURLWithPath: path))
        let importer = try RecordImporter(store: store, entity: "Package", batchSize: 1)
        let error = #expect(throws: SpotliteStoreError.self) {
            try importer.run(from: try #require(FileHandle(forReadingAtPath: path)))
        }
        #expect(error == .malformedLine(2, .tooLong(limitMiB: LineReader.defaultMaximumLineBytes >> 20)))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Package") } == 1)
    }
}

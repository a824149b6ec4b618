import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// The one writer of Xapian stub files (the index's live-generation stub and each generation's shard list).
@Suite("Stub files", .blockingWork)
struct StubFileTests {
    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "spotlite-stub-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a stub lists its databases, one auto line each, and replaces the previous one")
    func writesAndReplaces() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stub = directory + "/XAPIANDB"
        try StubFile.write(["shard-0", "shard-1"], to: stub)
        #expect(try String(contentsOfFile: stub, encoding: .utf8) == "auto shard-0\nauto shard-1\n")
        try StubFile.write(["gen-000002"], to: stub)
        #expect(try String(contentsOfFile: stub, encoding: .utf8) == "auto gen-000002\n")
        #expect(!FileManager.default.fileExists(atPath: stub + ".tmp"))
    }

    @Test("a symbolic link at the temporary name is removed, never written through")
    func linkAtTemporaryNameIsNotFollowed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = directory + "/victim.txt"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        let stub = directory + "/XAPIANDB"
        try FileManager.default.createSymbolicLink(atPath: stub + ".tmp", withDestinationPath: victim)
        try StubFile.write(["shard-0"], to: stub)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try String(contentsOfFile: stub, encoding: .utf8) == "auto shard-0\n")
    }

    @Test("a stub in a directory that does not exist is an error naming the path")
    func missingDirectoryIsAnError() throws {
        let stub = "/nonexistent-\(UUID().uuidString)/XAPIANDB"
        #expect(throws: SearchError.self) { try StubFile.write(["shard-0"], to: stub) }
    }
}

import Foundation
import SpotliteTestSupport
import SpotliteTooling
import Testing

@testable import SpotliteSearch

/// Writes on a tmpfs too small for them (mounted when the tests run as root; skipped otherwise, with the reason in
/// the trait's comment).
@Suite("Xapian writer on a full disk", .blockingWork,
       .enabled(if: SmallFileSystem.unavailableReason == nil, "needs root to mount a small tmpfs"))
struct XapianFullDiskTests {
    private static func document(_ number: Int) throws -> XapianDocument {
        let document = try XapianDocument()
        let generator = try XapianTermGenerator()
        try generator.startDocument(document)
        // Many distinct words: the postings and positions fill blocks fast.
        let text = (0..<80).map { "w\((number &* 7919 &+ $0 &* 104_729) % 500_000)" }.joined(separator: " ")
        try generator.indexText(text)
        try document.setData(text)
        return document
    }

    private static func xapianCheck(_ path: String) throws -> (status: Int32, output: String) {
        let outcome = try ChildProcess.run("/usr/bin/xapian-check", [path], error: .discard)
        return (outcome.status, String(decoding: outcome.standardOutput, as: UTF8.self))
    }

    /// Writes documents in batches of `batch`, each committed with its count as metadata, until a write fails;
    /// returns the count committed last and the error.
    private static func writeUntilFull(_ writer: XapianWritableDatabase, from start: Int, batch: Int = 100)
        -> (committed: Int, error: XapianError?) {
        var committed = start
        var number = start
        for _ in 0..<10_000 {
            do {
                for _ in 0..<batch {
                    try writer.replaceDocument(uniqueTerm: "Q\(number)", document: document(number))
                    number += 1
                }
                try writer.setMetadata(String(number), forKey: "count")
                try writer.commit()
                committed = number
            } catch {
                guard case SearchError.engine(let failure, nil) = error else { return (committed, nil) }
                return (committed, failure)
            }
        }
        return (committed, nil)
    }

    @Test("a write failing on a full disk closes the writer without a commit; reopened, it holds its last commit")
    func fullDiskDiscardsTheWriterAndReopensFromTheLastCommit() throws {
        let directory = try XapianTestDirectory()
        let disk = try SmallFileSystem(megabytes: 3, at: directory.path + "/disk")
        let path = disk.path + "/db"
        let writer = try XapianWritableDatabase(path: path)
        let (committed, failure) = Self.writeUntilFull(writer, from: 0)
        let error = try #require(failure, "3 MB never filled up")
        #expect(committed > 0, "a first batch fits")
        #expect(writer.isDiscarded, "the failed write (\(error)) closed the writer")
        let closed = try #require(engineFailure { try writer.commit() })
        #expect(closed.code == .databaseClosed)
        #expect(closed.message.contains("after a write failed"), "\(closed.message)")

        // The lock was released: a new writer opens at once, at the last commit.
        let reopened = try XapianWritableDatabase(path: path, action: .open)
        #expect(try reopened.metadata(forKey: "count") == String(committed))
        #expect(try reopened.documentCount() == committed)
        let check = try Self.xapianCheck(path)
        #expect(check.status == 0, "xapian-check after the failure:\n\(check.output)")

        // Retried on the reopened writer while the disk is still full: it fails the same way, never damages.
        let (again, secondFailure) = Self.writeUntilFull(reopened, from: committed)
        #expect(secondFailure != nil)
        #expect(reopened.isDiscarded)
        let secondCheck = try Self.xapianCheck(path)
        #expect(secondCheck.status == 0, "xapian-check after a second failure:\n\(secondCheck.output)")

        // Space returns: the next writer continues from the last commit.
        try disk.resize(megabytes: 64)
        let grown = try XapianWritableDatabase(path: path, action: .open)
        #expect(try grown.documentCount() == again)
        for number in again..<(again + 50) {
            try grown.replaceDocument(uniqueTerm: "Q\(number)", document: Self.document(number))
        }
        try grown.commit()
        try grown.close()
        let reader = try XapianDatabase(path: path)
        #expect(try reader.documentCount() == again + 50)
        let finalCheck = try Self.xapianCheck(path)
        #expect(finalCheck.status == 0, "xapian-check once space returned:\n\(finalCheck.output)")
    }

    @Test("releasing a writer whose commit failed on a full disk neither aborts nor commits again")
    func releasingAFailedWriterIsSafe() throws {
        let directory = try XapianTestDirectory()
        let disk = try SmallFileSystem(megabytes: 2, at: directory.path + "/disk")
        let path = disk.path + "/db"
        var committed = 0
        do {
            let writer = try XapianWritableDatabase(path: path)
            committed = Self.writeUntilFull(writer, from: 0, batch: 400).committed
            // Released here: the shim frees a discarded database without committing on it.
        }
        let check = try Self.xapianCheck(path)
        #expect(check.status == 0, "\(check.output)")
        let reader = try XapianDatabase(path: path)
        #expect(try reader.documentCount() == committed)
    }
}

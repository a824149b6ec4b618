import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

@Suite("Xapian writer", .blockingWork)
struct XapianWriterTests {
    private func document(_ text: String) throws -> XapianDocument {
        let document = try XapianDocument()
        let generator = try XapianTermGenerator()
        try generator.startDocument(document)
        try generator.indexText(text)
        try document.setData(text)
        return document
    }

    @Test func addDocumentAddsTheIdTermSoLaterReplacesAndDeletesFindIt() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        try writer.addDocument(uniqueTerm: "Qa", document: document("first"))
        try writer.addDocument(uniqueTerm: "Qb", document: document("second"))
        try writer.replaceDocument(uniqueTerm: "Qa", document: document("first again"))
        #expect(try writer.documentCount() == 2, "the replace found the added document by its id term")
        #expect(try writer.documentData(uniqueTerm: "Qa") == Data("first again".utf8))
        try writer.deleteDocument(uniqueTerm: "Qb")
        #expect(try writer.documentCount() == 1)
        let tooLong = String(repeating: "x", count: 300)
        engineFailure { try writer.addDocument(uniqueTerm: "Q" + tooLong, document: document("x")) }
    }

    @Test func metadataIsCommittedAtomicallyWithDocuments() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        try writer.replaceDocument(uniqueTerm: "Q1", document: document("one"))
        try writer.setMetadata("1", forKey: "position")
        try writer.commit()

        let afterCommit = try XapianDatabase(path: directory.database())
        #expect(try afterCommit.documentCount() == 1)
        #expect(try afterCommit.metadata(forKey: "position") == "1")

        try writer.beginTransaction(durable: true)
        try writer.replaceDocument(uniqueTerm: "Q2", document: document("two"))
        try writer.setMetadata("2", forKey: "position")
        #expect(try writer.metadata(forKey: "position") == "2")
        try writer.cancelTransaction()

        let afterCancel = try XapianDatabase(path: directory.database())
        #expect(try afterCancel.documentCount() == 1)
        #expect(try afterCancel.metadata(forKey: "position") == "1")
        #expect(try writer.documentCount() == 1)

        try writer.beginTransaction(durable: true)
        try writer.replaceDocument(uniqueTerm: "Q2", document: document("two"))
        try writer.setMetadata("2", forKey: "position")
        try writer.commitTransaction()
        let afterTransaction = try XapianDatabase(path: directory.database())
        #expect(try afterTransaction.documentCount() == 2)
        #expect(try afterTransaction.metadata(forKey: "position") == "2")
        #expect(try afterTransaction.metadata(forKey: "missing") == nil)
    }

    @Test func aSecondWriterGetsTheLockError() throws {
        let directory = try XapianTestDirectory()
        let first = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let error = try #require(engineFailure {
            _ = try XapianWritableDatabase(path: directory.database())
        })
        #expect(error.code == .databaseLock)
        #expect(error.type == "DatabaseLockError")
        #expect(error.description.hasPrefix("DatabaseLockError: Unable to get write lock on"))
        #expect(!error.batchLost)
        try first.close()
        // Closing releases the lock.
        let second = try XapianWritableDatabase(path: directory.database())
        try second.close()
    }

    @Test func releasingAWriterReleasesItsLock() throws {
        let directory = try XapianTestDirectory()
        var first: XapianWritableDatabase? = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let generator = try XapianTermGenerator()
        try generator.setSpellingDatabase(first)
        first = nil
        // The generator still refers to the database, yet the lock is free.
        let second = try XapianWritableDatabase(path: directory.database())
        try second.close()
    }

    @Test func aFailedWriteLosesTheWholeBatchAndSaysSo() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        try writer.replaceDocument(uniqueTerm: "Qcommitted", document: document("kept"))
        try writer.setMetadata("1", forKey: "position")
        try writer.commit()

        try writer.replaceDocument(uniqueTerm: "Qpending", document: document("pending"))
        try writer.setMetadata("2", forKey: "position")
        let bad = try document("bad")
        try bad.addBooleanTerm(String(repeating: "K", count: 300))
        let error = try #require(engineFailure {
            try writer.replaceDocument(uniqueTerm: "Qbad", document: bad)
        })
        #expect(error.batchLost)
        #expect(error.code == .invalidArgument)
        #expect(error.description.contains("Term too long"))
        #expect(error.description.contains("every change since the last commit was discarded"))

        #expect(try writer.documentCount() == 1)
        #expect(try writer.metadata(forKey: "position") == "1")
        try writer.commit()
        let reader = try XapianDatabase(path: directory.database())
        #expect(try reader.documentCount() == 1)
        #expect(try reader.documentData(uniqueTerm: "Qpending") == nil)
        #expect(try reader.metadata(forKey: "position") == "1")
    }

    @Test func anOverlongUniqueTermIsRejectedAtWriteTime() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let error = try #require(engineFailure {
            try writer.replaceDocument(uniqueTerm: "Q" + String(repeating: "x", count: 300), document: document("x"))
        })
        #expect(error.batchLost)
        #expect(try writer.documentCount() == 0)
    }

    @Test func badArgumentsAreClearErrorsThatKeepTheBatch() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        try writer.replaceDocument(uniqueTerm: "Qkept", document: document("kept"))
        let emptyKey = try #require(engineFailure { try writer.setMetadata("x", forKey: "") })
        #expect(emptyKey.code == .invalidArgument)
        #expect(emptyKey.message.contains("metadata key is empty"))
        #expect(!emptyKey.batchLost)
        let emptyTerm = try #require(engineFailure { try writer.deleteDocument(uniqueTerm: "") })
        #expect(emptyTerm.code == .invalidArgument)
        #expect(emptyTerm.message.contains("unique term is empty"))
        let cancel = try #require(engineFailure { try writer.cancelTransaction() })
        #expect(cancel.code == .invalidOperation)
        #expect(try writer.documentCount() == 1)
        let language = try #require(engineFailure { _ = try XapianTermGenerator(language: "klingon") })
        #expect(language.code == .invalidArgument)
        #expect(language.message.contains("english"))
    }

    @Test func aClosedWriterRefusesFurtherWork() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        try writer.replaceDocument(uniqueTerm: "Q1", document: document("one"))
        try writer.close()
        let error = try #require(engineFailure { try writer.commit() })
        #expect(error.code == .databaseClosed)
        engineFailure { try writer.documentCount() }
        // close() committed the pending document.
        #expect(try XapianDatabase(path: directory.database()).documentCount() == 1)
    }

    @Test func openActionsCreateOverwriteAndRequireDatabases() throws {
        let directory = try XapianTestDirectory()
        let missing = try #require(engineFailure {
            _ = try XapianWritableDatabase(path: directory.database(), action: .open)
        })
        #expect([.databaseNotFound, .databaseOpening].contains(missing.code))
        let created = try XapianWritableDatabase(path: directory.database(), action: .create, noSync: true)
        try created.replaceDocument(uniqueTerm: "Q1", document: document("one"))
        try created.close()
        engineFailure {
            _ = try XapianWritableDatabase(path: directory.database(), action: .create)
        }
        let reopened = try XapianWritableDatabase(path: directory.database(), action: .open)
        #expect(try reopened.documentCount() == 1)
        try reopened.close()
        let overwritten = try XapianWritableDatabase(path: directory.database(), action: .createOrOverwrite)
        #expect(try overwritten.documentCount() == 0)
    }
}

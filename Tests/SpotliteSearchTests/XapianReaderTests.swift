import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

@Suite("Xapian reader", .blockingWork)
struct XapianReaderTests {
    @Test func aMissingDatabaseIsNotFound() throws {
        let directory = try XapianTestDirectory()
        let error = try #require(engineFailure {
            _ = try XapianDatabase(path: directory.database("nothing-here"))
        })
        #expect(error.code == .databaseNotFound)
        #expect(error.type == "DatabaseNotFoundError")
        #expect(error.message.contains("nothing-here"))
        let none = try #require(engineFailure { _ = try XapianDatabase(paths: []) })
        #expect(none.code == .invalidArgument)
    }

    @Test func aLongLivedReaderSurvivesRepeatedWriterCommits() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        var next = 0
        // Large commits reuse the blocks of older revisions, which is what breaks long-lived readers.
        func commitBatch(_ count: Int = 300) throws {
            for _ in 0..<count {
                let document = try XapianDocument()
                try document.addTerm("common")
                for extra in 0..<20 { try document.addTerm("t\(next * 7 + extra)") }
                try document.setData("\(next)")
                try writer.replaceDocument(uniqueTerm: "Q\(next)", document: document)
                next += 1
            }
            try writer.setMetadata("\(next)", forKey: "position")
            try writer.commit()
        }
        // The reader's revision must span several blocks for later commits to reuse them.
        try commitBatch()
        let reader = try XapianDatabase(path: directory.database())
        let query = try XapianQuery.term("common")

        try commitBatch()
        try commitBatch()
        let error = try #require(engineFailure { _ = try reader.search(query, maxRetries: 0) })
        #expect(error.code == .databaseModified)

        for round in 1...3 {
            try commitBatch()
            try commitBatch()
            let results = try reader.search(query, limit: 5)
            #expect(results.hits.count == 5, "round \(round)")
            // A whole committed revision: the latest one when a retry reopened the reader.
            #expect(results.estimatedTotal % 300 == 0 && (600...next).contains(results.estimatedTotal))
        }
        try reader.reopen()
        #expect(try reader.documentCount() == next)
        #expect(try reader.metadata(forKey: "position") == "\(next)")
        #expect(try reader.reopen() == false)
        try commitBatch(1)
        #expect(try reader.reopen())
    }

    @Test func twoDatabasesAreSearchedTogether() throws {
        let directory = try XapianTestDirectory()
        let packages = XapianSamplePackage.all
        try XapianSamplePackage.buildIndex(at: directory.database("a"), packages: Array(packages.prefix(2)))
        try XapianSamplePackage.buildIndex(at: directory.database("b"), packages: Array(packages.dropFirst(2)))
        let combined = try XapianDatabase(paths: [directory.database("a"), directory.database("b")])
        #expect(try combined.documentCount() == packages.count)
        let parser = try XapianSamplePackage.parser(for: combined)
        let results = try combined.search(parser.parse("text"), limit: 10)
        #expect(Set(names(results)) == ["vim", "nano", "coreutils"])
        #expect(Set(results.hits.map(\.docid)).count == results.hits.count)
        // Metadata comes from the first database only.
        #expect(try combined.metadata(forKey: "indexed") == "2")
        #expect(try combined.documentData(uniqueTerm: "Qgrep") == Data("grep".utf8))
        engineFailure { try combined.addDatabase(path: directory.database("missing")) }
    }

    @Test func compactionKeepsDocumentsAndMetadata() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        try writer.deleteDocument(uniqueTerm: "Qnano")
        try writer.setMetadata("token-17", forKey: "token")
        try writer.commit()
        try writer.close()

        let source = try XapianDatabase(path: directory.database())
        try source.compact(to: directory.database("compact"), level: .fuller)
        let compacted = try XapianDatabase(path: directory.database("compact"))
        #expect(try compacted.documentCount() == XapianSamplePackage.all.count - 1)
        #expect(try compacted.metadata(forKey: "token") == "token-17")
        #expect(try compacted.metadata(forKey: "indexed") == "5")
        #expect(try compacted.documentData(uniqueTerm: "Qvim") == Data("vim".utf8))
        #expect(try compacted.documentData(uniqueTerm: "Qnano") == nil)
        let parser = try XapianSamplePackage.parser(for: compacted)
        #expect(names(try compacted.search(parser.parse("editor"))) == ["vim"])
        let error = try #require(engineFailure { try source.compact(to: "") })
        #expect(error.code == .invalidArgument)
    }

    @Test func aClosedReaderReportsClosed() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let reader = try XapianDatabase(path: directory.database())
        try reader.close()
        let error = try #require(engineFailure { try reader.search(XapianQuery.matchAll()) })
        #expect(error.code == .databaseClosed)
    }
}

import Foundation
import Testing

@testable import SpotliteSearch

@Suite("Xapian reader")
struct XapianReaderTests {
    @Test func aMissingDatabaseIsNotFound() throws {
        let directory = try XapianTestDirectory()
        let error = try #require(throws: XapianError.self) {
            _ = try XapianDatabase(path: directory.database("nothing-here"))
        }
        #expect(error.code == .databaseNotFound)
        #expect(error.type == "DatabaseNotFoundError")
        #expect(error.message.contains("nothing-here"))
        let none = try #require(throws: XapianError.self) { _ = try XapianDatabase(paths: []) }
        #expect(none.code == .invalidArgument)
    }

    @Test func aLongLivedReaderSurvivesRepeatedWriterCommits() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let generator = try XapianTermGenerator()
        func add(_ id: Int) throws {
            let document = try XapianDocument()
            try generator.startDocument(document)
            try generator.indexText("shared words in document number \(id)")
            try document.setData("\(id)")
            try writer.replaceDocument(uniqueTerm: "Q\(id)", document: document)
        }
        try add(0)
        try writer.setMetadata("0", forKey: "position")
        try writer.commit()

        let reader = try XapianDatabase(path: directory.database())
        let query = try XapianQuery.term("Zshare")
        var next = 1
        for round in 1...8 {
            for _ in 0..<3 {
                try add(next)
                next += 1
                try writer.setMetadata("\(next - 1)", forKey: "position")
                try writer.commit()
            }
            // Each search sees at least the revision it had open and never fails with DatabaseModifiedError.
            let results = try reader.search(query, limit: 100)
            #expect(!results.hits.isEmpty, "round \(round)")
            #expect(Set(names(results)).count == results.hits.count)
        }
        #expect(try reader.reopen())
        #expect(try reader.documentCount() == next)
        #expect(try reader.metadata(forKey: "position") == "\(next - 1)")
        #expect(try reader.reopen() == false)
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
        #expect(throws: XapianError.self) { try combined.addDatabase(path: directory.database("missing")) }
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
        let error = try #require(throws: XapianError.self) { try source.compact(to: "") }
        #expect(error.code == .invalidArgument)
    }

    @Test func aClosedReaderReportsClosed() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let reader = try XapianDatabase(path: directory.database())
        try reader.close()
        let error = try #require(throws: XapianError.self) { try reader.search(XapianQuery.matchAll()) }
        #expect(error.code == .databaseClosed)
    }
}

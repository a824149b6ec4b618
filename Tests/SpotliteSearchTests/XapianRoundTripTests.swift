import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

@Suite("Xapian round trip", .blockingWork)
struct XapianRoundTripTests {
    @Test func indexedDocumentsAreFoundWithTheirDataAndSnippets() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        #expect(try database.documentCount() == XapianSamplePackage.all.count)
        #expect(try database.metadata(forKey: "indexed") == "5")

        let parser = try XapianSamplePackage.parser(for: database)
        let results = try database.search(parser.parse("editors"), limit: 10)
        #expect(Set(names(results)) == ["vim", "nano"])
        #expect(results.estimatedTotal == 2)
        #expect(results.hits.map(\.rank) == [0, 1])
        #expect(results.hits.allSatisfy { $0.weight > 0 && $0.percent > 0 && $0.percent <= 100 })

        let vim = try #require(XapianSamplePackage.all.first { $0.name == "vim" })
        let snippet = try results.snippet(for: vim.summary, highlightStart: "[", highlightEnd: "]")
        #expect(snippet.contains("[editor]"))
        #expect(try database.documentData(uniqueTerm: "Qvim") == Data("vim".utf8))
        #expect(try database.documentData(uniqueTerm: "Qemacs") == nil)
    }

    @Test func utf8TextGoesInAndComesOutUnchanged() throws {
        let directory = try XapianTestDirectory()
        let text = "Müller Straße 日本語"
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let generator = try XapianTermGenerator(language: "german", stopwords: .none)
        let document = try XapianDocument()
        try generator.startDocument(document)
        try generator.indexText(text)
        try document.setData(text)
        try document.setValue(slot: 0, string: text)
        try writer.replaceDocument(uniqueTerm: "Qmüller-日本", document: document)
        try writer.setMetadata(text, forKey: "schlüssel")
        try writer.commit()

        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianQueryParser(language: "german", stopwords: .none)
        for query in ["müller", "MÜLLER", "straße", "日本語"] {
            let results = try database.search(parser.parse(query))
            #expect(results.hits.count == 1, "\(query)")
            #expect(String(decoding: try #require(results.hits.first).data, as: UTF8.self) == text, "\(query)")
        }
        let results = try database.search(parser.parse("müller"))
        #expect(try results.snippet(for: text, language: "german", highlightStart: "«", highlightEnd: "»")
            == "«Müller» Straße 日本語")
        #expect(try database.metadata(forKey: "schlüssel") == text)
        #expect(try database.documentData(uniqueTerm: "Qmüller-日本") == Data(text.utf8))
        #expect(try document.value(slot: 0) == Array(text.utf8))
    }

    @Test func replacingByUniqueTermLeavesOneDocumentAndDeletingRemovesIt() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let generator = try XapianTermGenerator()
        for version in ["first draft", "second draft", "final text"] {
            let document = try XapianDocument()
            try generator.startDocument(document)
            try generator.indexText(version)
            try document.setData(version)
            try writer.replaceDocument(uniqueTerm: "Qdoc", document: document)
        }
        #expect(try writer.documentCount() == 1)
        #expect(try writer.documentData(uniqueTerm: "Qdoc") == Data("final text".utf8))
        try writer.commit()

        let database = try XapianDatabase(path: directory.database())
        #expect(try database.search(XapianQuery.term("Zdraft")).hits.isEmpty)
        #expect(try database.search(XapianQuery.term("Zfinal")).hits.count == 1)

        try writer.deleteDocument(uniqueTerm: "Qdoc")
        try writer.deleteDocument(uniqueTerm: "Qnever-existed")
        try writer.commit()
        try database.reopen()
        #expect(try database.documentCount() == 0)
        #expect(try database.documentData(uniqueTerm: "Qdoc") == nil)
    }

    @Test func positionsDecideWhetherPhrasesMatch() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let generator = try XapianTermGenerator(language: "english", stopwords: .none)
        for (id, positions) in [("with", true), ("without", false)] {
            let document = try XapianDocument()
            try generator.startDocument(document)
            try generator.indexText("quick brown fox", positions: positions)
            try generator.increaseTermPosition()
            try generator.indexText("jumps high", positions: positions)
            try document.setData(id)
            try writer.replaceDocument(uniqueTerm: "Q" + id, document: document)
        }
        try writer.commit()
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianQueryParser(language: "english", stopwords: .none)
        #expect(names(try database.search(parser.parse("\"brown fox\""))) == ["with"])
        // The gap left by increaseTermPosition keeps phrases from spanning fields.
        #expect(names(try database.search(parser.parse("\"fox jumps\""))).isEmpty)
        #expect(Set(names(try database.search(parser.parse("fox jumps")))) == ["with", "without"])
    }

    @Test func weightsAndPrefixesAreSearchable() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        // "grep" appears in grep's name (weight 4) and summary; only the name field matches name:grep.
        #expect(names(try database.search(parser.parse("name:grep"))) == ["grep"])
        #expect(names(try database.search(parser.parse("name:editor"))).isEmpty)
        #expect(try database.termFrequency("XNAMEvim") == 1)
        let document = try XapianDocument()
        try document.addTerm("extra", wdfIncrement: 3)
        try document.addBooleanTerm("Kflag")
        #expect(try document.termCount() == 2)
    }
}

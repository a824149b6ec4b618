import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

/// `writeDocument(uniqueTerm:document:spellingWords:slot:fresh:)`: each document records its spelling words and a
/// digest, so the spelling table gets differences only and an identical document is not written again.
@Suite("Xapian document record", .blockingWork)
struct XapianDocumentRecordTests {
    /// A document with `text` indexed (its words counted as spelling words), `value` in slot 3 and `data`.
    private func document(_ text: String, value: String = "v", data: String = "d",
                          words: XapianSpellingWords) throws -> XapianDocument {
        let document = try XapianDocument()
        let generator = try XapianTermGenerator()
        try generator.startDocument(document)
        try words.removeAll()
        try generator.indexField(text, weight: 2, positions: true, countingSpellingInto: words)
        try document.setValue(slot: 3, string: value)
        try document.setData(data)
        return document
    }

    @Test("a document equal in terms, positions, values and data is not written again; any difference is")
    func identicalDocumentsAreSkipped() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let words = try XapianSpellingWords()
        func write(_ text: String, value: String = "v", data: String = "d") throws -> Bool {
            try writer.writeDocument(uniqueTerm: "Qa", document: document(text, value: value, data: data, words: words),
                                     spellingWords: words, slot: 0, fresh: false)
        }
        #expect(try write("quick brown fox"))
        #expect(try !write("quick brown fox"))
        try writer.commit()
        #expect(try !write("quick brown fox"), "after a commit too")
        #expect(try write("brown quick fox"), "same terms and wdf, other positions")
        #expect(try write("brown quick fox", value: "w"), "another value")
        #expect(try write("brown quick fox", value: "w", data: "e"), "other data")
        #expect(try !write("brown quick fox", value: "w", data: "e"))
        #expect(try writer.documentCount() == 1)
        #expect(try writer.documentData(uniqueTerm: "Qa") == Data("e".utf8))
    }

    @Test("replacing and deleting take the recorded words out of the spelling table; counts are occurrences")
    func spellingDifferences() throws {
        let directory = try XapianTestDirectory()
        let writer = try XapianWritableDatabase(path: directory.database(), noSync: true)
        let words = try XapianSpellingWords()
        try writer.writeDocument(uniqueTerm: "Qa", document: document("apple apple pear", words: words),
                                 spellingWords: words, slot: 0, fresh: true)
        try writer.writeDocument(uniqueTerm: "Qb", document: document("pear plum", words: words),
                                 spellingWords: words, slot: 0, fresh: false)
        try writer.commit()
        #expect(try XapianDatabase(path: directory.database()).spellings() == ["apple": 2, "pear": 2, "plum": 1])
        try writer.writeDocument(uniqueTerm: "Qa", document: document("pear quince", words: words),
                                 spellingWords: words, slot: 0, fresh: false)
        try writer.deleteDocument(uniqueTerm: "Qb", spellingSlot: 0)
        try writer.deleteDocument(uniqueTerm: "Qnone", spellingSlot: 0)
        try writer.commit()
        #expect(try XapianDatabase(path: directory.database()).spellings() == ["pear": 1, "quince": 1])
        #expect(try writer.documentCount() == 1)
    }
}

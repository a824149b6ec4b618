import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

/// `writeDocument(uniqueTerm:document:spellingWords:slot:fresh:)`: each document records its spelling words and
/// digests, so the spelling table gets differences only, an identical document is not written again, and a document
/// whose terms did not change is rewritten without them.
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

    @Test("the record names no word: it holds counts of the document's own terms, and the term list gives the words back")
    func recordsHoldCounts() throws {
        let directory = try XapianTestDirectory()
        let path = directory.database()
        let writer = try XapianWritableDatabase(path: path, noSync: true)
        let words = try XapianSpellingWords()
        let text = "internationalisation internationalisation characteristically incomprehensibilities"
        try writer.writeDocument(uniqueTerm: "Qa", document: document(text, words: words),
                                 spellingWords: words, slot: 0, fresh: true)
        try writer.commit()
        let record = try stored(path).value(slot: 0)
        #expect(record.first == 3)
        // The format byte, two 16-byte digests, then the counts: a run of 2 terms fed once, a count of 2 (as 1), a
        // final run of none: 3 bytes however long the words.
        #expect(record.count == 1 + 32 + 3, "\(record.count) bytes")
        #expect(Array(record.suffix(3)) == [2, 1, 0])
        #expect(try XapianDatabase(path: path).spellings() == ["characteristically": 1, "incomprehensibilities": 1,
                                                                "internationalisation": 2])
        try writer.writeDocument(uniqueTerm: "Qa", document: document("internationalisation", words: words),
                                 spellingWords: words, slot: 0, fresh: false)
        try writer.commit()
        #expect(try XapianDatabase(path: path).spellings() == ["internationalisation": 1])
    }

    @Test("words counted that are not terms of the document are recorded spelled out, and taken out again")
    func wordsBesideTheTerms() throws {
        let directory = try XapianTestDirectory()
        let path = directory.database()
        let writer = try XapianWritableDatabase(path: path, noSync: true)
        let words = try XapianSpellingWords()
        // Words counted from one text, written with a document of another: "apple" is a term of both.
        _ = try document("apple quince zucchini", words: words)
        let other = try XapianDocument()
        let generator = try XapianTermGenerator()
        try generator.startDocument(other)
        try generator.indexField("apple banana", weight: 1, positions: true, countingSpellingInto: nil)
        try writer.writeDocument(uniqueTerm: "Qa", document: other, spellingWords: words, slot: 0, fresh: true)
        try writer.commit()
        #expect(try XapianDatabase(path: path).spellings() == ["apple": 1, "quince": 1, "zucchini": 1])
        let again = try XapianDocument()
        try generator.startDocument(again)
        try generator.indexField("apple banana", weight: 1, positions: true, countingSpellingInto: nil)
        #expect(try !writer.writeDocument(uniqueTerm: "Qa", document: again, spellingWords: words, slot: 0, fresh: false),
                "the same terms and words: not written again")
        try writer.writeDocument(uniqueTerm: "Qa", document: document("banana", words: words),
                                 spellingWords: words, slot: 0, fresh: false)
        try writer.commit()
        #expect(try XapianDatabase(path: path).spellings() == ["banana": 1])
        try writer.deleteDocument(uniqueTerm: "Qa", spellingSlot: 0)
        try writer.commit()
        #expect(try XapianDatabase(path: path).spellings().isEmpty)
    }

    /// The stored copy of the document with `term` in the database at `path`.
    private func stored(_ path: String, _ term: String = "Qa") throws -> XapianDocument {
        try #require(try XapianDatabase(path: path).document(uniqueTerm: term), "no document \(term)")
    }

    /// Expects the documents with `term` in the databases at `path` and `reference` to hold the same terms (wdf,
    /// positions), values and data.
    private func expectSameDocument(_ path: String, _ reference: String, _ term: String = "Qa",
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let document = try stored(path, term), expected = try stored(reference, term)
        #expect(try document.terms() == expected.terms(), sourceLocation: sourceLocation)
        for slot: UInt32 in [0, 3] {
            #expect(try document.value(slot: slot) == expected.value(slot: slot), "slot \(slot)", sourceLocation: sourceLocation)
        }
        #expect(try document.data() == expected.data(), sourceLocation: sourceLocation)
    }

    @Test("a document whose terms did not change is rewritten as a whole document written afresh would be",
          arguments: [false, true])
    func unchangedTermsKeepTheirPositions(committedFirst: Bool) throws {
        let directory = try XapianTestDirectory()
        let updated = directory.database("updated"), reference = directory.database("reference")
        let writer = try XapianWritableDatabase(path: updated, noSync: true)
        let words = try XapianSpellingWords()
        func write(_ writer: XapianWritableDatabase, _ term: String, _ text: String, value: String, data: String,
                   fresh: Bool = false) throws -> Bool {
            try writer.writeDocument(uniqueTerm: term, document: document(text, value: value, data: data, words: words),
                                     spellingWords: words, slot: 0, fresh: fresh)
        }
        #expect(try write(writer, "Qa", "the quick brown fox jumps over the quick dog", value: "v", data: "d"))
        #expect(try write(writer, "Qb", "pear plum", value: "v", data: "d"))
        if committedFirst { try writer.commit() }
        #expect(try write(writer, "Qa", "the quick brown fox jumps over the quick dog", value: "w", data: "e"),
                "another value and data, the same text")
        #expect(try write(writer, "Qb", "pear plum quince", value: "v", data: "d"), "other text beside it")
        #expect(try !write(writer, "Qa", "the quick brown fox jumps over the quick dog", value: "w", data: "e"))
        try writer.commit()

        let fresh = try XapianWritableDatabase(path: reference, noSync: true)
        #expect(try write(fresh, "Qa", "the quick brown fox jumps over the quick dog", value: "w", data: "e", fresh: true))
        #expect(try write(fresh, "Qb", "pear plum quince", value: "v", data: "d", fresh: true))
        try fresh.commit()

        try expectSameDocument(updated, reference, "Qa")
        try expectSameDocument(updated, reference, "Qb")
        #expect(try stored(updated).data() == Data("e".utf8))
        #expect(try stored(updated).value(slot: 3) == Array("w".utf8))
        let database = try XapianDatabase(path: updated), expected = try XapianDatabase(path: reference)
        #expect(try database.spellings() == expected.spellings())
        for term in ["quick", "Zquick", "dog", "plum", "quince", "Qa"] {
            #expect(try database.termFrequency(term) == expected.termFrequency(term), "\(term)")
        }
        #expect(try database.documentCount() == 2)
    }

    @Test("a value taken away, the data emptied: the terms stay, the rest follows the new document")
    func valuesAndDataRemoved() throws {
        let directory = try XapianTestDirectory()
        let path = directory.database()
        let writer = try XapianWritableDatabase(path: path, noSync: true)
        let words = try XapianSpellingWords()
        try writer.writeDocument(uniqueTerm: "Qa", document: document("apple pear", value: "v", data: "d", words: words),
                                 spellingWords: words, slot: 0, fresh: false)
        try writer.commit()
        let before = try stored(path).terms()
        let bare = try document("apple pear", words: words)
        try bare.setValue(slot: 3, string: "")
        try bare.setData("")
        #expect(try writer.writeDocument(uniqueTerm: "Qa", document: bare, spellingWords: words, slot: 0, fresh: false))
        try writer.commit()
        #expect(try stored(path).terms() == before)
        #expect(try stored(path).value(slot: 3).isEmpty)
        #expect(try stored(path).data().isEmpty)
        #expect(try XapianDatabase(path: path).spellings() == ["apple": 1, "pear": 1])
    }

    /// A record as versions writing index format 6 wrote it: format byte 1, one 16-byte digest, the words.
    private func formatOneRecord(_ words: [String: Int]) -> [UInt8] {
        func varint(_ value: Int) -> [UInt8] {
            var value = UInt64(value), out: [UInt8] = []
            while value >= 0x80 { out.append(UInt8(value & 0x7f) | 0x80); value >>= 7 }
            return out + [UInt8(value)]
        }
        var record: [UInt8] = [1] + Array(repeating: 0xab, count: 16)
        for (word, count) in words.sorted(by: { $0.key < $1.key }) {
            record += varint(word.utf8.count) + Array(word.utf8) + varint(count)
        }
        return record
    }

    @Test("a record written before (one digest) gives its words back; the document is then rewritten whole")
    func formatOneRecordsAreRead() throws {
        let directory = try XapianTestDirectory()
        let path = directory.database()
        let writer = try XapianWritableDatabase(path: path, noSync: true)
        let words = try XapianSpellingWords()
        try writer.writeDocument(uniqueTerm: "Qa", document: document("apple apple pear", words: words),
                                 spellingWords: words, slot: 0, fresh: true)
        // The same document with the record an older version wrote (its words are the ones in the table).
        let older = try document("apple apple pear", words: words)
        try older.addBooleanTerm("Qa")
        try older.setValue(slot: 0, bytes: formatOneRecord(["apple": 2, "pear": 1]))
        _ = try writer.replaceDocument(uniqueTerm: "Qa", document: older)
        try writer.commit()
        #expect(try stored(path).value(slot: 0).first == 1)

        #expect(try writer.writeDocument(uniqueTerm: "Qa", document: document("apple apple pear", data: "e", words: words),
                                         spellingWords: words, slot: 0, fresh: false))
        try writer.commit()
        #expect(try stored(path).value(slot: 0).first == 3, "rewritten with this version's record")
        #expect(try XapianDatabase(path: path).spellings() == ["apple": 2, "pear": 1])
        try writer.writeDocument(uniqueTerm: "Qa", document: document("pear plum", words: words),
                                 spellingWords: words, slot: 0, fresh: false)
        try writer.commit()
        #expect(try XapianDatabase(path: path).spellings() == ["pear": 1, "plum": 1])
    }

    @Test("a document read back from a database is a copy: it outlives the database, and a missing term gives nil")
    func documentCopies() throws {
        let directory = try XapianTestDirectory()
        let path = directory.database()
        let writer = try XapianWritableDatabase(path: path, noSync: true)
        let words = try XapianSpellingWords()
        let written = try document("brown fox", value: "v", data: "d", words: words)
        try writer.writeDocument(uniqueTerm: "Qa", document: written, spellingWords: words, slot: 0, fresh: true)
        try writer.commit()
        let database = try XapianDatabase(path: path)
        #expect(try database.document(uniqueTerm: "Qmissing") == nil)
        let copy = try #require(try database.document(uniqueTerm: "Qa"))
        try database.close()
        #expect(try copy.terms().map { String(decoding: $0.bytes, as: UTF8.self) } == ["Qa", "Zbrown", "Zfox", "brown", "fox"])
        #expect(try copy.terms().first { $0.bytes == Array("fox".utf8) }?.positions == [2])
        #expect(try copy.data() == Data("d".utf8))
        #expect(try copy.value(slot: 3) == Array("v".utf8))
    }

    /// Values and data alone, as the indexer builds them for a record whose terms did not change.
    private func rest(value: String, data: String) throws -> XapianDocument {
        let document = try XapianDocument()
        if !value.isEmpty { try document.setValue(slot: 3, string: value) }
        try document.setData(data)
        return document
    }

    @Test("values and data written over a document keep its terms and words; without this version's record, the whole document is asked for")
    func restWrites() throws {
        let directory = try XapianTestDirectory()
        let path = directory.database(), reference = directory.database("reference")
        let writer = try XapianWritableDatabase(path: path, noSync: true)
        let words = try XapianSpellingWords()
        #expect(try writer.writeDocumentRest(uniqueTerm: "Qa", document: rest(value: "w", data: "e"), slot: 0) == .needsWholeDocument,
                "no document")
        try writer.writeDocument(uniqueTerm: "Qa", document: document("the quick brown fox", words: words),
                                 spellingWords: words, slot: 0, fresh: true)
        try writer.commit()
        let record = try stored(path).value(slot: 0)
        #expect(try writer.writeDocumentRest(uniqueTerm: "Qa", document: rest(value: "v", data: "d"), slot: 0) == .unchanged)
        #expect(try writer.writeDocumentRest(uniqueTerm: "Qa", document: rest(value: "w", data: "e"), slot: 0) == .written)
        try writer.commit()
        #expect(try stored(path).value(slot: 0) != record, "the record holds the new values' digest")
        #expect(try Array(stored(path).value(slot: 0).prefix(17)) == Array(record.prefix(17)), "and the same terms digest")
        let fresh = try XapianWritableDatabase(path: reference, noSync: true)
        try fresh.writeDocument(uniqueTerm: "Qa", document: document("the quick brown fox", value: "w", data: "e", words: words),
                                spellingWords: words, slot: 0, fresh: true)
        try fresh.commit()
        try expectSameDocument(path, reference)
        #expect(try XapianDatabase(path: path).spellings() == XapianDatabase(path: reference).spellings())
        #expect(try XapianDatabase(path: path).spellings()["quick"] == 1)
        // The whole document with the same text and values is now recognised as the one stored.
        #expect(try !writer.writeDocument(uniqueTerm: "Qa", document: document("the quick brown fox", value: "w", data: "e", words: words),
                                          spellingWords: words, slot: 0, fresh: false))

        // A record an older version wrote, and a term two documents carry: written whole.
        let older = try document("pear", words: words)
        try older.addBooleanTerm("Qb")
        try older.setValue(slot: 0, bytes: formatOneRecord(["pear": 1]))
        _ = try writer.replaceDocument(uniqueTerm: "Qb", document: older)
        #expect(try writer.writeDocumentRest(uniqueTerm: "Qb", document: rest(value: "w", data: "e"), slot: 0) == .needsWholeDocument)
        let twin = try document("plum", words: words)
        try twin.addBooleanTerm("Qa")
        _ = try writer.addDocument(uniqueTerm: "Qa", document: twin)
        #expect(try writer.writeDocumentRest(uniqueTerm: "Qa", document: rest(value: "x", data: "f"), slot: 0) == .needsWholeDocument)
        try writer.commit()
        #expect(try stored(path, "Qb").data() == Data("d".utf8), "nothing written")
    }
}

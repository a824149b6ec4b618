import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

/// `indexField(_:weight:prefix:positions:countingSpellingInto:)` tokenises a field once and writes the unprefixed
/// and prefixed copies itself: its documents must be exactly those of Xapian's two `index_text` calls, and its
/// spelling words exactly what Xapian's own spelling flag adds.
@Suite("Xapian field indexing", .blockingWork)
struct XapianFieldIndexingTests {
    static let texts = [
        "The quick brown foxes were jumping over the lazy dogs, and the dogs kept sleeping",
        "Capitalised Words Stay Unstemmed while running words are stemmed: Running running ran",
        "東京タワーは高いです Tokyo tower 日本の首都 한국어 텍스트",
        "version 2.0.1 (x86_64) C++ e-mail user@example.org 3.14159 -- 'quoted' \"double\"",
        "zebra zoo Zulu zest: words starting with z, like the Z in stemmed terms",
        "Crème brûlée à Zürich, naïve café; ΑΒΓ αβγ Straße STRASSE",
        String(repeating: "a", count: 70) + " short " + String(repeating: "b", count: 64),
        "repeat repeat repeat repeat the the the of of a",
        "   ",
        "single",
    ]

    /// The document and the term position after indexing `fields` into a fresh document, each field either with
    /// `indexField` or with Xapian's two `index_text` calls, fields separated as the document builder does.
    private func build(_ fields: [String], weight: UInt32, prefix: String, positions: Bool, onePass: Bool,
                       language: String? = "english", rememberedStems: Int = 0) throws
        -> (terms: [XapianDocument.Term], position: UInt32)
    {
        let generator = try XapianTermGenerator(language: language, rememberedStems: rememberedStems)
        let document = try XapianDocument()
        try generator.startDocument(document)
        for text in fields {
            if onePass {
                try generator.indexField(text, weight: weight, prefix: prefix, positions: positions)
            } else {
                try generator.indexText(text, weight: weight, positions: positions)
                if !prefix.isEmpty { try generator.indexText(text, weight: 1, prefix: prefix, positions: positions) }
            }
            try generator.startNextField()
        }
        return (try document.terms(), try generator.termPosition())
    }

    @Test("one pass writes the same terms, wdf and positions as an unprefixed and a prefixed index_text",
          arguments: [UInt32(1), 3], [true, false])
    func sameDocument(weight: UInt32, positions: Bool) throws {
        for prefix in ["", "XTNAME:", "S"] {
            for text in Self.texts {
                let twoCalls = try build([text], weight: weight, prefix: prefix, positions: positions, onePass: false)
                let onePass = try build([text], weight: weight, prefix: prefix, positions: positions, onePass: true)
                #expect(onePass.terms == twoCalls.terms, "\(text) prefix \(prefix)")
                #expect(onePass.position == twoCalls.position, "\(text) prefix \(prefix)")
            }
            // Several fields in one document: positions continue from wherever the previous field left them.
            let twoCalls = try build(Self.texts, weight: weight, prefix: prefix, positions: positions, onePass: false)
            let onePass = try build(Self.texts, weight: weight, prefix: prefix, positions: positions, onePass: true)
            #expect(onePass.terms == twoCalls.terms, "all fields, prefix \(prefix)")
            #expect(onePass.position == twoCalls.position)
            #expect(onePass.terms.contains { $0.bytes.starts(with: Array("Z\(prefix)".utf8)) && !prefix.isEmpty }
                        || prefix.isEmpty, "stems get the prefix after their Z")
        }
    }

    @Test("without a stemmer the copies are the same too")
    func sameDocumentUnstemmed() throws {
        let twoCalls = try build(Self.texts, weight: 2, prefix: "XTD:", positions: true, onePass: false, language: nil)
        let onePass = try build(Self.texts, weight: 2, prefix: "XTD:", positions: true, onePass: true, language: nil)
        #expect(onePass.terms == twoCalls.terms)
        #expect(!onePass.terms.contains { $0.bytes.first == UInt8(ascii: "Z") })
    }

    @Test("remembering stems changes no term, however few are remembered", arguments: [8, 65_536])
    func rememberedStemsChangeNothing(capacity: Int) throws {
        for language in ["english", "german", "french"] {
            // Twice over, so that the second time finds the words remembered (or forgotten, with room for eight).
            let fields = Self.texts + Self.texts
            let plain = try build(fields, weight: 2, prefix: "XTD:", positions: true, onePass: true, language: language)
            let remembering = try build(fields, weight: 2, prefix: "XTD:", positions: true, onePass: true,
                                        language: language, rememberedStems: capacity)
            #expect(remembering.terms == plain.terms, "\(language)")
            #expect(plain.terms.contains { $0.bytes.first == UInt8(ascii: "Z") }, "stems were made")
        }
        engineFailure { _ = try XapianTermGenerator(language: "klingon", rememberedStems: 8) }
    }

    @Test("the spelling words counted are the words Xapian's spelling flag adds, once per occurrence")
    func spellingWordsMatchXapian() throws {
        for prefix in ["XTNAME:", ""] { try spellingWordsMatchXapian(prefix: prefix) }
    }

    private func spellingWordsMatchXapian(prefix: String) throws {
        let directory = try XapianTestDirectory()
        let flagged = try XapianWritableDatabase(path: directory.database("flag\(prefix)"), noSync: true)
        let counted = try XapianWritableDatabase(path: directory.database("counted\(prefix)"), noSync: true)
        let flagGenerator = try XapianTermGenerator()
        let generator = try XapianTermGenerator()
        let words = try XapianSpellingWords()
        for (index, text) in Self.texts.enumerated() {
            let flaggedDocument = try XapianDocument()
            try flagGenerator.startDocument(flaggedDocument)
            try flagGenerator.setSpellingDatabase(nil)
            try flagGenerator.indexText("running words before", weight: 1)
            try flagGenerator.startNextField()
            try flagGenerator.setSpellingDatabase(flagged)
            try flagGenerator.indexText(text, weight: 3)
            if !prefix.isEmpty { try flagGenerator.indexText(text, weight: 1, prefix: prefix) }
            try flagged.addDocument(uniqueTerm: "Q\(index)", document: flaggedDocument)

            let document = try XapianDocument()
            try generator.startDocument(document)
            try words.removeAll()
            // A field before, so that counting starts from a document holding words already.
            try generator.indexField("running words before", weight: 1, positions: true)
            try generator.startNextField()
            try words.removeAll()
            try generator.indexField(text, weight: 3, prefix: prefix, positions: true, countingSpellingInto: words)
            try counted.writeDocument(uniqueTerm: "Q\(index)", document: document, spellingWords: words, slot: 0,
                                      fresh: true)
        }
        try flagged.commit()
        try counted.commit()
        let expected = try XapianDatabase(path: directory.database("flag\(prefix)")).spellings()
        #expect(expected["running"] == 3, "the texts above say running three times")
        #expect(try XapianDatabase(path: directory.database("counted\(prefix)")).spellings() == expected, "\(prefix)")
    }

    @Test("a weight of 0 is refused before the document or the term position change")
    func zeroWeightRefused() throws {
        let generator = try XapianTermGenerator()
        let document = try XapianDocument()
        try generator.startDocument(document)
        try generator.indexField("first field", weight: 1, positions: true)
        let before = (try document.terms(), try generator.termPosition())
        engineFailure {
            try generator.indexField("second field", weight: 0, prefix: "S", positions: true)
        }
        #expect(try document.terms() == before.0)
        #expect(try generator.termPosition() == before.1)
        try generator.indexField("third", weight: 1, positions: true)
        #expect(try document.terms().contains { $0.bytes == Array("third".utf8) }, "the generator still works")
    }
}

import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

@Suite("Xapian search", .blockingWork)
struct XapianSearchTests {
    private func sampleDatabase(_ directory: XapianTestDirectory) throws -> XapianDatabase {
        try XapianSamplePackage.buildIndex(at: directory.database())
        return try XapianDatabase(path: directory.database())
    }

    @Test func resultsSortByANumberValueBothWays() throws {
        let directory = try XapianTestDirectory()
        let database = try sampleDatabase(directory)
        let all = try XapianQuery.matchAll()
        let bySize = XapianSamplePackage.all.sorted { $0.size < $1.size }.map(\.name)
        let ascending = try database.search(all, sort: .valueAscending(slot: XapianSamplePackage.slotSize))
        #expect(names(ascending) == bySize)
        let descending = try database.search(all, sort: .valueDescending(slot: XapianSamplePackage.slotSize))
        #expect(names(descending) == bySize.reversed())
        let byDate = try database.search(all, sort: .valueDescending(slot: XapianSamplePackage.slotReleased))
        #expect(names(byDate).first == "vim")
        #expect(names(byDate).last == "coreutils")
    }

    @Test func offsetAndLimitPageThroughResults() throws {
        let directory = try XapianTestDirectory()
        let database = try sampleDatabase(directory)
        let all = try XapianQuery.matchAll()
        let sort = XapianSort.valueAscending(slot: XapianSamplePackage.slotSize)
        let first = try database.search(all, offset: 0, limit: 2, sort: sort)
        let second = try database.search(all, offset: 2, limit: 2, sort: sort)
        let third = try database.search(all, offset: 4, limit: 2, sort: sort)
        #expect(first.hits.count == 2 && second.hits.count == 2 && third.hits.count == 1)
        #expect(second.hits.map(\.rank) == [2, 3])
        #expect(names(first) + names(second) + names(third) == XapianSamplePackage.all.sorted { $0.size < $1.size }.map(\.name))
        #expect(first.estimatedTotal == 5)
        #expect(first.totalBounds.contains(5))
        let error = try #require(engineFailure { _ = try database.search(all, limit: -1) })
        #expect(error.code == .invalidArgument)
    }

    @Test func facetCountsAreExactWhenEveryMatchIsChecked() throws {
        let directory = try XapianTestDirectory()
        let database = try sampleDatabase(directory)
        let count = try database.documentCount()
        let results = try database.search(
            XapianQuery.matchAll(), limit: 1, checkAtLeast: count, facetSlots: [XapianSamplePackage.slotSection])
        #expect(results.hits.count == 1)
        #expect(results.facets[XapianSamplePackage.slotSection] == ["editors": 2, "utils": 2, "text": 1])
        let parser = try XapianSamplePackage.parser(for: database)
        let gnu = try database.search(
            parser.parse("gnu"), limit: 10, checkAtLeast: count, facetSlots: [XapianSamplePackage.slotSection, 9])
        #expect(gnu.facets[XapianSamplePackage.slotSection] == ["utils": 2])
        #expect(gnu.facets[9] == [:])
    }

    @Test func bm25ParametersChangeTheWeights() throws {
        let directory = try XapianTestDirectory()
        let database = try sampleDatabase(directory)
        let parser = try XapianSamplePackage.parser(for: database)
        let query = try parser.parse("text editor")
        let standard = try database.search(query)
        let explicitDefaults = try database.search(query, bm25: XapianBM25())
        #expect(standard.hits.map(\.weight) == explicitDefaults.hits.map(\.weight))
        let flat = try database.search(query, bm25: XapianBM25(k1: 0, k2: 0, k3: 1, b: 0, minNormalisedLength: 0.5))
        #expect(flat.hits.map(\.weight) != standard.hits.map(\.weight))
        #expect(Set(names(flat)) == Set(names(standard)))
    }

    @Test func snippetsEscapeHtmlAndHighlightStemmedMatches() throws {
        let directory = try XapianTestDirectory()
        let database = try sampleDatabase(directory)
        let parser = try XapianSamplePackage.parser(for: database)
        let results = try database.search(parser.parse("editing"))
        let snippet = try results.snippet(
            for: "Editors <b>edit</b> & editing is what editors do", length: 200,
            highlightStart: "<mark>", highlightEnd: "</mark>")
        #expect(snippet.contains("&lt;b&gt;"))
        #expect(snippet.contains("&amp;"))
        #expect(snippet.contains("<mark>editing</mark>"))
        let unstemmed = try results.snippet(for: "editing", language: nil, highlightStart: "[", highlightEnd: "]")
        // Without the query's stemmer the stemmed query term does not match the word.
        #expect(unstemmed == "editing")
        let long = String(repeating: "filler words here. ", count: 100) + "editing" + String(repeating: " more", count: 100)
        let short = try results.snippet(for: long, length: 60, omission: "…")
        #expect(short.contains("<b>editing</b>"))
        #expect(short.hasSuffix("…"))
        #expect(short.utf8.count < long.utf8.count / 4)
    }

    @Test func aRememberingStemmerKeepsEveryWordsStemThroughCollisionsRestartsAndLongWords() throws {
        // Many words (so that the index's slots collide and the memory fills and starts again several times),
        // words whose stems differ from one another by a letter, and words too long to be remembered.
        var words: [String] = []
        for index in 0..<3000 {
            let root = "w\(String(index, radix: 36))"
            words += [root + "ing", root + "ed", root + "s", root + "ies", root + "ational"]
        }
        words += ["internationalisations", "antidisestablishmentarianism", String(repeating: "longword", count: 8),
                  String(repeating: "é", count: 40) + "ing", "x", "ing", "s"]
        let plain = try XapianStemmer(language: "english", capacity: 0)
        let expected = try words.map { try plain.stem($0) }
        for capacity in [1, 7, 1000, XapianStemmer.defaultCapacity] {
            let stemmer = try XapianStemmer(language: "english", capacity: capacity)
            for pass in 0..<2 {
                let stems = try words.map { try stemmer.stem($0) }
                #expect(stems == expected, "capacity \(capacity), pass \(pass)")
            }
            // Remembered words in another order give the same stems.
            #expect(try words.reversed().map { try stemmer.stem($0) } == expected.reversed(), "capacity \(capacity)")
        }
    }

    @Test func aRememberingStemmerGivesTheLanguagesStemsAndTheSameSnippets() throws {
        let directory = try XapianTestDirectory()
        let database = try sampleDatabase(directory)
        let parser = try XapianSamplePackage.parser(for: database)
        let results = try database.search(parser.parse("editing files"))
        let words = ["editing", "editors", "edited", "files", "filing", "running", "ran", "the", "", "Édition", "naïvety"]
        // The stems of a stemmer that remembers nothing are the language's: the reference for the others.
        let plain = try XapianStemmer(language: "english", capacity: 0)
        let expected = try words.map { try plain.stem($0) }
        #expect(expected[0] == "edit" && expected[3] == "file")
        // Asked twice (the second time from memory), and with a memory so small that it starts again.
        for capacity in [XapianStemmer.defaultCapacity, 2] {
            let stemmer = try XapianStemmer(language: "english", capacity: capacity)
            for _ in 0..<2 { #expect(try words.map { try stemmer.stem($0) } == expected, "capacity \(capacity)") }
        }
        let none = try XapianStemmer(language: nil)
        #expect(try words.map { try none.stem($0) } == words)
        engineFailure { _ = try XapianStemmer(language: "klingon") }

        let stemmer = try XapianStemmer(language: "english")
        let texts = ["Editors <b>edit</b> & editing is what editors do with files",
                     String(repeating: "filler words here. ", count: 100) + "editing files" + String(repeating: " more", count: 100),
                     "nothing matches here"]
        for _ in 0..<2 {
            for text in texts {
                let made = try results.snippet(for: text, length: 80, language: "english", backgroundModel: false)
                let kept = try results.snippet(for: text, length: 80, language: "english", backgroundModel: false,
                                               stemmer: stemmer)
                #expect(kept == made)
                #expect(text == texts[2] || kept.contains("<b>"))
            }
        }
    }
}

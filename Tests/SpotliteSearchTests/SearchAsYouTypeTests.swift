import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite
import SpotliteJSON

/// `SearchRequest.prefix` (the last word also matches as the start of words) and `[search] synonyms`.
@Suite("Search as you type and synonyms", .blockingWork)
struct SearchAsYouTypeTests {
    static let clickhouse = [
        SamplePackage(name: "clickhouse-server", summary: "column-oriented database system (server)",
                      description: "ClickHouse is a column-oriented database management system.", section: "database"),
        SamplePackage(name: "clickhouse-client", summary: "column-oriented database system (client)",
                      description: "ClickHouse is a column-oriented database management system.", section: "database"),
        SamplePackage(name: "click", summary: "Python composable command line toolkit",
                      description: "Click is a Python package for creating command line interfaces.", section: "python"),
    ]

    func prefixed(_ query: String, limit: Int = 10) -> SearchRequest {
        SearchRequest(query, entities: ["Package"], limit: limit, correctsSpelling: false, prefix: true)
    }

    @Test("the last word being typed finds the words it starts; without prefix it finds nothing")
    func completesLastWord() async throws {
        let fixture = try await SearchFixture(extraPackages: Self.clickhouse)
        #expect(try fixture.keys("clickh").isEmpty)
        let keys = try fixture.keys(prefixed("clickh"))
        #expect(Set(keys) == ["clickhouse-server", "clickhouse-client"])
        // Earlier words are whole words; only the last one is completed.
        #expect(try fixture.keys(prefixed("columnar clickh")).prefix(2).allSatisfy { $0.hasPrefix("clickhouse") })
        #expect(try fixture.keys(prefixed("clickh database")).allSatisfy { !$0.hasPrefix("click") || $0.hasPrefix("clickhouse") })
    }

    @Test("a word followed by a space is complete: it is not completed")
    func trailingSpaceEndsTheWord() async throws {
        let fixture = try await SearchFixture(extraPackages: Self.clickhouse)
        #expect(try fixture.keys(prefixed("clickh ")).isEmpty)
        #expect(try fixture.keys(prefixed("\"clickh\"")).isEmpty, "a quoted word is exact")
    }

    @Test("whole-word matches stay first among many completions")
    func wholeWordsFirst() async throws {
        // 40 packages whose names and summaries start with "vim" (vimfoo0 …): a flood of completions of "vim".
        let flood = (0..<40).map { index in
            SamplePackage(name: "vimaddon\(index)", summary: "vimaddon\(index) vimplugin\(index) for the editor",
                          description: "vimaddon\(index) vimscript\(index) vimfiles\(index)")
        }
        let fixture = try await SearchFixture(extraPackages: flood)
        let typed = try fixture.keys(prefixed("vim", limit: 5))
        #expect(typed.first == "vim", "\(typed)")
        #expect(try fixture.keys(SearchRequest("vim", entities: ["Package"], limit: 1, correctsSpelling: false)).first == "vim")
        // The completions are found too.
        #expect(try fixture.searcher.search(prefixed("vim", limit: 100)).total >= 41)
    }

    @Test("a one-letter word starting more words than any wildcard may expand to still answers")
    func shortWordManyCompletions() async throws {
        let many = (0..<1_200).map { SamplePackage(name: "pkg\($0)", summary: "cword\($0) tool") }
        let fixture = try await SearchFixture(extraPackages: many)
        let results = try fixture.searcher.search(prefixed("c", limit: 5))
        #expect(results.hits.count == 5)
    }

    func synonymFixture(_ synonyms: [String: [String]]) async throws -> (SearchFixture, IndexSearcher) {
        let fixture = try await SearchFixture()
        var configuration = fixture.sandbox.configuration
        configuration.synonyms = synonyms
        try configuration.validate(source: "test")
        return (fixture, try IndexSearcher(configuration: configuration, store: fixture.sandbox.store))
    }

    func keys(_ searcher: IndexSearcher, _ query: String, prefix: Bool = false) throws -> Set<String> {
        Set(try searcher.search(SearchRequest(query, entities: ["Package"], limit: 100, correctsSpelling: false,
                                              prefix: prefix)).hits.map(\.key.description))
    }

    @Test("a word finds its synonyms, in any case, without a rebuild")
    func wordSynonyms() async throws {
        let (fixture, searcher) = try await synonymFixture(["db": ["database"]])
        #expect(try fixture.keys("db").isEmpty, "the index has no word db")
        let databases: Set<String> = ["sqlite3", "postgresql", "xapian-tools"]
        #expect(try keys(searcher, "db") == databases)
        #expect(try keys(searcher, "DB") == databases)
        #expect(try keys(searcher, "+db") == databases)
        #expect(try keys(searcher, "vim -db").isDisjoint(with: databases))
        // As written: quoted, with a field prefix, or being typed.
        #expect(try keys(searcher, "\"db\"").isEmpty)
        #expect(try keys(searcher, "name:db").isEmpty)
        #expect(try keys(searcher, "db", prefix: true).isEmpty)
        #expect(try keys(searcher, "db ", prefix: true) == databases)
    }

    @Test("a phrase finds its synonyms, and a synonym may be a phrase")
    func phraseSynonyms() async throws {
        let (fixture, searcher) = try await synonymFixture(["word processor": ["editor"], "rdbms": ["sql database"]])
        #expect(try fixture.keys("word processor").isEmpty)
        #expect(try keys(searcher, "word processor") == ["vim", "nano", "gimp", "inkscape"])
        // "sql database" as a phrase: both packages have it; postgresql's summary and sqlite3's description.
        #expect(try keys(searcher, "rdbms") == ["sqlite3", "postgresql"])
        #expect(try keys(searcher, "word") .isEmpty, "one word of a phrase key is not the key")
    }

    @Test("--explain's data names the synonyms used and the completions of the word being typed")
    func explanation() async throws {
        let (fixture, searcher) = try await synonymFixture(["db": ["database"]])
        defer { withExtendedLifetime(fixture) {} }
        var request = SearchRequest("db edit", limit: 3, explains: true, prefix: true)
        let explanation = try #require(try searcher.search(request).explanation)
        #expect(explanation.synonyms == [QuerySynonyms.Use(words: "db", synonyms: ["database"])])
        #expect(explanation.typedWord == "edit")
        #expect(explanation.completions.contains("editor"))
        #expect(explanation.parsedQuery.contains("WILDCARD"), "\(explanation.parsedQuery)")
        request.prefix = false
        let plain = try #require(try searcher.search(request).explanation)
        #expect(plain.typedWord == nil && plain.completions.isEmpty)
        var json: [UInt8] = []
        try searcher.search(SearchRequest("db edit", limit: 1, explains: true, prefix: true)).appendJSON(to: &json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let explain = try #require(object["explain"] as? [String: Any])
        #expect(explain["typed_word"] as? String == "edit")
        #expect((explain["synonyms"] as? [[String: Any]])?.first?["words"] as? String == "db")
    }

    @Test("query text rewriting: groups, signs, brackets, case and the word being typed")
    func rewriting() {
        let synonyms = QuerySynonyms(["db": ["database", "data base"], "Text  Editor": ["editor"]])
        #expect(synonyms.applied(to: "db tools").text == "(db OR database OR \"data base\") tools")
        #expect(synonyms.applied(to: "+DB").text == "+(DB OR database OR \"data base\")")
        #expect(synonyms.applied(to: "(db OR x)").text == "((db OR database OR \"data base\") OR x)")
        #expect(synonyms.applied(to: "a text editor").text == "a ((text editor) OR editor)")
        #expect(synonyms.applied(to: "text -editor").uses.isEmpty, "a sign inside a phrase key breaks it")
        #expect(synonyms.applied(to: "name:db \"db\" db*").uses.isEmpty)
        #expect(synonyms.applied(to: "x db", sparingLastWord: true).uses.isEmpty)
        #expect(synonyms.applied(to: "db x", sparingLastWord: true).uses.map(\.words) == ["db"])
        #expect(QuerySynonyms.problem(withWords: "name:db") != nil)
        #expect(QuerySynonyms.problem(withWords: " ") != nil)
        #expect(QuerySynonyms.problem(withWords: "AND") != nil)
        #expect(QuerySynonyms.problem(withWords: "c++ x86-64") == nil)
    }

    @Test("[search] synonyms in the configuration file, and the errors naming a bad one")
    func configuration() throws {
        let text = """
            [search]
            synonyms = { db = ["database"], "text editor" = "editor" }
            """
        let configuration = try SpotliteConfiguration(tomlString: text, source: "s.toml", baseDirectory: "/b")
        #expect(configuration.synonyms == ["db": ["database"], "text editor": ["editor"]])
        #expect(configuration.indexFingerprint == SpotliteConfiguration().indexFingerprint, "synonyms need no rebuild")
        for (line, expected) in [
            ("synonyms = { \"name:db\" = [\"database\"] }", "search.synonyms.\"name:db\": the key \"name:db\" has"),
            ("synonyms = { db = [] }", "search.synonyms.db: expected an array of words or phrases"),
            ("synonyms = { db = [\"x*\"] }", "search.synonyms.db: the synonym \"x*\" has"),
            ("synonyms = { db = 3 }", "search.synonyms.db: expected an array of words or phrases"),
            ("synonyms = [\"db\"]", "search.synonyms: expected a table of words or phrases"),
        ] {
            let error = #expect(throws: ConfigurationError.self, "\(line)") {
                try SpotliteConfiguration(tomlString: "[search]\n\(line)\n", source: "s.toml", baseDirectory: "/b")
            }
            #expect(error?.description.hasPrefix("s.toml: " + expected) == true, "\(String(describing: error))")
        }
    }
}

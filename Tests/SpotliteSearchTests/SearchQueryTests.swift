import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// An index of the sample catalogue plus a second entity, built through the store and the indexer.
struct SearchFixture {
    static let entities = IndexerSandbox.packageEntity + """

        [entities.Note]
        key = "id"
        [entities.Note.fields]
        id = { type = "number" }
        title = { type = "text", weight = 3, store = true }
        body = { type = "text" }
        section = { type = "keyword", facet = true, store = true }
        """

    let sandbox: IndexerSandbox
    let searcher: IndexSearcher

    init(extraPackages: [SamplePackage] = [], notes: [(Int, String, String, String?)] = [
        (1, "Meeting notes", "We chose the vim editor for the team", "utils"),
        (2, "Shopping list", "milk, eggs and an editor for pictures", nil),
    ]) async throws {
        sandbox = try IndexerSandbox(entities: Self.entities)
        try sandbox.write(SamplePackage.catalogue + extraPackages)
        try sandbox.store.write(author: "app") { db in
            for note in notes {
                try db.execute(sql: "INSERT INTO Note (id, title, body, section) VALUES (?, ?, ?, ?)",
                               arguments: [note.0, note.1, note.2, note.3])
            }
        }
        try await sandbox.makeIndexer().update()
        searcher = try IndexSearcher(configuration: sandbox.configuration, store: sandbox.store)
    }

    /// The keys of the hits, as text, in order.
    func keys(_ request: SearchRequest) throws -> [String] {
        try searcher.search(request).hits.map(\.key.description)
    }

    func keys(_ query: String, entity: String = "Package") throws -> [String] {
        try keys(SearchRequest(query, entities: [entity], limit: 100, correctsSpelling: false))
    }

    func keySet(_ query: String, entity: String = "Package") throws -> Set<String> {
        Set(try keys(query, entity: entity))
    }

    /// Expects `query` to be refused as an invalid query, naming the query as written, for a reason starting with
    /// `expected`.
    func expectInvalidQuery(_ query: String, reasonStartingWith expected: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: SearchError.self, sourceLocation: sourceLocation) {
            try searcher.search(SearchRequest(query))
        }
        guard case let .invalidQuery(text, reason)? = error else {
            Issue.record("expected invalidQuery for \(query), got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(text == query, sourceLocation: sourceLocation)
        guard case let .refused(explanation) = reason else {
            Issue.record("expected Spotlite's refusal for \(query), got the engine's \(reason)", sourceLocation: sourceLocation)
            return
        }
        #expect(explanation.hasPrefix(expected), "\(explanation)", sourceLocation: sourceLocation)
    }
}

/// Xapian's query syntax through the query API: every feature, and clear errors for what cannot be parsed.
@Suite("Search queries", .blockingWork)
struct SearchQueryTests {
    @Test("words match any of their forms (stemming), case-insensitively")
    func words() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keySet("editor") == ["vim", "nano", "gimp", "inkscape"])
        #expect(try fixture.keySet("editors") == ["vim", "nano", "gimp", "inkscape"], "stemmed")
        #expect(try fixture.keySet("EDITOR") == ["vim", "nano", "gimp", "inkscape"])
        #expect(try fixture.keys("zzzunknown").isEmpty)
    }

    @Test("\"phrases\" match words in order")
    func phrases() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keys("\"text editor\"") == ["nano"])
        #expect(try fixture.keys("\"editor text\"").isEmpty)
        #expect(try fixture.keySet("text editor").isSuperset(of: ["nano", "vim", "coreutils"]))
    }

    @Test("AND, OR, NOT, brackets")
    func booleanOperators() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keys("editor AND picture") == ["gimp"])
        #expect(try fixture.keySet("pico OR relational") == ["nano", "postgresql"])
        #expect(try fixture.keySet("editor NOT vim") == ["nano", "gimp", "inkscape"])
        #expect(try fixture.keySet("(pico OR picture) AND editor") == ["nano", "gimp"])
    }

    @Test("+required and -excluded words")
    func loveHate() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keySet("+editor -gimp -inkscape") == ["vim", "nano"])
        #expect(try fixture.keys("+database +relational") == ["postgresql"])
    }

    @Test("the default operator joins plain words: OR by default, AND on request")
    func defaultOperator() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keySet("picture editor").count == 4)
        let and = SearchRequest("picture editor", entities: ["Package"], correctsSpelling: false, defaultOperator: .and)
        #expect(try fixture.keys(and) == ["gimp"])
    }

    @Test("trailing wildcards")
    func wildcards() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keys("postgre*") == ["postgresql"])
        #expect(try fixture.keySet("ink* OR xapi*") == ["inkscape", "xapian-tools"])
    }

    @Test("a wildcard expanding to more terms than the limit is an error, not a slow search")
    func wildcardLimit() async throws {
        let words = (0...IndexSearcher.wildcardLimit).map { String(format: "wq%05d", $0) }.joined(separator: " ")
        let fixture = try await SearchFixture(notes: [(1, "Many words", words, nil)])
        #expect(try fixture.keys("wq00001", entity: "Note") == ["1"])
        let error = #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest("wq*")) }
        guard case let .invalidQuery(query, reason)? = error else {
            Issue.record("expected invalidQuery, got \(String(describing: error))")
            return
        }
        #expect(query == "wq*")
        guard case let .syntax(message) = reason else {
            Issue.record("expected the engine's message, got \(reason)")
            return
        }
        #expect(message.contains("wq"), "Xapian's message names the wildcard: \(message)")
    }

    @Test("field prefixes search one text field")
    func fieldPrefixes() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keys("name:vim") == ["vim"])
        #expect(try fixture.keySet("vim").isSuperset(of: ["vim"]))
        #expect(try fixture.keySet("maintainer:jordi") == ["nano", "gimp"])
        #expect(try fixture.keys("maintainer:editor").isEmpty)
        #expect(try fixture.keys("name:\"xapian tools\"") == ["xapian-tools"])
    }

    @Test("keyword filters in the query: one field's values are alternatives, different fields all apply")
    func keywordFilters() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keySet("section:editors") == ["vim", "nano"])
        #expect(try fixture.keySet("editor section:graphics") == ["gimp", "inkscape"])
        #expect(try fixture.keySet("section:editors section:database") == ["vim", "nano", "sqlite3", "postgresql"])
        #expect(try fixture.keySet("tags:use::editing") == ["vim", "nano", "gimp"], "one of several values")
        #expect(try fixture.keySet("tags:use::editing section:graphics") == ["gimp"])
        #expect(try fixture.keys("section:nonexistent").isEmpty)
    }

    @Test("a keyword value ending in * matches every value starting with it (Xapian looked for the value \"use::*\")")
    func keywordWildcards() async throws {
        let fixture = try await SearchFixture()
        let editing = try fixture.keySet("tags:use::editing")
        let searching = try fixture.keySet("tags:use::searching")
        #expect(!editing.isEmpty && !searching.isEmpty)
        #expect(try fixture.keySet("tags:use::*") == editing.union(searching))
        #expect(try fixture.keySet("tags:use::edit*") == editing)
        #expect(try fixture.keySet("section:edit*") == fixture.keySet("section:editors"))
        #expect(try fixture.keySet("tags:works-with::* section:graphics") == ["gimp", "inkscape"])
        let editors = try fixture.keySet("editor")
        #expect(try fixture.keySet("editor -tags:use::*") == editors.subtracting(editing.union(searching)))
        #expect(try fixture.keys("tags:nothing-like-this*").isEmpty)
        #expect(try fixture.keySet("tags:*") == fixture.keySet(""), "every package here has tags")
        // The same through filters given beside the query.
        let filtered = try fixture.keys(SearchRequest("", entities: ["Package"], filters: [SearchFilter(field: "tags", value: "use::*")],
                                                      limit: 100, correctsSpelling: false))
        #expect(Set(filtered) == editing.union(searching))
    }

    @Test("a field written with capitals is an error naming the field as it is written, not a search for its words")
    func capitalisedField() async throws {
        let fixture = try await SearchFixture()
        for (query, expected) in [("Section:editors", "Section: is no field"), ("vim -NAME:vim", "NAME: is no field"),
                                  ("Size:1..2", "Size: is no field")] {
            fixture.expectInvalidQuery(query, reasonStartingWith: expected)
        }
        #expect(try fixture.keySet("Section:editors".lowercased()) == ["vim", "nano"])
        // Words with a colon that name no field in any case are words, as Xapian reads them.
        for query in ["std::string", "http://example.com", "Note:editor", "\"Section:editors\""] {
            #expect(throws: Never.self) { _ = try fixture.searcher.search(SearchRequest(query)) }
        }
    }

    @Test("a query that only excludes (-vim, NOT vim, -section:editors) finds every record but those (Xapian found them)")
    func onlyExclusions() async throws {
        let fixture = try await SearchFixture()
        let every = try fixture.keySet("")
        #expect(every.count > 4 && every.contains("vim"))
        for (query, excluded) in [("-vim", ["vim"]), ("NOT vim", ["vim"]), ("-vim -nano", ["vim", "nano"]),
                                  ("-section:editors", ["vim", "nano"]), ("-\"picture editor\"", ["gimp"]),
                                  ("-(vim OR gimp)", ["vim", "gimp"]), ("-name:vi*", ["vim"])] {
            #expect(try fixture.keySet(query) == every.subtracting(excluded), "\(query)")
        }
        #expect(try fixture.keySet("--level") == ["vim"] && (try fixture.keySet("level")) == ["vim"], "an option's name is a word, not an exclusion")
        // Beside a word that is not excluded, Xapian's reading stands: editors, but not vim.
        #expect(try fixture.keySet("editor -vim") == (try fixture.keySet("editor")).subtracting(["vim"]))
        #expect(try fixture.keys(SearchRequest("-vim", entities: ["Package"], filters: [SearchFilter(field: "section", value: "editors")])) == ["nano"])
        // Brackets holding only excluded words: Xapian parsed the text again as plain words ("and", vim, nano).
        for query in ["editor AND (-vim -nano)", "editor (-vim)", "-(-vim)", "vim NEAR"] {
            fixture.expectInvalidQuery(query, reasonStartingWith: "Xapian cannot read its operators and signs as written")
        }
        #expect(try fixture.keySet("editor AND NOT (vim OR nano)") == (try fixture.keySet("editor")).subtracting(["vim", "nano"]))
        for query in ["+vim", "e-mail", "\"vim AND nano\"", "vim NEAR/3 editor"] {
            #expect(throws: Never.self, "\(query)") { _ = try fixture.searcher.search(SearchRequest(query)) }
        }
    }

    @Test("a field that queries cannot name (text without a prefix, stored) is an error saying what to write instead")
    func unprefixedField() async throws {
        let fixture = try await SearchFixture()
        for (query, expected) in [
            ("summary:editor", "summary: cannot search the text field summary on its own: it has no prefix"),
            ("vim Summary:editor", "Summary: cannot search the text field summary on its own"),
            ("title:meeting", "title: cannot search the text field title on its own"),
            ("version:2.1", "version: names a stored field, which is returned with hits but not searched"),
        ] {
            fixture.expectInvalidQuery(query, reasonStartingWith: expected)
        }
        let phrase = #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest("description:\"text editor\" vim")) }
        guard case let .invalidQuery(query, .refused(explanation))? = phrase else {
            Issue.record("expected Spotlite's refusal, got \(String(describing: phrase))")
            return
        }
        #expect(query == "description:\"text editor\" vim")
        #expect(explanation.contains("search \"text editor\" in every field"), "\(explanation)")
        #expect(try fixture.keySet("summary editor").contains("vim"), "the words alone search every field")

        // A field whose prefix differs from its name is named by its prefix.
        let configuration = try SpotliteConfiguration(tomlString: """
            [entities.Note]
            key = "id"
            [entities.Note.fields]
            title = { type = "text", prefix = "t" }
            """, source: "test", baseDirectory: "/base")
        let schema = try IndexSchema(configuration: configuration)
        #expect(schema.prefixProblem(in: "title:meeting") == "title: is not how queries name the field title; its prefix is t: write t:meeting")
        #expect(schema.prefixProblem(in: "t:meeting") == nil)
    }

    @Test("a keyword value in the wrong case finds nothing, so the query is retried with the value as indexed, and says so")
    func keywordValueCase() async throws {
        let fixture = try await SearchFixture()
        let results = try fixture.searcher.search(SearchRequest("section:Editors", entities: ["Package"], limit: 100))
        #expect(results.corrected == "section:editors")
        #expect(Set(results.hits.map(\.key.description)) == (try fixture.keySet("section:editors")))
        let mixed = try fixture.searcher.search(SearchRequest("editor -tags:Use::Editing section:GRAPHICS", entities: ["Package"]))
        #expect(mixed.corrected == "editor -tags:use::editing section:graphics")
        #expect(mixed.hits.map(\.key.description) == ["inkscape"])
        #expect(try fixture.keys("section:Editors").isEmpty, "without spelling correction, the value is exact")
        #expect(try fixture.searcher.search(SearchRequest("section:Nothing", entities: ["Package"])).corrected == nil)

        // --filter values the same way, reported apart from the query.
        let filtered = try fixture.searcher.search(SearchRequest("editor", entities: ["Package"],
                                                                 filters: [SearchFilter(field: "section", value: "Editors")]))
        #expect(filtered.correctedFilters == [SearchFilter(field: "section", value: "editors")] && filtered.corrected == nil)
        #expect(Set(filtered.hits.map(\.key.description)) == ["vim", "nano"])
        let unknown = try fixture.searcher.search(SearchRequest("editor", filters: [SearchFilter(field: "section", value: "Nothing")]))
        #expect(unknown.hits.isEmpty && unknown.correctedFilters == nil)
        let exact = try fixture.searcher.search(SearchRequest("editor", filters: [SearchFilter(field: "section", value: "Editors")],
                                                              correctsSpelling: false))
        #expect(exact.hits.isEmpty && exact.correctedFilters == nil, "without spelling correction, the value is exact")
    }

    @Test("ranges on number and date fields, either end open")
    func ranges() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keySet("size:1000..5000") == ["vim", "nano", "grep", "sqlite3"])
        #expect(try fixture.keySet("size:..100") == ["postgresql"])
        #expect(try fixture.keySet("size:40000..") == ["inkscape", "0ad"])
        #expect(try fixture.keySet("released:2023-01-01..2023-03-31") == ["grep", "xapian-tools", "postgresql"])
        #expect(try fixture.keySet("released:2023-06..") == ["vim"])
        #expect(try fixture.keySet("released:2021..2021") == ["coreutils"])
        #expect(try fixture.keySet("editor released:2023..2023") == ["vim", "gimp", "inkscape"])
    }

    @Test("a range inside a phrase is an error saying to write it outside the quotes, not a silent empty answer")
    func rangeInsidePhrase() async throws {
        let fixture = try await SearchFixture()
        for (query, range) in [("\"text editor size:1000..5000\"", "size:1000..5000"),
                               ("vim \"released:2023.. editor\"", "released:2023..")] {
            let error = #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest(query)) }
            guard case let .invalidQuery(_, reason)? = error else {
                Issue.record("expected invalidQuery, got \(String(describing: error))")
                continue
            }
            guard case let .refused(explanation) = reason else {
                Issue.record("expected Spotlite's refusal, got \(reason)")
                continue
            }
            #expect(explanation.contains("the range \(range) is inside double quotes") && explanation.contains("as \(range)"), "\(explanation)")
        }
        let outside = try fixture.keySet("editor size:1000..5000")
        let expected = try fixture.keySet("editor").intersection(try fixture.keySet("size:1000..5000"))
        #expect(!outside.isEmpty && outside == expected, "outside the quotes it is a range")
    }

    @Test("a query of stop words alone finds the records holding them; beside other words they are dropped")
    func stopWordsAlone() async throws {
        let fixture = try await SearchFixture(extraPackages: [
            SamplePackage(name: "at", summary: "Delayed job execution and batch processing"),
            SamplePackage(name: "ats-lang", summary: "ATS programming language compiler"),
        ])
        // Xapian keeps the words of a query made only of stop words, stemmed ("Zat"); the index used to hold no
        // stems of stop words, so "at" found "ats-lang" (whose stem is "at") and not "at".
        #expect(try fixture.keySet("at") == ["at", "ats-lang"])
        #expect(try fixture.keySet("name:at") == ["at", "ats-lang"])
        #expect(try fixture.keySet("the").contains("vim"), "vim's description holds \"the\"")
        #expect(try fixture.keys("the editor") == fixture.keys("editor"))
        #expect(try fixture.keys("\"at\"") == ["at"], "a phrase searches the word as written")
    }

    @Test("one value of a number or date field: a negative number keeps its sign, a quoted value is the value, not nothing")
    func singleValues() async throws {
        let fixture = try await SearchFixture(notes: [(-3, "Below zero", "reading of minus three", nil),
                                                      (3, "Three", "reading of three", nil),
                                                      (12, "Twelve", "reading of twelve", nil)])
        // Xapian's parser read `id:-3` as `id:3`, and `id:"12"` or `released:"2021"` as no query at all.
        #expect(try fixture.keys("id:-3", entity: "Note") == ["-3"])
        #expect(try fixture.keys("id:3", entity: "Note") == ["3"])
        #expect(try fixture.keys("(id:-3)", entity: "Note") == ["-3"])
        #expect(try fixture.keys("id:\"-3\"", entity: "Note") == ["-3"])
        #expect(try fixture.keys("id:\"12\"", entity: "Note") == ["12"])
        #expect(try fixture.keySet("id:-3 id:12", entity: "Note") == ["-3", "12"], "values of one field are alternatives")
        #expect(try fixture.keySet("id:-3 OR id:12", entity: "Note") == ["-3", "12"])
        #expect(try fixture.keySet("reading -id:-3", entity: "Note") == ["3", "12"])
        #expect(try fixture.keySet("reading +id:-3", entity: "Note") == ["-3"])
        #expect(try fixture.keySet("reading NOT id:-3", entity: "Note") == ["3", "12"])
        #expect(try fixture.keys("\"reading of id:-3\"", entity: "Note").isEmpty, "inside a phrase, words")
        // A value filters the words, as a range does (it used to be one more alternative).
        #expect(try fixture.keySet("twelve id:3", entity: "Note") == [])
        #expect(try fixture.keySet("reading id:3", entity: "Note") == ["3"])
        let year = try fixture.keySet("released:2021")
        let quotedYear = try fixture.keySet("released:\"2021\"")
        #expect(!year.isEmpty && quotedYear == year)
        let withoutYear = try fixture.keySet("editor").subtracting(try fixture.keySet("released:2023"))
        #expect(try fixture.keySet("editor -released:2023") == withoutYear)

        // A sign before a range: Xapian 1.4 answered "Unknown range operation".
        #expect(try fixture.keySet("reading -id:0..20", entity: "Note") == ["-3"])
        #expect(try fixture.keySet("reading +id:..0", entity: "Note") == ["-3"])
        #expect(try fixture.keySet("reading -id:-5..-1", entity: "Note") == ["3", "12"])
        let between = try fixture.keySet("editor").intersection(try fixture.keySet("size:1000..5000"))
        #expect(try fixture.keySet("editor +size:1000..5000") == between)
        #expect(try fixture.keySet("editor -released:2023-01..2023-06")
                == fixture.keySet("editor").subtracting(try fixture.keySet("released:2023-01..2023-06")))

        for (query, expected) in [("id:\"3 12\"", "'3 12' is not a number, and id is a number field"),
                                  ("id:\"\"", "'' is not a number, and id is a number field"),
                                  ("released:-2021", "'-2021' is not a date, and released is a date field"),
                                  ("reading -id:1..x", "'x' in the range id:1..x is not a number"),
                                  ("id:..", "the range id:.. has no numbers"),
                                  ("reading -id:..", "the range id:.. has no numbers"),
                                  ("released:..", "the range released:.. has no dates")] {
            fixture.expectInvalidQuery(query, reasonStartingWith: expected)
        }
    }

    @Test("entity filters: in the query and as arguments; an unknown entity is an error naming the known ones")
    func entityFilters() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keys(SearchRequest("editor", limit: 100)).count == 6, "both entities")
        #expect(Set(try fixture.keys(SearchRequest("editor entity:Note", limit: 100))) == ["1", "2"])
        #expect(Set(try fixture.keys(SearchRequest("editor", entities: ["Note"]))) == ["1", "2"])
        #expect(try fixture.keys(SearchRequest("editor", entities: ["Note", "Package"], limit: 100)).count == 6)
        let hit = try #require(try fixture.searcher.search(SearchRequest("meeting")).hits.first)
        #expect(hit.entity == "Note" && hit.key == .integer(1))
        #expect(throws: SearchError.unknownEntity("Nope", known: ["Package", "Note"])) {
            try fixture.searcher.search(SearchRequest("editor", entities: ["Nope"]))
        }
    }

    @Test("extra filters as arguments combine with the query; bad filter fields are errors with the way out")
    func filterArguments() async throws {
        let fixture = try await SearchFixture()
        let editors = SearchRequest("editor", filters: [SearchFilter(field: "section", value: "editors")])
        #expect(Set(try fixture.keys(editors)) == ["vim", "nano"])
        let two = SearchRequest("", filters: [try SearchFilter(parsing: "section:editors"), try SearchFilter(parsing: "section:utils")], limit: 100)
        #expect(Set(try fixture.keys(two)) == ["vim", "nano", "grep", "coreutils", "1"])
        let crossed = SearchRequest("", entities: ["Package"], filters: [SearchFilter(field: "section", value: "graphics"),
                                                                         SearchFilter(field: "tags", value: "use::editing")])
        #expect(try fixture.keys(crossed) == ["gimp"])

        let unknown = #expect(throws: SearchError.self) {
            try fixture.searcher.search(SearchRequest("", filters: [SearchFilter(field: "colour", value: "red")]))
        }
        #expect(unknown == .unknownField("colour", reason: .noSuchFilterField(keywordFields: ["section", "tags"])))
        let text = #expect(throws: SearchError.self) {
            try fixture.searcher.search(SearchRequest("", filters: [SearchFilter(field: "summary", value: "x")]))
        }
        guard case .unknownField("summary", .notAKeywordField(.text, keywordFields: ["section", "tags"]))? = text else {
            Issue.record("expected the text field refused as a filter, got \(String(describing: text))")
            return
        }
        #expect(throws: SearchError.self) { try SearchFilter(parsing: "no-colon") }
        #expect(throws: SearchError.self) { try SearchFilter(parsing: ":value") }
    }

    @Test("an empty query matches every document (with filters, a browse)")
    func emptyQuery() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.searcher.search(SearchRequest("", limit: 0)).total == SamplePackage.catalogue.count + 2)
        #expect(try fixture.searcher.search(SearchRequest("   ", entities: ["Note"])).total == 2)
    }

    @Test("malformed queries are errors carrying Xapian's message",
          arguments: ["vim AND", "vim NOT", "vim OR OR nano", "size:-5 AND", "size:abc..def", "released:2023-13-45..", "released:yesterday..today"])
    func malformed(query: String) async throws {
        let fixture = try await SearchFixture()
        let error = #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest(query)) }
        guard case let .invalidQuery(text, reason)? = error else {
            Issue.record("expected invalidQuery for \(query), got \(String(describing: error))")
            return
        }
        #expect(text == query)
        #expect(!reason.description.isEmpty)
        #expect(error?.description.hasPrefix("cannot parse the query \"\(query)\": \(reason)") == true)
    }

    /// A NUL byte and more words than the budget are refused instead (see SearchBudgetTests).
    @Test("odd but harmless input parses: unbalanced quotes and brackets, symbols, long text",
          arguments: ["\"unbalanced quote", "(vim", "vim)", "&&& ||| !!!", String(repeating: "editor ", count: SearchRequest.maximumWords), "日本語 Müller"])
    func oddInput(query: String) async throws {
        let fixture = try await SearchFixture()
        let results = try fixture.searcher.search(SearchRequest(query))
        #expect(results.total >= 0)
    }

    @Test("negative paging is refused")
    func negativePaging() async throws {
        let fixture = try await SearchFixture()
        #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest("vim", offset: -1)) }
        #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest("vim", limit: -5)) }
    }
}

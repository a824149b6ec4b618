import Foundation
import GRDB
import SpotliteTestSupport
import SpotliteJSON
import Testing
@testable import SpotliteSearch
import Spotlite

/// What comes back: paging, sorting, totals, facets, snippets, spelling corrections and stored fields.
@Suite("Search results", .blockingWork)
struct SearchResultTests {
    @Test("offset and limit page through the ranking; ranks count from the first hit overall")
    func paging() async throws {
        let fixture = try await SearchFixture()
        let all = try fixture.keys(SearchRequest("", entities: ["Package"], limit: 100, sort: .field("size", ascending: true)))
        #expect(all.count == SamplePackage.catalogue.count)
        var paged: [String] = []
        for offset in stride(from: 0, to: all.count, by: 4) {
            let page = try fixture.searcher.search(SearchRequest("", entities: ["Package"], offset: offset, limit: 4,
                                                                  sort: .field("size", ascending: true)))
            #expect(page.hits.map(\.rank) == Array(offset + 1...offset + page.hits.count))
            #expect(page.total == all.count, "the total does not depend on the page")
            paged += page.hits.map(\.key.description)
        }
        #expect(paged == all)
        #expect(try fixture.searcher.search(SearchRequest("", offset: 1000)).hits.isEmpty)
        #expect(try fixture.searcher.search(SearchRequest("editor", limit: 0)).total == 6)
    }

    @Test("sort by a sortable number or date field, either way; relevance by default")
    func sorting() async throws {
        let fixture = try await SearchFixture()
        let bySize = SamplePackage.catalogue.sorted { $0.size! < $1.size! }.map(\.name)
        #expect(try fixture.keys(SearchRequest("", entities: ["Package"], limit: 100, sort: .field("size", ascending: true))) == bySize)
        #expect(try fixture.keys(SearchRequest("", entities: ["Package"], limit: 100, sort: SearchSort(parsing: "-size"))) == bySize.reversed())
        let byDate = SamplePackage.catalogue.sorted { $0.released! > $1.released! }.map(\.name)
        #expect(try fixture.keys(SearchRequest("", entities: ["Package"], limit: 100, sort: SearchSort(parsing: "-released"))) == byDate)
        #expect(try fixture.keys(SearchRequest("editor", entities: ["Package"], sort: SearchSort(parsing: "size"))) == ["nano", "vim", "gimp", "inkscape"])
        #expect(SearchSort(parsing: "relevance") == .relevance)
        #expect(SearchSort(parsing: "+size") == .field("size", ascending: true))

        let hits = try fixture.searcher.search(SearchRequest("editor vim", entities: ["Package"])).hits
        #expect(hits.map(\.score) == hits.map(\.score).sorted(by: >), "relevance: best first")
        #expect(hits.first?.key == .text("vim"))

        for field in ["summary", "section", "nothing"] {
            let error = #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest("", sort: .field(field, ascending: true))) }
            guard case .unknownField(field, _)? = error else {
                Issue.record("expected unknownField(\(field)), got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("the total is Xapian's estimate: exact on a small index")
    func totals() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.searcher.search(SearchRequest("editor", limit: 1)).total == 6)
        #expect(try fixture.searcher.search(SearchRequest("editor", entities: ["Package"], limit: 1)).total == 4)
        #expect(try fixture.searcher.search(SearchRequest("zzzunknown", correctsSpelling: false)).total == 0)
    }

    @Test("facets count each value over every match, multi-valued keywords value by value")
    func facets() async throws {
        let fixture = try await SearchFixture()
        let results = try fixture.searcher.search(SearchRequest("", entities: ["Package"], limit: 1, facets: ["section", "tags"]))
        var sections: [String: Int] = [:]
        var tags: [String: Int] = [:]
        for package in SamplePackage.catalogue {
            sections[package.section!, default: 0] += 1
            for tag in Set(package.tags!.split(separator: " ").map(String.init)) { tags[tag, default: 0] += 1 }
        }
        #expect(Dictionary(uniqueKeysWithValues: results.facets["section"]!.map { ($0.value, $0.count) }) == sections)
        #expect(Dictionary(uniqueKeysWithValues: results.facets["tags"]!.map { ($0.value, $0.count) }) == tags)
        let counts = results.facets["tags"]!.map(\.count)
        #expect(counts == counts.sorted(by: >), "most frequent first")
        #expect(results.facets["tags"]!.first == FacetCount(value: "role::program", count: 10))

        let editing = try fixture.searcher.search(SearchRequest("editor", entities: ["Package"], facets: ["section", "tags"]))
        #expect(editing.facets["section"] == [FacetCount(value: "editors", count: 2), FacetCount(value: "graphics", count: 2)])
        #expect(editing.facets["tags"]?.first { $0.value == "use::editing" }?.count == 3)
        #expect(editing.facets["tags"]?.first { $0.value == "works-with::image" }?.count == 2)

        // Facet values are filter values: narrowing by one gives its count.
        for facet in results.facets["tags"]! {
            let narrowed = try fixture.searcher.search(SearchRequest("", entities: ["Package"], filters: [SearchFilter(field: "tags", value: facet.value)], limit: 0))
            #expect(narrowed.total == facet.count, "\(facet.value)")
        }
        #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest("", facets: ["summary"])) }
        #expect(throws: SearchError.self) { try fixture.searcher.search(SearchRequest("", facets: ["nothing"])) }
    }

    @Test("a multi-valued keyword repeated in one record counts once; empty values are ignored")
    func facetEdgeCases() async throws {
        let fixture = try await SearchFixture(extraPackages: [
            SamplePackage(name: "dup", summary: "duplicate tags", section: "  misc  ", tags: "a  a b   "),
        ])
        let results = try fixture.searcher.search(SearchRequest("name:dup", facets: ["section", "tags"]))
        #expect(results.facets["tags"] == [FacetCount(value: "a", count: 1), FacetCount(value: "b", count: 1)])
        #expect(results.facets["section"] == [FacetCount(value: "misc", count: 1)], "trimmed, like the filter value")
        #expect(try fixture.keys(SearchRequest("section:misc")) == ["dup"])
    }

    @Test("stored fields come back with hits, with their types; the rest does not")
    func storedFields() async throws {
        let fixture = try await SearchFixture()
        let hit = try #require(try fixture.searcher.search(SearchRequest("name:vim")).hits.first)
        #expect(hit.entity == "Package" && hit.key == .text("vim"))
        #expect(hit.fields["summary"] == .text("Vi IMproved - enhanced vi editor"))
        #expect(hit.fields["section"] == .text("editors"))
        #expect(hit.fields["size"] == .integer(3900))
        #expect(hit.fields["released"] == .text("2023-06-01"))
        #expect(hit.fields["version"] == .text("1.0"), "stored-type fields always come back")
        #expect(hit.fields["description"] == nil && hit.fields["tags"] == nil && hit.fields["maintainer"] == nil)
        #expect(hit.percent > 0 && hit.score > 0 && hit.rank == 1)
        let json = hit.jsonObject
        #expect(json["key"] as? String == "vim")
        #expect((json["fields"] as? [String: Any])?["size"] as? Int64 == 3900)
    }

    @Test("spelling: a query that finds nothing is retried corrected, and says so")
    func spelling() async throws {
        let fixture = try await SearchFixture()
        let corrected = try fixture.searcher.search(SearchRequest("editr", entities: ["Package"]))
        #expect(corrected.corrected == "editor")
        #expect(Set(corrected.hits.map(\.key.description)) == ["vim", "nano", "gimp", "inkscape"])
        let phrase = try fixture.searcher.search(SearchRequest("relatinal databse", entities: ["Package"]))
        #expect(phrase.corrected == "relational database")
        #expect(phrase.hits.first?.key == .text("postgresql"))

        let exact = try fixture.searcher.search(SearchRequest("editor"))
        #expect(exact.corrected == nil, "nothing to correct when the query finds something")
        let off = try fixture.searcher.search(SearchRequest("editr", correctsSpelling: false))
        #expect(off.hits.isEmpty && off.corrected == nil)
        let hopeless = try fixture.searcher.search(SearchRequest("qqqqqqqqq"))
        #expect(hopeless.hits.isEmpty && hopeless.corrected == nil)
    }

    @Test("spelling: a word the index holds is kept, though Xapian offers a more frequent one (\"vim\" → \"via\")")
    func spellingKeepsIndexedWords() async throws {
        let relay = SamplePackage(name: "relay", summary: "mail via smtp, via lmtp or via a pipe",
                                  description: "Sends via one route or via another, via queues.")
        let fixture = try await SearchFixture(extraPackages: [relay])
        // No editor is in section graphics: the filter, not the word, finds nothing.
        let filtered = try fixture.searcher.search(SearchRequest("vim", filters: [SearchFilter(field: "section", value: "graphics")]))
        #expect(filtered.hits.isEmpty && filtered.suggestion == nil && filtered.corrected == nil,
                "\(String(describing: filtered.suggestion))")
        // A misspelt word beside it is still corrected.
        let both = try fixture.searcher.search(SearchRequest("vim relatinal", defaultOperator: .and))
        #expect(both.suggestion == "vim relational" && both.hits.isEmpty && both.corrected == nil)
        let misspelt = try fixture.searcher.search(SearchRequest("vmi", entities: ["Package"]))
        #expect(misspelt.corrected != nil && misspelt.corrected != "vmi", "a word the index lacks is corrected")
    }

    @Test("snippets come from the descriptive text, with the caller's markers around the matched words")
    func snippets() async throws {
        let fixture = try await SearchFixture()
        let options = SnippetOptions(highlightStart: "[", highlightEnd: "]", format: .plain, length: 300)
        let vim = try #require(try fixture.searcher.search(SearchRequest("syntax highlighting", snippet: options)).hits.first)
        #expect(vim.key == .text("vim"))
        #expect(vim.snippet.contains("[syntax] [highlighting]"), "\(vim.snippet)")

        // The maintainer matches, but the snippet shows what the package is, not its maintainer's address.
        let nano = try #require(try fixture.searcher.search(SearchRequest("maintainer:jordi pico", snippet: options)).hits.first { $0.key == .text("nano") })
        #expect(nano.snippet.contains("[Pico]"), "\(nano.snippet)")
        #expect(!nano.snippet.contains("jordi@debian.org"))
        #expect(!nano.snippet.lowercased().hasPrefix("nano"), "not the name")

        let none = try fixture.searcher.search(SearchRequest("pico", snippet: SnippetOptions(length: 0)))
        #expect(none.hits.first?.snippet == "")
    }

    @Test("snippets are safe: HTML-escaped in HTML mode, free of control characters in both modes")
    func snippetSafety() async throws {
        let hostile = SamplePackage(name: "hostile", summary: "a <script>alert('x')</script> & \u{1B}[31mred\u{1B}[0m package",
                                    description: "shows <b>markup</b> \u{7}\u{9B}2J and quirks")
        let fixture = try await SearchFixture(extraPackages: [hostile])
        let html = try #require(try fixture.searcher.search(SearchRequest("alert markup", snippet: SnippetOptions(
            highlightStart: "<mark>", highlightEnd: "</mark>", format: .html, length: 400))).hits.first)
        #expect(html.snippet.contains("&lt;script&gt;") && html.snippet.contains("&amp;"), "\(html.snippet)")
        #expect(html.snippet.contains("<mark>alert</mark>"))
        #expect(html.snippet.contains("&lt;b&gt;<mark>markup</mark>&lt;/b&gt;"), "\(html.snippet)")
        #expect(!html.snippet.contains("<script>"))

        let plain = try #require(try fixture.searcher.search(SearchRequest("alert markup", snippet: SnippetOptions(
            highlightStart: "\u{1B}[1m", highlightEnd: "\u{1B}[0m", format: .plain, length: 400))).hits.first)
        #expect(plain.snippet.contains("<script>") && plain.snippet.contains(" & "), "plain text is not escaped: \(plain.snippet)")
        #expect(plain.snippet.contains("\u{1B}[1malert\u{1B}[0m"), "the caller's markers are kept")
        let withoutMarkers = plain.snippet.replacingOccurrences(of: "\u{1B}[1m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        #expect(!withoutMarkers.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) },
                "no control character from the data reaches a terminal: \(withoutMarkers.debugDescription)")
        #expect(!html.snippet.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\u{9B}" })
    }

    @Test("snippets come from the store's rows as they are now, for hits of one entity or of several; a record gone from the store falls back to its stored fields")
    func snippetsFromTheStoreNow() async throws {
        let fixture = try await SearchFixture()
        // Changed and deleted in the store only: the index still has the text it was built from.
        try fixture.sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Note SET body = 'We chose the vim editor and a quieter keyboard' WHERE id = 1")
            try db.execute(sql: "UPDATE Package SET description = 'An editor rewritten with plugins' WHERE name = 'vim'")
            try db.execute(sql: "DELETE FROM Note WHERE id = 2")
        }
        let options = SnippetOptions(highlightStart: "[", highlightEnd: "]", format: .plain, length: 300)
        func snippets(_ request: SearchRequest) throws -> [String: String] {
            var byKey: [String: String] = [:]
            for hit in try fixture.searcher.search(request).hits { byKey["\(hit.entity) \(hit.key)"] = hit.snippet }
            return byKey
        }
        // Both entities in one answer: one statement each, in one read transaction.
        let both = try snippets(SearchRequest("editor", limit: 50, snippet: options))
        #expect(both["Note 1"] == "Meeting notes\nWe chose the vim [editor] and a quieter keyboard")
        #expect(both["Package vim"] == "Vi IMproved - enhanced vi [editor]\nAn [editor] rewritten with plugins")
        #expect(both["Package nano"]?.contains("Pico") == true)
        // One entity: its statement alone.
        let notes = try snippets(SearchRequest("editor", entities: ["Note"], snippet: options))
        #expect(notes["Note 1"] == both["Note 1"])
        // Deleted since it was indexed: the stored title is all there is (the body is not stored in the index).
        #expect(notes["Note 2"] == "Shopping list")
        let packages = try snippets(SearchRequest("editor", entities: ["Package"], limit: 50, snippet: options))
        #expect(packages["Package vim"] == both["Package vim"])
    }

    @Test("without a store, snippets come from the stored descriptive fields")
    func snippetsWithoutStore() async throws {
        let fixture = try await SearchFixture()
        let searcher = try fixture.sandbox.makeSearcher()
        #expect(searcher.store == nil)
        let hit = try #require(try searcher.search(SearchRequest("pico", snippet: SnippetOptions(highlightStart: "[", highlightEnd: "]"))).hits.first)
        #expect(hit.snippet == "small, friendly text editor inspired by [Pico]")
    }

    @Test("results as the command line's JSON")
    func json() async throws {
        let fixture = try await SearchFixture()
        let results = try fixture.searcher.search(SearchRequest("editr", entities: ["Package"], facets: ["section"]))
        let object = results.jsonObject
        #expect(object["query"] as? String == "editr")
        #expect(object["corrected"] as? String == "editor")
        #expect(object["total"] as? Int == 4)
        #expect((object["hits"] as? [[String: Any]])?.count == 4)
        #expect(((object["facets"] as? [String: Any])?["section"] as? [String: Int])?["editors"] == 2)
        #expect(JSONSerialization.isValidJSONObject(object))
    }
}

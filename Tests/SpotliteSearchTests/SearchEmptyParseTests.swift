import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// A query whose text says something but parses to nothing must match nothing: only blank text (or a lone `*`)
/// asks for every document. Answering the whole index instead is a wrong answer nobody notices.
@Suite("Search: text that parses to nothing matches nothing", .blockingWork)
struct SearchEmptyParseTests {
    @Test("a reversed range, a lone quote or bracket, only operators: no hits", arguments: [
        "vim size:500..1", "size:500..1", "\"", "(", ")", "-", "\"\"", "( )",
    ])
    func parsesToNothing(_ query: String) async throws {
        let fixture = try await SearchFixture()
        let results = try fixture.searcher.search(SearchRequest(query, limit: 100, correctsSpelling: false))
        #expect(results.hits.isEmpty, "\(query) matched \(results.hits.map(\.key.description))")
        #expect(results.total == 0)
    }

    @Test("blank text and a lone * match every document, and filters still apply")
    func blankMatchesAll() async throws {
        let fixture = try await SearchFixture()
        let total = try fixture.searcher.documentCount()
        for query in ["", "  ", "*", " * "] {
            let results = try fixture.searcher.search(SearchRequest(query, limit: 100, correctsSpelling: false))
            #expect(results.hits.count == total, "\(query)")
        }
        let filtered = try fixture.keys(SearchRequest("", filters: [SearchFilter(field: "section", value: "editors")],
                                                      limit: 100, correctsSpelling: false))
        #expect(!filtered.isEmpty)
        #expect(filtered.count < total)
    }

    @Test("a range in the right order still matches")
    func forwardRange() async throws {
        let fixture = try await SearchFixture()
        let results = try fixture.searcher.search(SearchRequest("size:1..100000", limit: 100, correctsSpelling: false))
        #expect(!results.hits.isEmpty)
    }
}

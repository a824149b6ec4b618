import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import SpotliteJSON

/// A search has a budget (hits, depth, words, bytes, time): going over it is a clear error, never a search that
/// runs for minutes or an answer from part of the index. Text Xapian would cut short (at a NUL) is refused.
@Suite("Search: budgets and text that cannot be searched whole", .blockingWork)
struct SearchBudgetTests {
    func exceeded(_ fixture: SearchFixture, _ request: SearchRequest) -> SearchBudgetItem? {
        let error = #expect(throws: SearchError.self) { try fixture.searcher.search(request) }
        guard case let .overBudget(_, exceeded)? = error else {
            Issue.record("expected overBudget, got \(String(describing: error))")
            return nil
        }
        #expect(error?.recovery == nil, "the budget's words say what to do instead")
        return exceeded
    }

    @Test("too many hits, too deep a page, too many words or bytes")
    func sizeBudgets() async throws {
        let fixture = try await SearchFixture()
        var request = SearchRequest("editor", limit: SearchRequest.maximumLimit + 1)
        #expect(exceeded(fixture, request) == .hits(requested: 10_001, maximum: 10_000))
        request = SearchRequest("editor", offset: SearchRequest.maximumOffset + 1)
        #expect(exceeded(fixture, request) == .offset(requested: SearchRequest.maximumOffset + 1, maximum: SearchRequest.maximumOffset))
        let words = Array(repeating: "editor", count: SearchRequest.maximumWords + 1).joined(separator: " ")
        #expect(exceeded(fixture, SearchRequest(words)) == .words(count: 1001, maximum: 1000))
        let long = String(repeating: "x", count: SearchRequest.maximumQueryBytes + 1)
        #expect(exceeded(fixture, SearchRequest(long)) == .bytes(count: long.utf8.count, maximum: SearchRequest.maximumQueryBytes))
        // At the limits, searches answer.
        _ = try fixture.searcher.search(SearchRequest("editor", limit: SearchRequest.maximumLimit))
        _ = try fixture.searcher.search(SearchRequest(Array(repeating: "editor", count: SearchRequest.maximumWords)
            .joined(separator: " ")))
    }

    @Test("a search that runs past its time limit fails instead of answering from part of the index")
    func timeLimit() async throws {
        let notes = (1...3000).map { ($0, "note \($0)", "common words in every note", nil as String?) }
        let fixture = try await SearchFixture(notes: notes)
        var request = SearchRequest("common OR words OR note", entities: ["Note"], limit: 10, correctsSpelling: false)
        let answered = try fixture.searcher.search(request)
        #expect(answered.total == 3000)
        request.timeLimit = 1e-9
        #expect(exceeded(fixture, request) == .time(limit: 1e-9))
    }

    @Test("the sentence the command line prints for a request over its budget")
    func overBudgetWording() {
        let error = SearchError.overBudget(query: "editor", exceeded: .hits(requested: 20000, maximum: 10000))
        #expect(error.commandLineDescription == "the query \"editor\" is over its budget: a search returns at most 10000 hits, not 20000; page through more with the offset")
    }

    @Test("a NUL in the query is refused, not cut off")
    func nulInQuery() async throws {
        let fixture = try await SearchFixture()
        let error = #expect(throws: SearchError.self) {
            try fixture.searcher.search(SearchRequest("zzzunknown\u{0}editor"))
        }
        guard case let .invalidQuery(_, reason)? = error else {
            Issue.record("expected invalidQuery, got \(String(describing: error))")
            return
        }
        #expect(reason == .refused(explanation: "it contains a NUL character, which cannot be searched for; remove it"))
    }
}

import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// A search has a budget (hits, depth, words, bytes, time): going over it is a clear error, never a search that
/// runs for minutes or an answer from part of the index. Text Xapian would cut short (at a NUL) is refused.
@Suite("Search: budgets and text that cannot be searched whole", .blockingWork)
struct SearchBudgetTests {
    func overBudgetReason(_ fixture: SearchFixture, _ request: SearchRequest) -> String? {
        let error = #expect(throws: SearchError.self) { try fixture.searcher.search(request) }
        guard case let .overBudget(_, reason)? = error else {
            Issue.record("expected overBudget, got \(String(describing: error))")
            return nil
        }
        return reason
    }

    @Test("too many hits, too deep a page, too many words or bytes")
    func sizeBudgets() async throws {
        let fixture = try await SearchFixture()
        var request = SearchRequest("editor", limit: SearchRequest.maximumLimit + 1)
        #expect(overBudgetReason(fixture, request)?.contains("at most 10000 hits") == true)
        request = SearchRequest("editor", offset: SearchRequest.maximumOffset + 1)
        #expect(overBudgetReason(fixture, request)?.contains("skips at most") == true)
        let words = Array(repeating: "editor", count: SearchRequest.maximumWords + 1).joined(separator: " ")
        #expect(overBudgetReason(fixture, SearchRequest(words))?.contains("1001 words") == true)
        let long = String(repeating: "x", count: SearchRequest.maximumQueryBytes + 1)
        #expect(overBudgetReason(fixture, SearchRequest(long))?.contains("bytes") == true)
        // At the limits, searches answer.
        _ = try fixture.searcher.search(SearchRequest("editor", limit: SearchRequest.maximumLimit))
        _ = try fixture.searcher.search(SearchRequest(Array(repeating: "editor", count: SearchRequest.maximumWords)
            .joined(separator: " ")))
        let description = SearchError.overBudget(query: "q", reason: "r; s").description
        #expect(description.contains("over its budget"))
    }

    @Test("a search that runs past its time limit fails instead of answering from part of the index")
    func timeLimit() async throws {
        let notes = (1...3000).map { ($0, "note \($0)", "common words in every note", nil as String?) }
        let fixture = try await SearchFixture(notes: notes)
        var request = SearchRequest("common OR words OR note", entities: ["Note"], limit: 10, correctsSpelling: false)
        let answered = try fixture.searcher.search(request)
        #expect(answered.total == 3000)
        request.timeLimit = 1e-9
        let reason = overBudgetReason(fixture, request)
        #expect(reason?.contains("time limit") == true, "\(reason ?? "")")
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
        #expect(reason.contains("NUL"))
    }
}

import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// A pool of searchers answers a batch at once, each request exactly as one searcher alone would.
@Suite("Searcher pool", .blockingWork)
struct SearcherPoolTests {
    static func withoutTime(_ results: SearchResults) -> SearchResults {
        var results = results
        results.seconds = 0
        return results
    }

    @Test("a batch answered by several searchers equals each request searched alone, in order")
    func sameAnswers() async throws {
        let fixture = try await SearchFixture()
        let pool = try Self.pool(count: 3, over: fixture)
        #expect(pool.searchers.count == 3)
        let texts = ["editor", "text editor", "relational database", "editr", "zzzunknown", "vim OR nano", "picture"]
        let requests = (0..<70).map { index in
            SearchRequest(texts[index % texts.count], limit: 1 + index % 4, snippet: SnippetOptions(length: 80))
        }
        let outcomes = pool.search(requests)
        #expect(outcomes.count == requests.count)
        for (request, outcome) in zip(requests, outcomes) {
            let alone = try fixture.searcher.search(request)
            #expect(Self.withoutTime(try outcome.get()) == Self.withoutTime(alone), "\(request.query)")
        }
        #expect(pool.search([]).isEmpty)
    }

    @Test("a request that fails gives its error at its place; the others are answered")
    func failureInPlace() async throws {
        let fixture = try await SearchFixture()
        let pool = try Self.pool(count: 2, over: fixture)
        let texts = ["editor", "editor AND", "vim", "unknownfield:word OR", "nano"]
        let outcomes = pool.search(texts.map { SearchRequest($0) })
        #expect(outcomes.count == texts.count)
        for (text, outcome) in zip(texts, outcomes) {
            switch outcome {
            case .success(let results):
                #expect(!text.hasSuffix(" OR") && !text.hasSuffix(" AND"), "\(text) should have failed")
                #expect(results.query == text)
                #expect(!results.hits.isEmpty, "\(text)")
            case .failure(let error):
                guard case SearchError.invalidQuery(let query, _) = error else {
                    Issue.record("\(text): \(error)")
                    continue
                }
                #expect(query == text)
            }
        }
    }

    @Test("without an index, each request of the batch fails with the missing index")
    func missingIndex() throws {
        let sandbox = try IndexerSandbox()  // nothing indexed yet
        let pool = SearcherPool(searchers: [try IndexSearcher(configuration: sandbox.configuration, store: sandbox.store)])
        let outcomes = pool.search([SearchRequest("editor"), SearchRequest("vim")])
        #expect(outcomes.count == 2)
        for outcome in outcomes {
            #expect(throws: SearchError.indexMissing(path: sandbox.indexPath)) { try outcome.get() }
        }
    }
}

extension SearcherPoolTests {
    @Test("answering: each outcome is handed over once, and what was made of it comes back at its request's index")
    func answering() async throws {
        let fixture = try await SearchFixture()
        let pool = try Self.pool(count: 2, over: fixture)
        let texts = ["editor", "editor AND", "vim", "relational database", "zzzunknown"]
        let requests = (0..<40).map { SearchRequest(texts[$0 % texts.count], limit: 1 + $0 % 3) }
        let answers = pool.search(requests) { outcome -> String in
            switch outcome {
            case .success(let results): "\(results.query): \(results.hits.map(\.key.description))"
            case .failure(let error): "failed: \(error)"
            }
        }
        #expect(answers.count == requests.count)
        for (request, answer) in zip(requests, answers) {
            let expected: String
            do {
                let results = try fixture.searcher.search(request)
                expected = "\(results.query): \(results.hits.map(\.key.description))"
            } catch {
                expected = "failed: \(error)"
            }
            #expect(answer == expected)
        }
        let single = SearcherPool(searchers: [fixture.searcher])
        #expect(single.search([SearchRequest("vim")]) { (try? $0.get())?.query } == ["vim"])
    }
}

extension SearcherPoolTests {
    /// `count` searchers over the fixture's index and store.
    static func pool(count: Int, over fixture: SearchFixture) throws -> SearcherPool {
        try SearcherPool(count: count) {
            try IndexSearcher(configuration: fixture.sandbox.configuration, store: fixture.sandbox.store)
        }
    }
}

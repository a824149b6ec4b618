import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// A searcher opened once stays correct while the index is updated, rebuilt, deleted and built again.
@Suite("Long-lived searchers", .blockingWork)
struct SearchLongLivedTests {
    @Test("each search sees the newest commit, however many commits happened since the last one")
    func seesEveryCommit() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 1")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let searcher = try sandbox.makeSearcher()
        #expect(try searcher.documentCount() == 1)
        for round in 1...4 {
            // Several commits between two searches: a reader that did not reopen would fail or see old data.
            for number in 0..<3 {
                try sandbox.write([SamplePackage(name: "round\(round)-\(number)", summary: "added in round \(round)")])
            }
            try await indexer.update()
            #expect(try searcher.documentCount() == 1 + round * 3)
            #expect(try searcher.search(SearchRequest("round", limit: 100)).total == round * 3)
        }
    }

    @Test("a searcher follows the switch to a rebuilt generation, and a deleted then rebuilt index")
    func followsRebuildAndDeletion() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(2)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let searcher = try sandbox.makeSearcher()
        #expect(try searcher.documentCount() == 2)

        try sandbox.write([SamplePackage.named("gimp")])
        try await indexer.rebuild()
        #expect(try searcher.documentCount() == 3)
        #expect(try searcher.search(SearchRequest("gimp")).hits.map(\.key) == [.text("gimp")])

        try await indexer.deleteIndex()
        #expect(throws: SearchError.indexMissing(path: sandbox.indexPath)) { try searcher.search(SearchRequest("gimp")) }
        #expect(SearchError.indexMissing(path: sandbox.indexPath).recovery == .buildIndex)
        try await indexer.update()
        #expect(try searcher.search(SearchRequest("gimp")).hits.map(\.key) == [.text("gimp")])
    }

    @Test("searches from several tasks stay correct while an indexer commits and rebuilds")
    func concurrentSearches() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 5")
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let searcher = try sandbox.makeSearcher()
        let rounds = 15

        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<3 {
                group.addTask {
                    var failures: [String] = []
                    var last = 0
                    for _ in 0..<200 {
                        do {
                            let count = try searcher.search(SearchRequest("", limit: 1)).total
                            // Documents are only added: a later search never sees fewer.
                            if count < last { failures.append("count went back from \(last) to \(count)") }
                            last = count
                            _ = try searcher.search(SearchRequest("editor", limit: 5, facets: ["section"]))
                        } catch {
                            failures.append("\(error)")
                        }
                        await Task.yield()
                    }
                    return failures
                }
            }
            group.addTask {
                for round in 0..<rounds {
                    try sandbox.write((0..<7).map { SamplePackage(name: "c\(round)-\($0)", summary: "concurrent") })
                    try await indexer.update()
                    if round == rounds / 2 { try await indexer.rebuild() }
                }
                return []
            }
            var all: [String] = []
            for try await failures in group { all += failures }
            return all
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(try searcher.documentCount() == SamplePackage.catalogue.count + rounds * 7)
    }
}

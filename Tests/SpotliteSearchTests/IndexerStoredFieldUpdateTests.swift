import Foundation
import Testing
@testable import SpotliteSearch
import Spotlite

/// Updates that change only stored fields and values (a version, a size, a date) rewrite a document without its
/// terms; what searches see is what a rebuild of the same rows gives.
@Suite("Updates of stored fields and values", .blockingWork)
struct IndexerStoredFieldUpdateTests {
    /// Every hit of `query` sorted as asked, with its score and stored fields.
    private func answers(_ sandbox: IndexerSandbox, _ query: String, sort: SearchSort = .relevance)
        throws -> [String] {
        let results = try sandbox.makeSearcher().search(SearchRequest(query, limit: 100, sort: sort, correctsSpelling: false))
        return results.hits.map { hit in
            let fields = hit.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            return "\(hit.key) \(String(format: "%.9f", hit.score)) \(fields)"
        } + ["total \(results.total)"]
    }

    @Test("stored fields, numbers and dates changed: hits show the new values, in the order a rebuild gives")
    func storedFieldsAndValues() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        let packages = ShardedIndexTests.generatedPackages(count: 80)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let spellings = try IndexerSpellingTests.spellings(sandbox)

        let changed = packages[0..<30].enumerated().map { index, package in
            var copy = package
            copy.version = "2.\(index)"
            copy.size = 20_000 + index
            copy.released = "2024-02-\(String(format: "%02d", 1 + index % 28))"
            return copy
        }
        try sandbox.write(changed)
        let summary = try await indexer.update()
        #expect(!summary.rebuilt && summary.indexed == 30)
        #expect(try IndexerSpellingTests.spellings(sandbox) == spellings, "the text did not change")

        let queries: [(String, SearchSort)] = [
            ("search engine", .relevance), ("size:20000..20029", .relevance), ("fast", .field("size", ascending: false)),
            ("released:2024-02-01..2024-02-28", .field("released", ascending: true)), ("\"text editor\"", .relevance),
        ]
        let incremental = try queries.map { try answers(sandbox, $0.0, sort: $0.1) }
        let newest = try sandbox.makeSearcher().search(SearchRequest("size:20029..20029", limit: 5))
        #expect(newest.hits.map(\.key.description) == [changed[29].name])
        #expect(newest.hits.first?.fields["size"] == .integer(20_029))
        #expect(newest.hits.first?.fields["released"] == .text(changed[29].released ?? ""))
        #expect(try sandbox.makeSearcher().search(SearchRequest("size:20000..20029", limit: 50)).total == 30)

        #expect(try await indexer.rebuild().rebuilt)
        let rebuilt = try queries.map { try answers(sandbox, $0.0, sort: $0.1) }
        for (index, query) in queries.enumerated() {
            #expect(incremental[index] == rebuilt[index], "\(query.0)")
        }
        #expect(try IndexerSpellingTests.spellings(sandbox) == spellings)
    }

    @Test("text and stored fields changed in the same batch as stored fields alone: each document as a rebuild writes it")
    func mixedBatch() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        let packages = ShardedIndexTests.generatedPackages(count: 60)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        for round in 0..<3 {
            let changed = packages.enumerated().map { index, package in
                var copy = package
                copy.version = "\(round).\(index)"
                if index.isMultiple(of: 3) { copy.summary += " zebra\(round)" }
                if index.isMultiple(of: 5) { copy.size = round * 1000 + index }
                return copy
            }
            try sandbox.write(changed)
            #expect(try await indexer.update().indexed == 60)
        }
        let queries = ["zebra2", "search engine", "size:2000..2059", "fast -game"]
        let incremental = try queries.map { try answers(sandbox, $0) }
        let spellings = try IndexerSpellingTests.spellings(sandbox)
        #expect(try await indexer.rebuild().rebuilt)
        #expect(try queries.map { try answers(sandbox, $0) } == incremental)
        #expect(try IndexerSpellingTests.spellings(sandbox) == spellings)
    }
}

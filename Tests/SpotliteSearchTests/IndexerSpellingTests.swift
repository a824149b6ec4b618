import Foundation
import Testing
@testable import SpotliteSearch
import Spotlite

/// Spelling data (the words "did you mean" chooses from, with their frequencies) stays what a rebuild of the same
/// rows writes, however often records are updated or deleted: each document records the words it fed, and a
/// replacement writes only the difference.
@Suite("Spelling data across updates", .blockingWork)
struct IndexerSpellingTests {
    /// The spelling table of the live index, summed over its shards.
    static func spellings(_ sandbox: IndexerSandbox) throws -> [String: Int] {
        let layout = try #require(try sandbox.liveLayout)
        var total: [String: Int] = [:]
        for path in layout.shardPaths {
            for (word, frequency) in try XapianDatabase(path: path).spellings() { total[word, default: 0] += frequency }
        }
        return total
    }

    @Test("repeated updates and deletes leave every word's frequency equal to a rebuild's")
    func updatesMatchRebuild() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        let packages = ShardedIndexTests.generatedPackages(count: 80)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let first = try Self.spellings(sandbox)
        for round in 0..<4 {
            let changed = packages[0..<30].enumerated().map { index, package in
                var copy = package
                copy.summary += " zebra\(round)"
                copy.description = (index + round).isMultiple(of: 2) ? package.description + " quagga quagga" : "rewritten okapi"
                return copy
            }
            try sandbox.write(changed)
            let summary = try await indexer.update()
            #expect(!summary.rebuilt && summary.indexed == 30, "round \(round)")
        }
        try sandbox.delete(packages[40..<50].map(\.name))
        try await indexer.update()
        let incremental = try Self.spellings(sandbox)
        // The same rows written again: documents identical to the indexed ones are skipped, and nothing changes.
        let hits = try sandbox.makeSearcher().search(SearchRequest("quagga okapi zebra3", limit: 100, correctsSpelling: false))
        try sandbox.write(Array(packages[50..<60]))
        let same = try await indexer.update()
        #expect(!same.rebuilt)
        #expect(try Self.spellings(sandbox) == incremental)
        let again = try sandbox.makeSearcher().search(SearchRequest("quagga okapi zebra3", limit: 100, correctsSpelling: false))
        #expect(again.hits.map(\.key.description) == hits.hits.map(\.key.description) && again.total == hits.total)
        // Only the last round's words remain, each counted once per record holding it.
        #expect(incremental["zebra3"] == 30 && incremental["zebra2"] == nil && incremental["zebra0"] == nil)
        #expect(incremental["quagga"] == 2 * 15 && incremental["okapi"] == 15)
        #expect(incremental != first)

        let rebuilt = try await indexer.rebuild()
        #expect(rebuilt.rebuilt)
        let afterRebuild = try Self.spellings(sandbox)
        #expect(incremental == afterRebuild)
        for word in Set(incremental.keys).union(afterRebuild.keys) where incremental[word] != afterRebuild[word] {
            Issue.record("\(word): \(incremental[word] ?? 0) incrementally, \(afterRebuild[word] ?? 0) rebuilt")
        }
    }

    @Test("a word counts once per occurrence in a spelling field, whatever the field's weight; other fields add none")
    func occurrencesNotWeights() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 100\nspelling = [\"summary\", \"description\"]")
        try sandbox.write([SamplePackage(name: "alpha-tool", summary: "alpha alpha beta", description: "alpha gamma",
                                         maintainer: "Delta Person <delta@example.org>")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        var words = try Self.spellings(sandbox)
        // summary has weight 2: its words still count once each; name and maintainer feed nothing.
        #expect(words["alpha"] == 3 && words["beta"] == 1 && words["gamma"] == 1)
        #expect(words["tool"] == nil && words["delta"] == nil)

        try sandbox.write([SamplePackage(name: "alpha-tool", summary: "beta", description: "gamma gamma",
                                         maintainer: "Epsilon Person <epsilon@example.org>")])
        try await indexer.update()
        words = try Self.spellings(sandbox)
        #expect(words["alpha"] == nil && words["beta"] == 1 && words["gamma"] == 2 && words["epsilon"] == nil)

        try sandbox.delete(["alpha-tool"])
        try await indexer.update()
        #expect(try Self.spellings(sandbox).isEmpty)
    }
}

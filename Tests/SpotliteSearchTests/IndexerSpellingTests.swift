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
        try spellings(at: try #require(try sandbox.liveLayout).shardPaths)
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

    @Test("a word an updated record no longer holds corrects no query; its new words do, as after a rebuild")
    func removedWordsStopCorrecting() async throws {
        let sandbox = try IndexerSandbox()
        let player = SamplePackage(name: "band-player", summary: "plays the xylophone and the xylophone only",
                                   description: "A xylophone simulator.")
        try sandbox.write(SamplePackage.catalogue + [player])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        #expect(try sandbox.makeSearcher().search(SearchRequest("xylophne")).corrected == "xylophone")
        #expect(try Self.spellings(sandbox)["xylophone"] == 3)

        try sandbox.write([SamplePackage(name: "band-player", summary: "plays the marimba", description: "A marimba simulator.")])
        let update = try await indexer.update()
        #expect(!update.rebuilt && update.indexed == 1)
        let searcher = try sandbox.makeSearcher()
        let stale = try searcher.search(SearchRequest("xylophne"))
        #expect(stale.corrected != "xylophone" && stale.suggestion != "xylophone",
                "\(String(describing: stale.corrected)), \(String(describing: stale.suggestion))")
        #expect(try searcher.search(SearchRequest("marimb")).corrected == "marimba")
        let updated = try Self.spellings(sandbox)
        #expect(updated["xylophone"] == nil && updated["marimba"] == 2)
        #expect(try await indexer.rebuild().rebuilt)
        #expect(try Self.spellings(sandbox) == updated)
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

    /// The spelling tables of shards placed at local paths, summed.
    static func spellings(at paths: [String]) throws -> [String: Int] {
        var total: [String: Int] = [:]
        for path in paths {
            for (word, frequency) in try XapianDatabase(path: path).spellings() { total[word, default: 0] += frequency }
        }
        return total
    }

    @Test("shards placed at local paths: the sweep of a rebuild in place and an index deletion take the words out")
    func placedShardsSweepTheirWords() async throws {
        let places = try XapianTestDirectory()
        let paths = [places.database("a"), places.database("b")]
        let sandbox = try IndexerSandbox(top: "shards = [\"\(paths[0])\", \"\(paths[1])\"]")
        let reference = try IndexerSandbox(top: "shards = 2")
        var packages = ShardedIndexTests.generatedPackages(count: 60)
        packages[0].summary += " wombat"
        packages[1].description += " wombat wombat"
        for target in [sandbox, reference] {
            try target.write(packages)
            try await target.makeIndexer().update()
        }
        #expect(try Self.spellings(at: paths) == Self.spellings(reference))
        #expect(try Self.spellings(at: paths)["wombat"] == 3)

        // Rows deleted while the index is rebuilt in place: their documents are swept, and so are their words.
        for target in [sandbox, reference] { try target.delete(packages[0..<12].map(\.name)) }
        try await reference.makeIndexer().update()
        let rebuilt = try await sandbox.makeIndexer().rebuild()
        #expect(rebuilt.rebuilt && rebuilt.indexed == 48)
        let afterSweep = try Self.spellings(at: paths)
        #expect(afterSweep["wombat"] == nil)
        #expect(afterSweep == (try Self.spellings(reference)))

        // Deleting the index empties the placed shards of the words too; the next build starts from nothing.
        let deletion = try await sandbox.makeIndexer().deleteIndex()
        #expect(deletion.documentsDeleted == 48)
        #expect(try Self.spellings(at: paths).isEmpty)
        try await sandbox.makeIndexer().update()
        #expect(try Self.spellings(at: paths) == Self.spellings(reference))
    }
}

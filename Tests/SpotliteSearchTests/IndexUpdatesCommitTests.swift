import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// What `indexUpdates()` posts per commit: the update's running summary with its time so far, and the commit's
/// own share (what `spotlite index watch` prints).
@Suite("Index-did-update: each commit's share and time", .blockingWork)
struct IndexUpdatesCommitTests {
    @Test("commits of one update add up to its summary; a later update starts its counts afresh")
    func commitSharesAddUp() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 1")
        try sandbox.write(Array(SamplePackage.catalogue.prefix(2)))
        let indexer = try sandbox.makeIndexer()
        // Buffered by the stream (the newest 64: far more than these updates post) and read back afterwards.
        var updates = indexer.indexUpdates().makeAsyncIterator()
        let first = try await indexer.update()
        #expect(first.seconds > 0)
        try sandbox.write([SamplePackage.named("gimp")])
        try sandbox.write([SamplePackage.named("inkscape")])
        let second = try await indexer.update()
        #expect(second.transactions == 2 && second.indexed == 2, "\(second)")
        var posts: [IndexDidUpdate] = []
        while let update = try await updates.next(within: "the second update's last commit to be posted") {
            posts.append(update)
            if update.token == second.token && update.summary.indexed == second.indexed { break }
        }

        let rebuild = try #require(posts.first)
        #expect(rebuild.commit.rebuilt && rebuild.commit.indexed == 2 && rebuild.commit.reason != nil)
        // The second update's commits: those past the first update's token. batch_size 1: one commit per
        // transaction (a last commit may only record the position, counting nothing).
        let later = posts.filter { ($0.token?.rawValue ?? 0) > (first.token?.rawValue ?? 0) }
        let counting = later.filter { $0.commit.transactions > 0 }
        #expect(counting.map { "\($0.commit.transactions)/\($0.commit.changes)/\($0.commit.indexed)" } == ["1/1/1", "1/1/1"],
                "each commit counts only itself")
        #expect(later.allSatisfy { !$0.commit.rebuilt })
        #expect(later.map(\.commit.indexed).reduce(0, +) == second.indexed)
        #expect(later.last?.summary.indexed == second.indexed, "the running summary ends at the update's")
        #expect(posts.allSatisfy { $0.summary.seconds > 0 && $0.commit.seconds >= 0 }, "posted summaries carry their time")
        #expect(posts.allSatisfy { $0.commit.token == $0.token })
    }
}

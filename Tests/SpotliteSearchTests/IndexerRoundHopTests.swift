import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// A round of history goes from the driver to the shards through the consumer and the updater, on the driver's
/// thread: the indexer's actor is the public front only, and a round never hops onto it.
@Suite("Indexer round hops", .blockingWork)
struct IndexerRoundHopTests {
    /// Rewrites the summary of the first `count` packages, one transaction each.
    static func touch(_ sandbox: IndexerSandbox, count: Int, round: Int) throws -> HistoryToken? {
        var token: HistoryToken?
        for package in SamplePackage.catalogue.prefix(count) {
            var changed = package
            changed.summary += " revised \(round)"
            token = try sandbox.write([changed])
        }
        return token
    }

    @Test("a live round applies history without hopping onto the indexer's executor")
    func liveRoundMakesNoHop() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 2")
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.start()
        try await IndexerLiveModeTests.indexed(indexer, through: try sandbox.store.currentToken())
        let before = indexer.executorHops
        // Ten changes in batches of two: five batches and five commits, one round or a few.
        let token = try Self.touch(sandbox, count: 10, round: 1)
        try await IndexerLiveModeTests.indexed(indexer, through: token)
        let hops = indexer.executorHops - before
        await indexer.stop()
        #expect(hops == 0, "a live round hopped \(hops) times onto the indexer's executor")
        #expect(try sandbox.keys("revised").count == 10)
    }

    @Test("an update hops onto the indexer's executor a fixed number of times, however many batches it applies")
    func updateHopsDoNotGrowWithBatches() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 2")
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()

        _ = try Self.touch(sandbox, count: 2, round: 1)
        let beforeOne = indexer.executorHops
        let one = try await indexer.update()
        let hopsOne = indexer.executorHops - beforeOne

        _ = try Self.touch(sandbox, count: 10, round: 2)
        let beforeFive = indexer.executorHops
        let five = try await indexer.update()
        let hopsFive = indexer.executorHops - beforeFive

        #expect(one.indexed == 2 && five.indexed == 10)
        // Each batch used to cost two hops (applying it, then reading the checkpoint to save the position); the
        // update's own hops (entering it, its queue, the driver's answer) may differ by one, as its queue's last
        // task ends before or after the next update begins.
        #expect(abs(hopsFive - hopsOne) <= 1, "one batch: \(hopsOne) hops; five batches: \(hopsFive)")
        #expect(hopsOne <= 8, "an update hopped \(hopsOne) times onto the indexer's executor")
    }

    @Test("stop() ends live mode without hopping onto the indexer's executor; start() hops a fixed few times")
    func liveModeStartAndStopHops() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 2")
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let beforeStart = indexer.executorHops
        try await indexer.start()
        let startHops = indexer.executorHops - beforeStart
        try await IndexerLiveModeTests.indexed(indexer, through: try sandbox.store.currentToken())
        let beforeStop = indexer.executorHops
        await indexer.stop()
        let stopHops = indexer.executorHops - beforeStop
        print("live mode hops onto the indexer's executor: start() \(startHops), stop() \(stopHops)")
        #expect(stopHops == 0, "stop() hopped \(stopHops) times onto the indexer's executor")
        #expect(startHops <= 2, "start() hopped \(startHops) times onto the indexer's executor")
        #expect(!(await indexer.isIndexingEnabled))
        // The writer lock went with live mode: another indexer can update the index now.
        try await sandbox.makeIndexer().update()
    }
}

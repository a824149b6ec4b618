import Foundation
import GRDB
import Testing
@testable import SpotliteSearch
import Spotlite
@testable import SpotliteStore
import SpotliteTestSupport

/// A live indexer released without `stop()` while a round runs: its round ends at the next step, nothing crashes,
/// and the writer lock is free for the next indexer.
///
/// The scenario runs in a child process (this test binary again, running only `releasedMidRoundChild()`), so that
/// a crash of the host app fails the test instead of ending the whole run.
@Suite("Indexer lifetime", .serialized, .blockingWork)
struct IndexerLifetimeTests {
    /// Set in the child's environment to the file the child half writes when it has passed every check: the child
    /// half runs only there, and an exit status of 0 with no test run proves nothing.
    static let childVariable = "SPOTLITE_LIFETIME_CHILD"
    static var childMarker: String? { ProcessInfo.processInfo.environment[childVariable] }

    @Test("an indexer released while a live round applies a 20,000-row commit ends the round without a crash")
    func releasedMidRound() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-lifetime-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let child = try RunningChild(CommandLine.arguments[0],
                                     ["--testing-library", "swift-testing", "--filter", "IndexerLifetimeTests/releasedMidRoundChild"],
                                     environment: [Self.childVariable: marker])
        // Indexing 20,000 rows twice in a debug build on a loaded machine: a generous bound.
        let status = try #require(await child.waitForExit(timeout: .seconds(600)), "the child still runs")
        let ending = child.process.terminationReason == .exit ? "status \(status)" : "signal \(status)"
        #expect(child.process.terminationReason == .exit && status == 0,
                "the child ended with \(ending): \(child.standardError)\n\(child.standardOutput.suffix(4000))")
        #expect(FileManager.default.fileExists(atPath: marker), "the child half did not pass: \(child.standardOutput.suffix(4000))")
    }

    /// The child half of ``releasedMidRound()``.
    @Test("the child half of releasing an indexer mid-round", .enabled(if: IndexerLifetimeTests.childMarker != nil))
    func releasedMidRoundChild() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        var indexer: SpotliteIndexer? = try sandbox.makeIndexer()
        try await indexer!.start()
        try await within("the first live round") { [indexer] in
            try await indexer!.waitUntilIndexed(through: try #require(try sandbox.store.currentToken()))
        }
        weak let driver = await indexer!.historyDriver
        #expect(driver != nil)
        var updates = indexer!.indexUpdates().makeAsyncIterator()

        let rows = 20_000
        let written = try sandbox.store.writeReturningToken(author: "app") { db in
            for number in 0..<rows {
                try SamplePackage(name: "generated\(number)", summary: "generated package number \(number)",
                                  description: "word\(number % 97) word\(number % 89) filler text").upsert(in: db)
            }
        }
        let token = try #require(written.token)
        // The round has committed its first batches of the 20,000 rows: it is well under way.
        _ = try await updates.next(within: "the first commit of the live round")
        try await Task.sleep(for: .milliseconds(30))
        weak let released = indexer
        indexer = nil

        // Nothing holds the indexer but the hook in progress, the driver's round ends at its next step, and the
        // driver (owned by the indexer) goes with it.
        #expect(await eventually(timeout: Liveness.limit) { released == nil }, "the indexer was never released")
        #expect(await eventually(timeout: Liveness.limit) { driver == nil }, "the driver's live loop still runs")

        // The lock goes with the indexer (at the very end of its deinit, which a weak reference does not wait
        // for): the next indexer can take it. A lock file tells no one when it is released: a bounded poll.
        let directory = IndexDirectory(path: sandbox.indexPath)
        let free = await eventually(timeout: Liveness.limit) { (try? IndexWriterLock(directory: directory)) != nil }
        #expect(free, "the released indexer's writer lock was never freed")
        // What the round committed is exact: the saved position never leads the index's checkpoint, and the index
        // holds the catalogue and the rows committed so far (the next update applies the rest).
        let indexed = try #require(try sandbox.indexToken())
        let position = try #require(try sandbox.store.position(of: sandbox.configuration.indexer.author)?.token)
        #expect(position <= indexed)
        #expect(indexed < token, "the round was not cut short: the indexer was released after it ended")
        let documents = try sandbox.makeSearcher().documentCount()
        #expect(documents > SamplePackage.catalogue.count && documents < rows + SamplePackage.catalogue.count)
        if let marker = Self.childMarker { try Data("passed\n".utf8).write(to: URL(fileURLWithPath: marker)) }
    }
}

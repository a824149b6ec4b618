import Foundation
import GRDB
import Testing
@testable import SpotliteSearch
import Spotlite
@testable import SpotliteStore
import SpotliteTestSupport
import Synchronization

/// Live mode: start/stop, reacting to writes from anywhere, coalescing bursts, index-did-update notifications.
@Suite("Indexer live mode", .blockingWork)
struct IndexerLiveModeTests {
    /// Collects index-did-update notifications in the background.
    final class UpdateRecorder: Sendable {
        final class Storage: Sendable {
            let updates = Mutex<[IndexDidUpdate]>([])
        }

        private let storage = Storage()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<IndexDidUpdate>) {
            let storage = self.storage
            task = Task { for await update in stream { storage.updates.withLock { $0.append(update) } } }
        }

        deinit { task.cancel() }

        var all: [IndexDidUpdate] { storage.updates.withLock { $0 } }
    }

    /// Waits (bounded) until live mode has indexed through `token`: the index's commit wakes the wait.
    static func indexed(_ indexer: SpotliteIndexer, through token: HistoryToken?) async throws {
        guard let token else { return }
        try await within("the live indexer to index through token \(token)") {
            try await indexer.waitUntilIndexed(through: token)
        }
    }

    @Test("start() catches up, then indexes writes of this process within moments; stop() ends it")
    func followsWrites() async throws {
        let sandbox = try IndexerSandbox()
        let first = try sandbox.write(Array(SamplePackage.catalogue.prefix(3)))
        let indexer = try sandbox.makeIndexer()
        #expect(await !indexer.isIndexingEnabled)
        try await indexer.start()
        try await indexer.start() // idempotent
        #expect(await indexer.isIndexingEnabled)
        try await Self.indexed(indexer, through: first)
        #expect(try sandbox.makeSearcher().documentCount() == 3)

        var updates = indexer.indexUpdates().makeAsyncIterator()
        let token = try sandbox.write([SamplePackage.named("gimp")])
        // An index-did-update notification carries the token now indexed.
        while let update = try await updates.next(within: "an index-did-update notification for token \(String(describing: token))") {
            if update.token == token { break }
        }
        #expect(try sandbox.keys("gimp") == ["gimp"])
        #expect(try sandbox.indexToken() == token)
        await indexer.stop()
        await indexer.stop() // idempotent
        #expect(await !indexer.isIndexingEnabled)
        #expect(await indexer.lastError == nil)
    }

    @Test("a write by the sqlite3 shell is indexed in live mode")
    func followsForeignWrites() async throws {
        let sandbox = try IndexerSandbox()
        let first = try sandbox.write(Array(SamplePackage.catalogue.prefix(3)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.start()
        try await Self.indexed(indexer, through: first)
        #expect(try sandbox.makeSearcher().documentCount() == 3)
        try sandbox.sqlite3("INSERT INTO Package (name, summary) VALUES ('htop', 'interactive processes viewer');")
        try await Self.indexed(indexer, through: try sandbox.store.currentToken())
        #expect(try sandbox.keys("htop") == ["htop"])
        await indexer.stop()
    }

    @Test("a burst of writes becomes few index commits", .timeLimit(.minutes(5)))
    func coalescesBursts() async throws {
        let sandbox = try IndexerSandbox()
        let first = try sandbox.write([SamplePackage.named("vim")])
        // The coalescing window passes only when the test says so: the whole burst lands inside it, however busy
        // the machine.
        let clock = ManualClock()
        let delay = Duration.milliseconds(400)
        let indexer = try SpotliteIndexer(store: sandbox.store, configuration: sandbox.configuration,
                                          coalescingDelay: delay, clock: clock)
        try await indexer.start()
        try await Self.indexed(indexer, through: first)
        #expect(try sandbox.makeSearcher().documentCount() == 1)
        let recorder = UpdateRecorder(indexer.indexUpdates())
        let writes = 40
        for number in 0..<writes {
            try sandbox.write([SamplePackage(name: "burst\(number)", summary: "burst write \(number)")])
        }
        let token = try sandbox.store.currentToken()
        // The first notification of the burst is waiting out the window; let it pass.
        try await within("the indexer to wait out its coalescing window") { await clock.waitForSleepers(1) }
        clock.advance(by: delay)
        try await Self.indexed(indexer, through: token)
        #expect(try sandbox.makeSearcher().documentCount() == writes + 1)
        // Every commit of the burst was posted by then: the recorder's stream has them, and stop() ends the rounds.
        await indexer.stop()
        let commits = recorder.all.count
        #expect(commits < writes / 4, "\(writes) single-row writes gave \(commits) index commits")
    }

    @Test("stop() keeps the position: history written meanwhile is kept by cleanup and indexed after start()")
    func stopKeepsPosition() async throws {
        let sandbox = try IndexerSandbox()
        let author = sandbox.configuration.indexer.author
        let first = try sandbox.write(Array(SamplePackage.catalogue.prefix(3)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.start()
        try await Self.indexed(indexer, through: first)
        await indexer.stop()
        let position = try #require(try sandbox.store.position(of: author))
        #expect(position.token == (try sandbox.indexToken()))

        // Stopped, it no longer listens to the store: nothing can make it index. The subscription ends when the
        // live task's iteration does, which tells no one: a bounded poll.
        #expect(await eventually { sandbox.store.hub.subscriberCount == 0 })
        try sandbox.write([SamplePackage.named("gimp")])
        try sandbox.write([SamplePackage.named("inkscape")])
        #expect(try sandbox.keys("gimp").isEmpty, "a stopped indexer does not index")
        #expect(try sandbox.store.position(of: author)?.token == position.token)
        try sandbox.store.setPosition(try #require(try sandbox.store.currentToken()), for: "app")
        try HistoryDeleter(store: sandbox.store, policy: sandbox.configuration.deletionPolicy).deleteConsumedHistory()
        #expect(try sandbox.store.countHistory(.after(position.token)) == 2)

        try await indexer.start()
        try await Self.indexed(indexer, through: try sandbox.store.currentToken())
        #expect(try sandbox.keys("inkscape") == ["inkscape"])
        await indexer.stop()
        #expect(try sandbox.store.position(of: author)?.token == (try sandbox.store.currentToken()))
    }

    @Test("deleteIndex() refuses while running; after stop() it removes the index and the position")
    func deleteIndex() async throws {
        let sandbox = try IndexerSandbox()
        let written = try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.start()
        try await Self.indexed(indexer, through: written)
        #expect(try sandbox.makeSearcher().documentCount() == SamplePackage.catalogue.count)
        await #expect(throws: SearchError.indexingRunning) { try await indexer.deleteIndex() }
        #expect(FileManager.default.fileExists(atPath: sandbox.indexPath))

        await indexer.stop()
        try await indexer.deleteIndex()
        #expect(!FileManager.default.fileExists(atPath: sandbox.indexPath))
        #expect(try sandbox.store.position(of: sandbox.configuration.indexer.author) == nil)
        #expect(throws: SearchError.indexMissing(path: sandbox.indexPath)) {
            try sandbox.makeSearcher().search(SearchRequest("vim"))
        }
        // Deleting twice is harmless, and the next update builds it again.
        try await indexer.deleteIndex()
        #expect(try await indexer.update().reason == "there is no index yet")
    }

    @Test("a failing live update is retried until it succeeds; lastError says what failed meanwhile")
    func retriesFailures() async throws {
        final class FailsFirst: IndexDocumentProvider {
            struct Unavailable: Error, CustomStringConvertible {
                var description: String { "the related service is unavailable" }
            }
            let remainingFailures = Mutex(3)
            let fields: [IndexSchema.Field]
            init(fields: [IndexSchema.Field]) { self.fields = fields }
            func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet? {
                let fail = remainingFailures.withLock { count -> Bool in
                    guard record.key == "gimp".databaseValue, count > 0 else { return false }
                    count -= 1
                    return true
                }
                if fail { throw Unavailable() }
                return AttributeSet(row: record.row, fields: fields)
            }
        }
        let sandbox = try IndexerSandbox()
        let first = try sandbox.write([SamplePackage.named("vim")])
        let provider = FailsFirst(fields: try IndexSchema(configuration: sandbox.configuration).entity(named: "Package").fields)
        // The retry delays pass only when the test says so: each failure is seen while its retry waits.
        let clock = ManualClock()
        let indexer = try SpotliteIndexer(store: sandbox.store, configuration: sandbox.configuration,
                                          documentProvider: provider, coalescingDelay: .zero, clock: clock)
        try await indexer.start()
        try await Self.indexed(indexer, through: first)
        let token = try sandbox.write([SamplePackage.named("gimp")])
        // 100 ms, then doubling.
        for delay in [100, 200, 400] {
            try await within("the live indexer to wait before retrying") { await clock.waitForSleepers(1) }
            #expect(await indexer.lastError is FailsFirst.Unavailable, "the provider's own error, as it threw it")
            clock.advance(by: .milliseconds(delay))
        }
        try await Self.indexed(indexer, through: token)
        #expect(try sandbox.keys("gimp") == ["gimp"], "retried without another write")
        #expect(provider.remainingFailures.withLock { $0 } == 0)
        // An update queues behind the live round, so the round has ended when it returns.
        try await indexer.update()
        #expect(await indexer.lastError == nil, "a success clears the last error")
        await indexer.stop()
    }
}

import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite
import Synchronization

/// Failures never advance the token past changes that are not in the index.
@Suite("Indexer failures", .blockingWork)
struct IndexerFailureTests {
    /// Makes Xapian reject the write of chosen documents for real: a boolean term over the 245-byte limit fails
    /// `replace_document` and makes Xapian discard every change since the last commit.
    final class WriteSaboteur: Sendable {
        private let state: Mutex<(keys: Set<String>, remaining: Int, failures: Int)>

        /// Fails the writes of `keys` the first `times` times one of them is written (Int.max: always).
        init(keys: Set<String>, times: Int) {
            state = Mutex((keys, times, 0))
        }

        var failures: Int { state.withLock { $0.failures } }

        func stop() { state.withLock { $0.remaining = 0 } }

        func hook(idTerm: String, document: XapianDocument) throws {
            let sabotage = state.withLock { state -> Bool in
                guard state.remaining > 0, state.keys.contains(where: { idTerm == "QPackage:" + $0 }) else { return false }
                state.remaining -= 1
                state.failures += 1
                return true
            }
            if sabotage { try document.addBooleanTerm("X" + String(repeating: "x", count: 300)) }
        }
    }

    @Test("a Xapian write failure loses the batch, which is replayed from the last committed token")
    func writeFailureReplays() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 4")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let saboteur = WriteSaboteur(keys: ["gimp"], times: 1)
        await indexer.setDocumentWriteHook(saboteur.hook)

        // Three single-row transactions and one of three rows: two batches, the second containing gimp.
        for name in ["nano", "grep", "coreutils"] { try sandbox.write([SamplePackage.named(name)]) }
        try sandbox.write([SamplePackage.named("sqlite3"), SamplePackage.named("gimp"), SamplePackage.named("inkscape")])
        let newest = try sandbox.store.currentToken()
        let summary = try await indexer.update()
        #expect(saboteur.failures == 1)
        #expect(summary.token == newest)
        #expect(try sandbox.indexToken() == newest)
        #expect(Set(try sandbox.keys("")) == ["vim", "nano", "grep", "coreutils", "sqlite3", "gimp", "inkscape"],
                "the documents written before the failure in its batch are written again")
        #expect(summary.transactions == 4, "each transaction counted once, replays included")
        #expect(try sandbox.store.position(of: sandbox.configuration.indexer.author)?.token == newest)
    }

    @Test("a live round Xapian fails leaves a SearchError with its way out in lastError; the next success clears it")
    func liveWriteFailureIsTyped() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let saboteur = WriteSaboteur(keys: ["gimp"], times: .max)
        await indexer.setDocumentWriteHook(saboteur.hook)
        try await indexer.start()
        let token = try #require(try sandbox.write([SamplePackage.named("gimp")]))
        let failed = await eventually(timeout: .seconds(30)) { await indexer.lastError != nil }
        #expect(failed, "the live round failed")
        let error = await indexer.lastError as? SearchError
        guard case let .engine(engineError, nil)? = error else {
            Issue.record("expected the engine's failure as a SearchError, got \(String(describing: error))")
            await indexer.stop()
            return
        }
        #expect(engineError.code == .invalidArgument && engineError.batchLost)
        #expect(error?.recovery == .checkDiskOrRebuild)
        saboteur.stop()
        try await within("the live indexer to retry and succeed") { try await indexer.waitUntilIndexed(through: token) }
        // The round ends (and clears the error) just after its commit is visible.
        let cleared = await eventually(timeout: .seconds(30)) { await indexer.lastError == nil }
        #expect(cleared, "a success clears the last error")
        await indexer.stop()
    }

    @Test("a write that keeps failing stops the update; the token stays at the last commit; the next update finishes")
    func persistentWriteFailure() async throws {
        // One shard: with several, the shards the failing record does not go to commit their part of its batch
        // (see the sharded variant below).
        let sandbox = try IndexerSandbox(top: "shards = 1", indexer: "batch_size = 2")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let saboteur = WriteSaboteur(keys: ["gimp"], times: .max)
        await indexer.setDocumentWriteHook(saboteur.hook)
        let author = sandbox.configuration.indexer.author

        try sandbox.write([SamplePackage.named("nano")])
        try sandbox.write([SamplePackage.named("grep")])
        let beforeFailure = try #require(try sandbox.store.currentToken())
        try sandbox.write([SamplePackage.named("gimp")])
        try sandbox.write([SamplePackage.named("inkscape")])
        let newest = try sandbox.store.currentToken()

        let error = await #expect(throws: SearchError.self) { try await indexer.update() }
        guard case let .engine(engineError, outcome)? = error else {
            Issue.record("expected an engine error, got \(String(describing: error))")
            return
        }
        #expect(engineError.code == .invalidArgument && engineError.type == "InvalidArgumentError")
        #expect(engineError.message.contains("Term too long"), "message: \(engineError.message)")
        #expect(outcome == .indexAtLastCommit(nextUpdateRetries: true))
        #expect(saboteur.failures == SpotliteIndexer.maximumReplays + 1)
        #expect(try sandbox.indexToken() == beforeFailure, "the batch before the failing one was committed")
        #expect(try sandbox.store.position(of: author)?.token == beforeFailure, "the checkpoint never leads")
        #expect(Set(try sandbox.keys("")) == ["vim", "nano", "grep"])

        saboteur.stop()
        let summary = try await indexer.update()
        #expect(!summary.rebuilt)
        #expect(summary.token == newest)
        #expect(Set(try sandbox.keys("")) == ["vim", "nano", "grep", "gimp", "inkscape"])
        #expect(try sandbox.store.position(of: author)?.token == newest)
    }

    @Test("a failed write during a rebuild leaves the old index live and untouched")
    func rebuildFailureKeepsOldIndex() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(3)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let directory = IndexDirectory(path: sandbox.indexPath)
        let live = try #require(directory.liveGeneration)
        try sandbox.write([SamplePackage.named("gimp")])
        await indexer.setDocumentWriteHook(WriteSaboteur(keys: ["gimp"], times: .max).hook)

        let error = await #expect(throws: SearchError.self) { try await indexer.rebuild() }
        guard case .engine(_, .rebuildDiscarded?)? = error else {
            Issue.record("expected a discarded rebuild, got \(String(describing: error))")
            return
        }
        #expect(directory.liveGeneration == live)
        #expect(directory.generations() == [live], "the half-built generation is removed")
        #expect(Set(try sandbox.keys("")) == ["vim", "nano", "grep"])
    }

    @Test("a provider that throws stops the update without advancing the token")
    func providerFailure() async throws {
        final class Fragile: IndexDocumentProvider {
            struct Broken: Error {}
            let failing = Mutex(false)
            let fields: [IndexSchema.Field]

            init(configuration: SpotliteConfiguration) throws {
                fields = try IndexSchema(configuration: configuration).entity(named: "Package").fields
            }

            func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet? {
                if failing.withLock({ $0 }) { throw Broken() }
                return AttributeSet(row: record.row, fields: fields)
            }
        }
        let sandbox = try IndexerSandbox()
        try sandbox.write([SamplePackage.named("vim")])
        let provider = try Fragile(configuration: sandbox.configuration)
        let indexer = try sandbox.makeIndexer(provider: provider)
        try await indexer.update()
        let indexed = try sandbox.indexToken()

        provider.failing.withLock { $0 = true }
        try sandbox.write([SamplePackage.named("nano")])
        await #expect(throws: Fragile.Broken.self) { try await indexer.update() }
        #expect(try sandbox.indexToken() == indexed)
        provider.failing.withLock { $0 = false }
        try await indexer.update()
        #expect(try sandbox.keys("nano") == ["nano"])
    }
}

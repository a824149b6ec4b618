import Foundation
import GRDB
import Synchronization
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// What the README and the docs promise embedders of the indexer and the configuration, through the public API.
@Suite("Library promises: configuration and indexer", .blockingWork)
struct LibraryPromisesSearchTests {
    final class Inbox: HistorySubscriber {
        let received = Mutex<[HistoryTransaction]>([])
        func merge(_ transactions: [HistoryTransaction]) async throws {
            received.withLock { $0 += transactions }
        }
        var transactions: [HistoryTransaction] { received.withLock { $0 } }
    }

    @Test("the tracker built from the configuration delivers writes by the sqlite3 shell")
    func configuredTrackerDeliversShellWrites() async throws {
        let sandbox = try IndexerSandbox()
        let inbox = Inbox()
        let tracker = try HistoryTracker(
            store: sandbox.store,
            configuration: sandbox.configuration.trackerConfiguration(currentAuthor: "app", autoStart: false),
            subscribers: [inbox])
        try sandbox.sqlite3("INSERT INTO Package (name, summary) VALUES ('from-the-shell', 'typed by hand');")
        let summary = try await tracker.processPendingHistory()
        #expect(summary.deliveredTransactions == 1)
        #expect(inbox.transactions.map(\.author) == [nil])
        #expect(inbox.transactions.first?.changes.map(\.key) == ["from-the-shell".databaseValue])
    }

    @Test("deliver_unattributed = false passes over the shell's writes, as configured")
    func unattributedCanBeLeftOut() async throws {
        let sandbox = try IndexerSandbox(history: "deliver_unattributed = false")
        #expect(sandbox.configuration.history.deliversUnattributedTransactions == false)
        let inbox = Inbox()
        let tracker = try HistoryTracker(
            store: sandbox.store,
            configuration: sandbox.configuration.trackerConfiguration(currentAuthor: "app", autoStart: false),
            subscribers: [inbox])
        try sandbox.sqlite3("INSERT INTO Package (name, summary) VALUES ('from-the-shell', 'typed by hand');")
        try await tracker.processPendingHistory()
        #expect(inbox.transactions.isEmpty)
        #expect(try tracker.position()?.token == (try sandbox.store.currentToken()))
        #expect(throws: ConfigurationError.self) {
            _ = try SpotliteConfiguration(tomlString: "[history]\ndeliver_unattributed = \"no\"\n")
        }
    }

    @Test("deleteIndex() stops cleanup waiting for the indexer at once")
    func deleteIndexReleasesCleanup() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        #expect(try sandbox.store.registeredConsumers() == [sandbox.configuration.indexer.author])

        try sandbox.write([SamplePackage(name: "lunar-editor", summary: "an editor for the moon")])
        let newest = try #require(try sandbox.store.currentToken())
        try sandbox.store.setPosition(newest, for: "app")
        let deleter = HistoryDeleter(store: sandbox.store, policy: sandbox.configuration.deletionPolicy)
        let held = try deleter.deleteConsumedHistory(dryRun: true)
        #expect(held.keptTransactions >= 1, "the indexer has not indexed the new package: its history is kept; \(held)")

        try await indexer.deleteIndex()
        #expect(try sandbox.store.registeredConsumers().isEmpty)
        let result = try deleter.deleteConsumedHistory()
        #expect(result.absentAuthors.isEmpty, "\(result.reason)")
        #expect(result.keptTransactions == 0, "\(result.reason)")
    }

    @Test("each index-did-update event tells what its own commit did")
    func updateEventsArePerCommit() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 7")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        let updates = indexer.indexUpdates()
        for number in 0..<20 {
            try sandbox.write([SamplePackage(name: "single\(number)", summary: "single row number \(number)")])
        }
        let token = try sandbox.store.currentToken()
        let summary = try await indexer.update()
        let commits = try await within("index updates through token \(String(describing: token))") {
            var commits: [IndexDidUpdate] = []
            for await update in updates {
                commits.append(update)
                if update.token == token { break }
            }
            return commits
        }
        #expect(commits.first?.commit.rebuilt == true)
        #expect(commits.dropFirst().allSatisfy { !$0.commit.rebuilt && $0.commit.reason == nil })
        #expect(commits.map(\.commit.indexed).reduce(0, +) == summary.indexed)
        #expect(commits.map(\.commit.transactions).reduce(0, +) == summary.transactions)
        #expect(commits.dropFirst().allSatisfy { $0.commit.indexed <= 7 }, "\(commits.map(\.commit.indexed))")
    }

    @Test("a write's token says when the index has it; the indexed document reads back by key")
    func waitForAWriteAndReadItBack() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.start()
        let written = try sandbox.store.writeReturningToken(author: "app") { db in
            try SamplePackage(name: "lunar-editor", summary: "an editor for the moon", version: "1.2").upsert(in: db)
        }
        let token = try #require(written.token)
        try await within("the live indexer to index token \(token)") {
            try await indexer.waitUntilIndexed(through: token)
        }
        #expect(try #require(try indexer.indexedToken()) >= token)

        let searcher = try sandbox.makeSearcher()
        #expect(try searcher.search(SearchRequest("moon")).hits.map(\.key) == [.text("lunar-editor")])
        let document = try #require(try searcher.document(entity: "Package", key: "lunar-editor".databaseValue))
        #expect(document.entity == "Package")
        #expect(document.key == .text("lunar-editor"))
        #expect(document.fields["summary"] == .text("an editor for the moon"))
        #expect(document.fields["version"] == .text("1.2"))
        #expect(try searcher.document(entity: "Package", key: "no-such-package".databaseValue) == nil)
        await indexer.stop()
    }
}

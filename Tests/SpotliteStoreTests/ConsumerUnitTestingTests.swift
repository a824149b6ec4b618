import Foundation
import SpotliteStore
import SpotliteTestSupport
import Synchronization
import Testing

// Deliberately without `@testable`: an app's tests see only the public API, and must be able to test a consumer
// with batches and pages made by hand.

/// A consumer's `apply` unit-tested the way an app would: batches made with the public initialisers, no store and
/// no driver.
@Suite("Consumers: testing one without a store", .blockingWork)
struct ConsumerUnitTestingTests {
    /// An app's consumer: keeps each Package's summary, as an embedding index keeps vectors.
    final class SummaryIndex: HistoryConsumer {
        let consumerName = "summaries"
        private let summaries = Mutex<[String: String]>([:])
        private let position = Mutex<HistoryToken?>(nil)

        func document(for record: RecordID, in db: Database) throws -> String? {
            try String.fetchOne(db, sql: "SELECT summary FROM Package WHERE name = ?", arguments: [record.key])
        }

        func apply(_ batch: HistoryBatch<String>) async throws {
            summaries.withLock { summaries in
                if batch.kind == .snapshot && batch.isFirstOfSnapshot { summaries = [:] }
                for upsert in batch.upserts { summaries[upsert.record.key.description] = upsert.document }
                for record in batch.deletions { summaries[record.key.description] = nil }
            }
            if let token = batch.position { position.withLock { $0 = token } }
        }

        var current: [String: String] { summaries.withLock { $0 } }
        var appliedPosition: HistoryToken? { position.withLock { $0 } }
    }

    static func package(_ name: String) -> RecordID {
        RecordID(entity: "Package", key: name.databaseValue)
    }

    @Test func aConsumerAppliesHandMadeSnapshotAndHistoryBatches() async throws {
        let index = SummaryIndex()
        try await index.apply(HistoryBatch(kind: .snapshot, isFirstOfSnapshot: true,
                                           upserts: [.init(record: Self.package("vim"), document: "editor"),
                                                     .init(record: Self.package("nano"), document: "small editor")]))
        #expect(index.current == ["\"vim\"": "editor", "\"nano\"": "small editor"])
        #expect(index.appliedPosition == nil, "a snapshot batch that is not the last moves no position")

        let delete = HistoryChange(changeID: 7, token: HistoryToken(3), entity: "Package", key: "nano".databaseValue,
                                   changeType: .delete)
        let transaction = HistoryTransaction(token: HistoryToken(3), timestamp: Date(timeIntervalSince1970: 0),
                                             author: "app", contextName: nil, processID: nil, changes: [delete])
        try await index.apply(HistoryBatch(transactions: [transaction],
                                           upserts: [.init(record: Self.package("vim"), document: "Vi IMproved")],
                                           deletions: [Self.package("nano")], position: HistoryToken(3),
                                           cursor: HistoryCursor(token: HistoryToken(3))))
        #expect(index.current == ["\"vim\"": "Vi IMproved"])
        #expect(index.appliedPosition == HistoryToken(3))

        // A new snapshot replaces everything held.
        try await index.apply(HistoryBatch(kind: .snapshot, isFirstOfSnapshot: true,
                                           upserts: [.init(record: Self.package("emacs"), document: "another editor")],
                                           position: HistoryToken(9), cursor: HistoryCursor(token: HistoryToken(9))))
        #expect(index.current == ["\"emacs\"": "another editor"])
        #expect(index.appliedPosition == HistoryToken(9))
    }

    @Test func aHandMadeBatchHasTheDriversDefaults() {
        let batch = HistoryBatch<String>()
        #expect(batch.kind == .history)
        #expect(!batch.isFirstOfSnapshot)
        #expect(batch.transactions.isEmpty && batch.upserts.isEmpty && batch.deletions.isEmpty)
        #expect(batch.position == nil && batch.cursor == nil)
    }

    @Test func aHandMadePageEqualsTheStoresOwn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = StoreModel(entities: [EntityDescription(
            name: "Package", key: "name", keyType: .text, attributes: [AttributeDescription(name: "summary", type: .text)])])
        let store = try SpotliteStore(path: directory.appendingPathComponent("store.sqlite").path, model: model)
        let token = try store.writeReturningToken(author: "app") { db in
            try db.execute(sql: "INSERT INTO Package (name, summary) VALUES ('vim', 'editor'), ('nano', 'editor')")
        }.token
        let fetched = try store.fetchHistory(after: HistoryCursor(token: nil), matching: HistoryRequest(), maximumChanges: 10)

        let made = HistoryChangePage(transactions: fetched.transactions, isComplete: true,
                                     next: HistoryCursor(token: token), position: token)
        #expect(made == fetched)
        #expect(made.transactions.first?.changes.count == 2)
    }
}

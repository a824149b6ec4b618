import Foundation
import GRDB
import Synchronization
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// The driver's optional hooks through the public API: a consumer that commits its own checkpoint with its data,
/// resynchronises itself, leaves changes out, reads documents in bulk and adds related records.
@Suite("Consumers: the driver's hooks", .blockingWork)
struct HistoryConsumerHookTests {
    /// Keeps summaries and its checkpoint together, as an index commits its documents with its token: what a
    /// crash cannot separate.
    final class CheckpointedMirror: HistoryConsumer {
        struct Refusal: Error {}
        struct State {
            var summaries: [String: String] = [:]
            var checkpoint: HistoryCursor?
        }

        var consumerName: String { "checkpointed" }
        var filter: HistoryRequest { HistoryRequest(entities: ["Package"]) }
        let state = Mutex(State())
        let batches = Recorder<HistoryBatch<String>>()
        let resynchronizations = Recorder<HistoryResynchronizationReason>()
        let backlogReason = Mutex<String?>(nil)
        let acceptedBatches = Mutex(Int.max)
        let store: SpotliteStore

        init(store: SpotliteStore) { self.store = store }

        func document(for record: RecordID, in db: Database) throws -> String? {
            try String.fetchOne(db, sql: "SELECT summary FROM Package WHERE name = ?", arguments: [record.key])
        }

        func apply(_ batch: HistoryBatch<String>) async throws {
            guard acceptedBatches.withLock({ accepted in
                defer { accepted -= 1 }
                return accepted > 0
            }) else { throw Refusal() }
            batches.append(batch)
            state.withLock { state in
                if batch.isFirstOfSnapshot { state.summaries = [:] }
                for upsert in batch.upserts { state.summaries[upsert.record.key.description] = upsert.document }
                for record in batch.deletions { state.summaries[record.key.description] = nil }
                if let cursor = batch.cursor { state.checkpoint = cursor }
            }
        }

        func resumePoint() throws -> HistoryResumePoint {
            state.withLock { $0.checkpoint.map { .after($0) } ?? .start }
        }

        func resynchronizationReason(resumingAfter cursor: HistoryCursor) throws -> String? {
            backlogReason.withLock { $0 }
        }

        /// Rebuilds from one read of the rows, switching summaries and checkpoint at once.
        func resynchronize(because reason: HistoryResynchronizationReason, from store: SpotliteStore) async throws
            -> HistoryResynchronization
        {
            resynchronizations.append(reason)
            let (token, rows) = try store.read { db in
                (try SpotliteStore.currentToken(in: db),
                 try Row.fetchAll(db, sql: "SELECT name, summary FROM Package"))
            }
            state.withLock { state in
                state.summaries = Dictionary(uniqueKeysWithValues: rows.map { ("\"\($0["name"] as String)\"", $0["summary"] as String) })
                state.checkpoint = HistoryCursor(token: token)
            }
            return .completed(through: token)
        }

        var summaries: [String: String] { state.withLock { $0.summaries } }
        var checkpoint: HistoryCursor? { state.withLock { $0.checkpoint } }
    }

    @Test func aConsumerHoldingNothingResynchronisesItselfAndSaysWhy() async throws {
        let test = try TestStore()
        try test.store.insertPackages(["vim", "emacs"], author: "app")
        let mirror = CheckpointedMirror(store: test.store)
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .snapshot)

        let first = try await driver.processPending()
        #expect(first.resynchronization == .firstStart)
        #expect(mirror.resynchronizations.values == [.firstStart])
        #expect(mirror.batches.values.isEmpty, "the consumer rebuilt itself: no snapshot batch")
        #expect(mirror.summaries == ["\"vim\"": "about vim", "\"emacs\"": "about emacs"])
        #expect(try driver.position() == (try test.store.currentToken()))

        let later = try test.store.insertPackages(["nano"], author: "app")
        let second = try await driver.processPending()
        #expect(second.resynchronization == nil)
        #expect(mirror.summaries["\"nano\""] == "about nano")
        #expect(mirror.checkpoint == HistoryCursor(token: later))
    }

    @Test func theConsumersCheckpointWinsOverTheSavedPositionAfterACrash() async throws {
        let test = try TestStore()
        let mirror = CheckpointedMirror(store: test.store)
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning)
        let first = try test.store.insertPackages(["vim"], author: "app")
        try await driver.processPending()
        let second = try test.store.insertPackages(["emacs"], author: "app")
        try await driver.processPending()
        #expect(mirror.checkpoint == HistoryCursor(token: second))

        // The process died after the consumer's commit, before the driver saved the position.
        try test.store.saveConsumerPosition(first, for: "checkpointed")
        let restarted = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning)
        let before = mirror.batches.values.count
        let round = try await restarted.processPending()
        #expect(round.upserts == 0 && mirror.batches.values.count == before, "nothing delivered twice")
        #expect(try restarted.position() == second, "the saved position caught up with the consumer's checkpoint")
    }

    @Test func aTransactionCutIntoPiecesResumesInsideItFromTheConsumersCheckpoint() async throws {
        let test = try TestStore()
        let mirror = CheckpointedMirror(store: test.store)
        let big = try test.store.insertPackages((1...10).map { "p\($0)" }, author: "importer")
        mirror.acceptedBatches.withLock { $0 = 2 }
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning, maximumChanges: 3)
        await #expect(throws: CheckpointedMirror.Refusal.self) { try await driver.processPending() }
        let checkpoint = try #require(mirror.checkpoint)
        #expect(checkpoint.token == nil && checkpoint.changeID != nil, "inside the transaction: \(checkpoint)")
        #expect(mirror.batches.values.allSatisfy { $0.position == nil })
        #expect(try driver.position() == nil, "the saved position waits for the end of the transaction")

        // A new driver (nothing in memory) resumes after the consumer's checkpoint, inside the transaction.
        mirror.acceptedBatches.withLock { $0 = .max }
        let restarted = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning, maximumChanges: 3)
        let round = try await restarted.processPending()
        #expect(round.upserts == 4, "only the changes after the checkpoint: \(round)")
        #expect(mirror.summaries.count == 10)
        #expect(mirror.checkpoint == HistoryCursor(token: big))
        #expect(try restarted.position() == big)
    }

    @Test func historyLeftOutByTheFilterStillMovesTheConsumersCheckpoint() async throws {
        let test = try TestStore()
        let mirror = CheckpointedMirror(store: test.store)
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning)
        let last = try test.store.run("INSERT INTO Item (id, label) VALUES (1, 'not a package');", author: "app")
        let round = try await driver.processPending()
        #expect(round.passedOver == 1)
        #expect(mirror.batches.values.map(\.upserts.count) == [0])
        #expect(mirror.checkpoint == HistoryCursor(token: last), "or a wait for this token would never end")
    }

    @Test func aConsumerAskingForAResynchronisationGetsOneWithItsReason() async throws {
        let test = try TestStore()
        let mirror = CheckpointedMirror(store: test.store)
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning)
        try await driver.processPending()
        try test.store.insertPackages((1...5).map { "p\($0)" }, author: "app")
        mirror.backlogReason.withLock { $0 = "5 pending changes: rebuilding is faster" }

        let round = try await driver.processPending()
        #expect(round.resynchronization == .requested("5 pending changes: rebuilding is faster"))
        #expect(round.snapshot)
        #expect(mirror.summaries.count == 5)
        #expect(try driver.position() == (try test.store.currentToken()))

        mirror.backlogReason.withLock { $0 = nil }
        let forced = try await driver.resynchronize(reason: "the user asked")
        #expect(forced.resynchronization == .requested("the user asked"))
        #expect(mirror.resynchronizations.values.last == .requested("the user asked"))
    }

    @Test func deletedHistoryResynchronisesTheConsumerWithTheTokensInTheReason() async throws {
        let test = try TestStore()
        let mirror = CheckpointedMirror(store: test.store)
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning)
        let seen = try test.store.insertPackages(["vim"], author: "app")
        try await driver.processPending()
        try test.store.insertPackages(["emacs"], author: "app")
        let last = try test.store.insertPackages(["nano"], author: "app")
        // Deleted behind the consumer's back: unregistered, then cleaned, then back with its old checkpoint.
        try test.store.deleteHistory(.through(last))

        let round = try await driver.processPending()
        #expect(round.resynchronization == .historyDeleted(requested: seen, purgedThrough: last))
        #expect(round.resynchronization?.description.contains("was deleted") == true)
        #expect(mirror.summaries.count == 3)
    }

    @Test func aSnapshotsLastBatchCarriesItsTokenAsPositionAndCursor() async throws {
        let test = try TestStore()
        let token = try test.store.insertPackages((1...5).map { "p\($0)" }, author: "app")
        let batches = Recorder<HistoryBatch<[String: DatabaseValue]>>()
        struct Rows: HistoryConsumer {
            let batches: Recorder<HistoryBatch<[String: DatabaseValue]>>
            var consumerName: String { "rows" }
            func apply(_ batch: HistoryBatch<[String: DatabaseValue]>) async throws { batches.append(batch) }
        }
        let driver = try HistoryConsumerDriver(store: test.store, consumer: Rows(batches: batches), start: .snapshot,
                                               maximumChanges: 2)
        let round = try await driver.processPending()
        #expect(round.resynchronization == .firstStart)
        #expect(batches.values.map(\.upserts.count) == [2, 2, 1])
        #expect(batches.values.map(\.isFirstOfSnapshot) == [true, false, false])
        #expect(batches.values.map(\.position) == [nil, nil, token])
        #expect(batches.values.map(\.cursor) == [nil, nil, HistoryCursor(token: token)])
    }

    /// Indexes summaries only, reads them in bulk, and follows each package with the items naming it.
    struct SummaryIndex: HistoryConsumer {
        let batches: Recorder<HistoryBatch<String>>
        let bulkReads: Recorder<Int>
        var consumerName: String { "summaries" }

        func includes(_ change: HistoryChange) -> Bool {
            change.changeType != .update || change.entity != "Package" || change.updatedColumns?.contains("summary") != false
        }

        func document(for record: RecordID, in db: Database) throws -> String? {
            Issue.record("documents(for:in:) reads in bulk; document(for:in:) is not called")
            return nil
        }

        func documents(for records: [RecordID], in db: Database) throws -> [String?] {
            bulkReads.append(records.count)
            return try records.map { record in
                record.entity == "Package"
                    ? try String.fetchOne(db, sql: "SELECT summary FROM Package WHERE name = ?", arguments: [record.key])
                    : try String.fetchOne(db, sql: "SELECT label FROM Item WHERE id = ?", arguments: [record.key])
            }
        }

        func relatedRecords(of records: [RecordID], in db: Database) throws -> [RecordID] {
            let names = records.filter { $0.entity == "Package" }.map(\.key)
            guard !names.isEmpty else { return [] }
            return try Int64.fetchAll(
                db, sql: "SELECT id FROM Item WHERE label IN (\(names.map { _ in "?" }.joined(separator: ",")))",
                arguments: StatementArguments(names)
            ).map { RecordID(entity: "Item", key: $0.databaseValue) }
        }

        func apply(_ batch: HistoryBatch<String>) async throws { batches.append(batch) }
    }

    @Test func relatedRecordsComeWithTheChangedOnesAndLeftOutChangesBringNoRecord() async throws {
        let test = try TestStore()
        let batches = Recorder<HistoryBatch<String>>()
        let bulkReads = Recorder<Int>()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: SummaryIndex(batches: batches, bulkReads: bulkReads),
                                               start: .now)
        try test.store.run("INSERT INTO Item (id, label) VALUES (7, 'vim'); INSERT INTO Item (id, label) VALUES (8, 'other');",
                           author: "app")
        try await driver.processPending()
        try test.store.run("INSERT INTO Package (name, summary) VALUES ('vim', 'editor');", author: "app")
        try test.store.run("UPDATE Package SET size = 3 WHERE name = 'vim';", author: "app")
        let round = try await driver.processPending()

        let last = try #require(batches.values.last)
        #expect(last.upserts.map(\.record.description) == ["Package/\"vim\"", "Item/7"], "related after changed, each once")
        #expect(last.transactions.count == 2, "the left-out update still comes as history")
        #expect(round.upserts == 2)
        #expect(bulkReads.values.last == 2, "one bulk read for the batch")
    }

    @Test func keysDifferingOnlyInUnicodeNormalisationAreDifferentRecords() async throws {
        let test = try TestStore()
        let batches = Recorder<HistoryBatch<String>>()
        let bulkReads = Recorder<Int>()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: SummaryIndex(batches: batches, bulkReads: bulkReads),
                                               start: .now)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try test.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Package (name, summary) VALUES (?, 'one'), (?, 'two')",
                           arguments: [composed, decomposed])
        }
        try await driver.processPending()
        #expect(batches.values.last?.upserts.map(\.document).sorted() == ["one", "two"])
    }
}

/// A consumer whose `apply` returns with its commit still in flight, made durable by the next batch or `flush()`.
@Suite("Consumers: a consumer committing in the background", .blockingWork)
struct HistoryConsumerPipelineTests {
    final class Pipelined: HistoryConsumer {
        struct State {
            var inFlight: HistoryCursor?
            var durable: HistoryCursor?
            var savedPositionsSeenAtApply: [HistoryToken?] = []
        }

        var consumerName: String { "pipelined" }
        let state = Mutex(State())
        let store: SpotliteStore

        init(store: SpotliteStore) { self.store = store }

        func apply(_ batch: HistoryBatch<[String: DatabaseValue]>) async throws {
            let saved = try store.position(of: consumerName)?.token
            state.withLock { state in
                state.savedPositionsSeenAtApply.append(saved)
                // The previous commit completes as the next batch is handed over.
                if let inFlight = state.inFlight { state.durable = inFlight }
                state.inFlight = batch.cursor
            }
        }

        func flush() async throws {
            state.withLock { state in
                if let inFlight = state.inFlight { state.durable = inFlight }
                state.inFlight = nil
            }
        }

        func resumePoint() async throws -> HistoryResumePoint {
            state.withLock { $0.durable.map { .after($0) } ?? .start }
        }
    }

    @Test func theSavedPositionNeverLeadsWhatTheConsumerCommitted() async throws {
        let test = try TestStore()
        let consumer = Pipelined(store: test.store)
        let driver = try HistoryConsumerDriver(store: test.store, consumer: consumer, start: .beginning, maximumChanges: 1)
        let first = try test.store.insertPackages(["a"], author: "app")
        let second = try test.store.insertPackages(["b"], author: "app")
        let third = try test.store.insertPackages(["c"], author: "app")

        let round = try await driver.processPending()
        #expect(round.batches == 3)
        // When each batch arrived, the saved position was at most the previous batch's durable commit.
        #expect(consumer.state.withLock { $0.savedPositionsSeenAtApply } == [nil, nil, first], "one batch behind")
        #expect(try driver.position() == third, "flush() made the last batch durable, then the position followed")
        _ = second
    }

    /// Records the isolation its `apply(_:)` runs in.
    struct IsolationProbe: HistoryConsumer {
        let isolations: Recorder<String>
        var consumerName: String { "probe" }
        nonisolated(nonsending) func apply(_ batch: HistoryBatch<[String: DatabaseValue]>) async throws {
            isolations.append((#isolation).map { "\(type(of: $0))" } ?? "none")
        }
    }

    /// Records the isolation its plain `async` `apply(_:)` runs in.
    struct PlainProbe: HistoryConsumer {
        let isolations: Recorder<String>
        var consumerName: String { "plain-probe" }
        func apply(_ batch: HistoryBatch<[String: DatabaseValue]>) async throws {
            isolations.append((#isolation).map { "\(type(of: $0))" } ?? "none")
        }
    }

    @Test("the driver calls a nonisolated(nonsending) hook on its own executor; a plain async one compiles as before")
    func hooksRunOnTheDriver() async throws {
        let test = try TestStore()
        _ = try test.store.insertPackages(["p1", "p2"], author: "app")
        let isolations = Recorder<String>()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: IsolationProbe(isolations: isolations))
        try await driver.processPending()
        #expect(!isolations.values.isEmpty)
        #expect(isolations.values.allSatisfy { $0.hasPrefix("HistoryConsumerDriver<") }, "\(isolations.values)")

        let plain = Recorder<String>()
        let plainDriver = try HistoryConsumerDriver(store: test.store, consumer: PlainProbe(isolations: plain))
        try await plainDriver.processPending()
        #expect(!plain.values.isEmpty)
    }
}

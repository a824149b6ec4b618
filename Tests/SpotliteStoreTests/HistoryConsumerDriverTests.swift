import Foundation
import GRDB
import Logging
import Synchronization
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// The consumer driver through the public API: a consumer implements only `apply` (and optionally `document`), the
/// driver pages history, saves and registers the position, and runs on demand or live.
@Suite("Consumers: the driver", .blockingWork)
struct HistoryConsumerDriverTests {
    /// Keeps a copy of the Package summaries it is given, as an embedding index would keep vectors.
    final class SummaryMirror: HistoryConsumer {
        struct Refusal: Error {}

        let consumerName: String
        let filter: HistoryRequest
        let summaries = Mutex<[String: String]>([:])
        let batches = Recorder<HistoryBatch<String>>()
        private let refusals = Mutex(0)

        init(name: String = "mirror", filter: HistoryRequest = HistoryRequest(entities: ["Package"])) {
            consumerName = name
            self.filter = filter
        }

        func refuse(next count: Int) { refusals.withLock { $0 = count } }

        func document(for record: RecordID, in db: Database) throws -> String? {
            try String.fetchOne(db, sql: "SELECT summary FROM Package WHERE name = ?", arguments: [record.key])
        }

        func apply(_ batch: HistoryBatch<String>) async throws {
            batches.append(batch)
            if refusals.withLock({ remaining in
                defer { remaining = max(0, remaining - 1) }
                return remaining > 0
            }) { throw Refusal() }
            summaries.withLock { summaries in
                if batch.isFirstOfSnapshot { summaries = [:] }
                for upsert in batch.upserts { summaries[upsert.record.key.description] = upsert.document }
                for record in batch.deletions { summaries[record.key.description] = nil }
            }
        }

        var current: [String: String] { summaries.withLock { $0 } }
    }

    @Test func aSnapshotStartDeliversTheExistingRowsThenTheHistoryAfterThem() async throws {
        let test = try TestStore()
        try test.store.insertPackages(["vim", "emacs"], author: "app")
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .snapshot)
        #expect(try test.store.registeredConsumers() == ["mirror"])

        let first = try await driver.processPending()
        #expect(first.snapshot)
        #expect(mirror.current == ["\"vim\"": "about vim", "\"emacs\"": "about emacs"])
        #expect(try driver.position() == (try test.store.currentToken()))

        try test.store.run("UPDATE Package SET summary = 'editor' WHERE name = 'vim'; DELETE FROM Package WHERE name = 'emacs';",
                           author: "app")
        let second = try await driver.processPending()
        #expect(!second.snapshot)
        #expect(second.upserts == 1 && second.deletions == 1)
        #expect(mirror.current == ["\"vim\"": "editor"])
        #expect(try driver.position() == (try test.store.currentToken()))
    }

    @Test func aNowStartSeesOnlyLaterWritesAndItsPositionIsSavedAtOnce() async throws {
        let test = try TestStore()
        let before = try test.store.insertPackages(["old"], author: "app")
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .now)
        #expect(try driver.position() == before, "registered at the current token, so cleanup keeps what follows")

        try test.store.insertPackages(["new"], author: "app")
        try await driver.processPending()
        #expect(mirror.current == ["\"new\"": "about new"])
    }

    @Test func aTransactionTooBigForABatchComesInPiecesAndThePositionWaitsForItsEnd() async throws {
        let test = try TestStore()
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .beginning, maximumChanges: 3)
        let small = try test.store.insertPackages(["a"], author: "app")
        let big = try test.store.insertPackages((1...10).map { "p\($0)" }, author: "importer")

        let round = try await driver.processPending()
        let batches = mirror.batches.values
        #expect(batches.allSatisfy { $0.transactions.flatMap(\.changes).count <= 3 })
        #expect(batches.map(\.position) == [small, nil, nil, big], "\(batches.map(\.position))")
        #expect(batches.first?.transactions.first?.token == small)
        #expect(round.upserts == 11)
        #expect(mirror.current.count == 11)
        #expect(try driver.position() == big)
    }

    @Test func fetchingByCursorPagesATransactionByChangeID() throws {
        let test = try TestStore()
        let token = try test.store.insertPackages((1...5).map { "p\($0)" }, author: "app")
        var cursor = HistoryCursor(token: nil)
        var keys: [String] = []
        var positions: [HistoryToken?] = []
        while true {
            let page = try test.store.fetchHistory(after: cursor, maximumChanges: 2)
            keys += page.transactions.flatMap(\.changes).map { $0.key.description }
            positions.append(page.position)
            cursor = page.next
            if page.isComplete { break }
        }
        #expect(keys == (1...5).map { "\"p\($0)\"" })
        #expect(positions == [nil, nil, token])
        #expect(cursor == HistoryCursor(token: token))
    }

    @Test func fetchingByCursorContinuesFromACutTransactionIntoTheNextOnesEveryChangeOnce() throws {
        let test = try TestStore()
        _ = try test.store.insertPackages((1...4).map { "p\($0)" }, author: "app")
        let second = try test.store.insertPackages(["q1"], author: "app")
        let third = try test.store.insertPackages((1...3).map { "r\($0)" }, author: "app")
        var cursor = HistoryCursor(token: nil)
        var keys: [String] = []
        var positions: [HistoryToken?] = []
        var cursors: [HistoryCursor] = []
        while true {
            let page = try test.store.fetchHistory(after: cursor, maximumChanges: 3)
            #expect(page.transactions.flatMap(\.changes).count <= 3)
            keys += page.transactions.flatMap(\.changes).map { $0.key.description }
            positions.append(page.position)
            cursor = page.next
            cursors.append(cursor)
            if page.isComplete { break }
        }
        #expect(keys == ((1...4).map { "\"p\($0)\"" } + ["\"q1\""] + (1...3).map { "\"r\($0)\"" }))
        // [p1 p2 p3] cut; [p4 q1 r1] cut in the third; [r2 r3] complete.
        #expect(positions == [nil, second, third], "\(positions)")
        #expect(cursors.first?.token == nil && cursors.first?.changeID != nil)
        #expect(cursors.dropFirst().first?.token == second && cursors.dropFirst().first?.changeID != nil)
        #expect(cursor == HistoryCursor(token: third))
    }

    @Test func aThrowingApplyLeavesThePositionAndGetsTheSameChangesAgain() async throws {
        let test = try TestStore()
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .now)
        let start = try driver.position()
        try test.store.insertPackages(["vim"], author: "app")
        mirror.refuse(next: 1)
        await #expect(throws: SummaryMirror.Refusal.self) { try await driver.processPending() }
        #expect(try driver.position() == start)
        #expect(await driver.lastError != nil)

        try await driver.processPending()
        #expect(mirror.batches.values.map { $0.upserts.map(\.record.key) } == [["vim".databaseValue], ["vim".databaseValue]])
        #expect(mirror.current == ["\"vim\"": "about vim"])
    }

    @Test func transactionsTheFilterLeavesOutArePassedOverAndLogged() async throws {
        let test = try TestStore()
        let messages = Recorder<(Logger.Level, String)>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .now, logger: logger)
        try test.store.run("INSERT INTO Item (id, label) VALUES (1, 'not a package');", author: "app")
        let last = try test.store.run("INSERT INTO Item (id, label) VALUES (2, 'nor this');", author: "app")

        let round = try await driver.processPending()
        #expect(round.passedOver == 2)
        #expect(round.batches == 0)
        #expect(try driver.position() == last)
        #expect(messages.values.contains { $0.1.contains("passed over 2 transactions that its filter leaves out") })
    }

    @Test func cleanupWaitsForARegisteredConsumerUntilItIsUnregistered() async throws {
        let test = try TestStore()
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .now)
        try test.store.insertPackages(["vim"], author: "app")
        try test.store.setPosition(try #require(try test.store.currentToken()), for: "app")
        let deleter = HistoryDeleter(store: test.store, policy: HistoryDeletionPolicy(requiredAuthors: ["app"]))

        #expect(try deleter.deleteConsumedHistory().deletedTransactions == 0, "the consumer has not applied the insert")
        try await driver.processPending()
        #expect(try deleter.deleteConsumedHistory().deletedTransactions == 1)

        try test.store.insertPackages(["emacs"], author: "app")
        try test.store.setPosition(try #require(try test.store.currentToken()), for: "app")
        try await driver.unregister()
        #expect(try test.store.registeredConsumers().isEmpty)
        #expect(try test.store.position(of: "mirror") == nil)
        #expect(try deleter.deleteConsumedHistory().deletedTransactions == 1, "an unregistered consumer holds nothing back")
    }

    @Test func historyDeletedBeforeTheConsumerReadItIsReplacedByASnapshot() async throws {
        let test = try TestStore()
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .now)
        try test.store.insertPackages(["vim"], author: "app")
        let last = try test.store.insertPackages(["emacs"], author: "app")
        try test.store.deleteHistory(.through(last))

        let round = try await driver.processPending()
        #expect(round.snapshot)
        #expect(mirror.batches.values.first?.isFirstOfSnapshot == true)
        #expect(mirror.current == ["\"vim\"": "about vim", "\"emacs\"": "about emacs"])
        #expect(try driver.position() == last)
    }

    @Test func liveModeAppliesWritesOfOtherProcessesAndSaysWhenATokenIsApplied() async throws {
        let test = try TestStore()
        let mirror = SummaryMirror()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .now)
        let rounds = driver.roundEvents()
        await driver.start()
        #expect(await driver.isRunning)

        let written = try test.store.writeReturningToken(author: "app") { db in
            try db.execute(sql: "INSERT INTO Package (name, summary) VALUES ('vim', 'editor')")
        }
        let token = try #require(written.token)
        try await within("the live driver to apply token \(token)") {
            try await driver.waitUntilProcessed(through: token)
        }
        #expect(mirror.current["\"vim\""] == "editor")

        try SQLiteShell.run(test.path, "INSERT INTO Package (name, summary) VALUES ('from-the-shell', 'sh');")
        try await within("a round applying the sqlite3 shell's row") {
            for await event in rounds {
                if case .processed = event, mirror.current["\"from-the-shell\""] != nil { break }
            }
        }
        #expect(mirror.current["\"from-the-shell\""] == "sh")
        await driver.stop()
        #expect(await !driver.isRunning)
    }

    /// A mirror that records the driver's round hooks.
    final class HookedMirror: HistoryConsumer {
        let inner = SummaryMirror()
        let begun = Recorder<Int>()
        let ended = Recorder<(number: Int, failed: Bool)>()
        var consumerName: String { inner.consumerName }
        var filter: HistoryRequest { inner.filter }

        func document(for record: RecordID, in db: Database) throws -> String? { try inner.document(for: record, in: db) }
        func apply(_ batch: HistoryBatch<String>) async throws { try await inner.apply(batch) }

        func roundWillBegin(number: Int, resynchronizing reason: HistoryResynchronizationReason?) async throws {
            begun.append(number)
        }

        func roundDidEnd(number: Int, result: Result<HistoryConsumerRound, any Error>) async {
            if case .success(let round) = result { #expect(round.number == number) }
            ended.append((number, { if case .failure = result { true } else { false } }()))
        }
    }

    @Test func liveModeGathersABurstIntoOneRoundBracketedByTheHooks() async throws {
        let test = try TestStore()
        let mirror = HookedMirror()
        let clock = ManualClock()
        let delay = Duration.seconds(1)
        let driver = try HistoryConsumerDriver(store: test.store, consumer: mirror, start: .now,
                                               retryDelay: .milliseconds(100), coalescingDelay: delay, clock: clock)
        await driver.start()
        // The first round catches up at once, with nothing to do.
        #expect(await waitUntil { mirror.ended.count == 1 }, "the first live round")
        var last: HistoryToken?
        for name in ["a", "b", "c", "d", "e"] { last = try test.store.insertPackages([name], author: "app") }
        let token = try #require(last)
        // The burst's first notification waits out the window; the others merge into the one buffered.
        try await within("the driver to wait out its coalescing window") { await clock.waitForSleepers(1) }
        clock.advance(by: delay)
        try await within("the live driver to apply token \(token)") { try await driver.waitUntilProcessed(through: token) }
        #expect(Set(mirror.inner.current.keys) == ["\"a\"", "\"b\"", "\"c\"", "\"d\"", "\"e\""])
        await driver.stop()
        let begun = mirror.begun.values
        #expect(begun == Array(1...begun.count), "rounds are numbered from 1, in order: \(begun)")
        #expect(begun.count <= 3, "the burst of five commits took \(begun.count - 1) rounds after the first")
        #expect(mirror.ended.values.map(\.number) == begun, "every round that began ended")

        // A failing round is bracketed too, and live mode retries it after the retry delay.
        mirror.inner.refuse(next: 1)
        let ended = mirror.ended.count
        await driver.start()
        #expect(await waitUntil { mirror.ended.count == ended + 1 }, "the catch-up round of the second start")
        let failing = try test.store.insertPackages(["f"], author: "app")
        try await within("the window before the failing round") { await clock.waitForSleepers(1) }
        clock.advance(by: delay)
        try await within("the driver to wait before retrying") { await clock.waitForSleepers(1) }
        #expect(mirror.ended.values.last?.failed == true)
        #expect(await driver.lastError is SummaryMirror.Refusal)
        clock.advance(by: .milliseconds(100))
        try await within("the retried round to apply token \(failing)") { try await driver.waitUntilProcessed(through: failing) }
        await driver.stop()
        #expect(mirror.ended.values.last?.failed == false)
        #expect(mirror.inner.current["\"f\""] == "about f")
    }

    @Test func aReadOnlyStoreCannotBeConsumed() throws {
        let test = try TestStore()
        let readOnly = try test.reopen(options: StoreOptions(readOnly: true))
        #expect(throws: SpotliteStoreError.self) {
            _ = try HistoryConsumerDriver(store: readOnly, consumer: SummaryMirror())
        }
    }
}

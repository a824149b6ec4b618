import Foundation
import GRDB
import Synchronization
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Trackers and drivers released without `stop()` while a round runs end that round cleanly (position saved, no
/// other round after it); `HistoryTracker.stop()` returns once the last round has saved its position.
@Suite("Lifetimes of trackers and drivers", .blockingWork)
struct LifetimeTests {
    /// A subscriber whose deliveries wait until the test lets them through.
    final class GatedSubscriber: HistorySubscriber {
        let entered = Latch()
        let gate = Latch()
        let deliveries = Recorder<[HistoryTransaction]>()

        func merge(_ transactions: [HistoryTransaction]) async throws {
            entered.open()
            await gate.wait()
            deliveries.append(transactions)
        }
    }

    /// A consumer whose batches wait until the test lets them through, and which can stop rounds (as a consumer
    /// whose owner is gone does, with `CancellationError`).
    final class GatedConsumer: HistoryConsumer {
        let consumerName = "gated"
        var filter: HistoryRequest { HistoryRequest(entities: ["Package"]) }
        let entered = Latch()
        let gate: Latch
        let applied = Recorder<HistoryBatch<String>>()
        private let stops = Mutex(0)

        init(gated: Bool = true) {
            gate = Latch()
            if !gated { gate.open() }
        }

        /// Makes the next `count` batches throw `CancellationError`.
        func stop(next count: Int) { stops.withLock { $0 = count } }

        func document(for record: RecordID, in db: Database) throws -> String? {
            try String.fetchOne(db, sql: "SELECT summary FROM Package WHERE name = ?", arguments: [record.key])
        }

        func apply(_ batch: HistoryBatch<String>) async throws {
            entered.open()
            await gate.wait()
            let stops = self.stops.withLock { remaining in
                defer { remaining = max(0, remaining - 1) }
                return remaining > 0
            }
            if stops { throw CancellationError() }
            applied.append(batch)
        }
    }

    @Test func stopReturnsOnceTheRoundInProgressHasSavedItsPosition() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let subscriber = GatedSubscriber()
        let configuration = trackerConfiguration("app", allAuthors: ["app", "widget"])
        let tracker = try HistoryTracker(store: test.store, configuration: configuration, subscribers: [subscriber])
        let token = try widget.insertPackages(["first"], author: "widget")
        try await within("the round to reach the subscriber") { await subscriber.entered.wait() }

        let stopped = Latch()
        let stopping = Task {
            await tracker.stop()
            stopped.open()
        }
        // stop() has begun (no round starts any more) but waits for the subscriber, which the test holds.
        #expect(await pollUntil { !tracker.isRunning })
        #expect(!stopped.isOpen, "stop() returned while a round was still delivering")
        #expect(try tracker.position()?.token != token)

        subscriber.gate.open()
        try await within("stop() to return") { await stopping.value }
        #expect(try tracker.position()?.token == token, "when stop() returns, the last round's position is saved")
        #expect(subscriber.deliveries.values.flatMap { $0 }.map(\.token) == [token])
        await tracker.stop() // already stopped: returns at once
    }

    @Test func stopWaitsForARoundAskedForByTheApp() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let subscriber = GatedSubscriber()
        let configuration = trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false)
        let tracker = try HistoryTracker(store: test.store, configuration: configuration, subscribers: [subscriber])
        let token = try widget.insertPackages(["first"], author: "widget")
        let round = Task { try await tracker.processPendingHistory() }
        try await within("the round to reach the subscriber") { await subscriber.entered.wait() }
        let stopping = Task { await tracker.stop() }
        subscriber.gate.open()
        try await within("stop() to return") { await stopping.value }
        #expect(try tracker.position()?.token == token)
        #expect(try await round.value.position == token)
    }

    @Test func aTrackerReleasedDuringARoundEndsThatRoundAndStartsNoOther() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let subscriber = GatedSubscriber()
        let configuration = trackerConfiguration("app", allAuthors: ["app", "widget"])
        var tracker: HistoryTracker? = try HistoryTracker(store: test.store, configuration: configuration,
                                                          subscribers: [subscriber])
        let first = try widget.insertPackages(["first"], author: "widget")
        try await within("the round to reach the subscriber") { await subscriber.entered.wait() }

        weak let released = tracker
        tracker = nil
        // The round holds the tracker's engine, not the tracker: releasing it is immediate.
        #expect(released == nil)
        subscriber.gate.open()
        #expect(await waitUntil { subscriber.deliveries.count == 1 })
        // The round in progress ends as it would have: its position saved.
        #expect(await pollUntil { (try? test.store.position(of: configuration.positionKey)?.token) == first })
        #expect(await pollUntil { test.store.hub.subscriberCount == 0 }, "the live loop stopped listening")

        try widget.insertPackages(["second"], author: "widget")
        try await Task.sleep(for: .milliseconds(100))
        #expect(subscriber.deliveries.count == 1, "no round after the release")
        #expect(try test.store.position(of: configuration.positionKey)?.token == first)
    }

    @Test func aDriverReleasedDuringALiveRoundEndsThatRoundAndItsLoop() async throws {
        let test = try TestStore()
        let consumer = GatedConsumer()
        var driver: HistoryConsumerDriver<GatedConsumer>? = try HistoryConsumerDriver(
            store: test.store, consumer: consumer, start: .now)
        await driver!.start()
        let token = try test.store.insertPackages(["first"], author: "app")
        try await within("the live round to reach the consumer") { await consumer.entered.wait() }

        weak let released = driver
        driver = nil
        consumer.gate.open()
        // The round in progress finishes (its position saved), then nothing holds the driver: the loop ends.
        #expect(await pollUntil { released == nil }, "the driver's live loop outlived its owner")
        #expect(try test.store.position(of: "gated")?.token == token)
        #expect(consumer.applied.count == 1)
        #expect(await pollUntil { test.store.hub.subscriberCount == 0 }, "the live loop stopped listening")
    }

    @Test func aRoundTheConsumerStopsIsNotRetriedTheNextCommitStartsTheNextOne() async throws {
        let test = try TestStore()
        let consumer = GatedConsumer(gated: false)
        consumer.stop(next: 1)
        let clock = ManualClock()
        let driver = try HistoryConsumerDriver(store: test.store, consumer: consumer, start: .now, clock: clock)
        var events = driver.roundEvents().makeAsyncIterator()
        await driver.start()
        try test.store.insertPackages(["first"], author: "app")
        var stopped = false
        while !stopped, let event = try await events.next(within: "the stopped round's event") {
            if case .failed(let error) = event { stopped = error is CancellationError }
        }
        // Not retried after a delay on the clock: the next commit's notification starts the next round.
        let second = try test.store.insertPackages(["second"], author: "app")
        try await within("the next commit's round") { try await driver.waitUntilProcessed(through: second) }
        #expect(clock.sleeperCount == 0, "a stopped round waits for no retry")
        #expect(consumer.applied.values.flatMap(\.upserts).map(\.record.key) == ["first".databaseValue, "second".databaseValue])
        await driver.stop()
    }
}

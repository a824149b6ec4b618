import Foundation
import GRDB
import Testing
@testable import SpotliteStore
import SpotliteTestSupport

/// PersistentHistoryTrackingKit's clean strategies (our deletion schedules) and readiness rules, each against a real store shared by two
/// handles (the app and a write-only importer, as two apps would open it).
@Suite("Tracking: deletion schedules", .blockingWork)
struct TrackingDeletionScheduleTests {
    /// The importer writes one transaction; returns once the app's tracker has processed its notification
    /// completely (cleanup included). One write, one notification: the next write waits for this round.
    private func importAndProcess(
        _ name: String, importer: SpotliteStore, tracker: HistoryTracker, events: TrackerEventLog
    ) async throws -> HistoryToken {
        let rounds = tracker.finishedRounds(.notification)
        let token = try importer.insertPackages([name], author: "importer")
        #expect(await pollUntil { tracker.finishedRounds(.notification) == rounds + 1 })
        // Events reach the log asynchronously; the round's effects on the store are already there.
        #expect(await waitUntil { events.positions.last == token })
        return token
    }

    private func makeApp(_ test: TestStore, strategy: HistoryDeletionSchedule, clock: any Clock<Duration> = ContinuousClock())
        async throws -> (HistoryTracker, TrackerEventLog)
    {
        let configuration = trackerConfiguration("app", allAuthors: ["app", "importer"], autoStart: false) {
            $0.batchAuthors = ["importer"]
            $0.deletionSchedule = strategy
        }
        let tracker = try HistoryTracker(store: test.store, configuration: configuration, clock: clock)
        let events = TrackerEventLog(tracker)
        tracker.start()
        // Notifications arriving during the start round would coalesce into one: let it end first.
        #expect(await pollUntil { tracker.finishedRounds(.start) == 1 })
        return (tracker, events)
    }

    @Test func noneNeverCleans() async throws {
        let test = try TestStore()
        let importer = try test.reopen()
        let (tracker, events) = try await makeApp(test, strategy: .none)
        for index in 1...5 {
            _ = try await importAndProcess("p\(index)", importer: importer, tracker: tracker, events: events)
        }
        #expect(events.cleanups.isEmpty)
        #expect(try test.store.transactionCount() == 5)
        // Not for lack of consumed history: a cleanup now would delete all of it.
        #expect(try tracker.deleter().deleteConsumedHistory(dryRun: true).deletedTransactions == 5)
    }

    @Test func byDurationCleansOnTheFirstNotificationThenThrottles() async throws {
        let test = try TestStore()
        let importer = try test.reopen()
        let (tracker, events) = try await makeApp(test, strategy: .every(.seconds(3600)))

        let first = try await importAndProcess("first", importer: importer, tracker: tracker, events: events)
        #expect(try test.store.transactionCount() == 0)
        #expect(await waitUntil { events.cleanups.count == 1 })
        let firstCleanup = try #require(events.cleanups.first)
        #expect(firstCleanup.watermark == first)
        #expect(firstCleanup.deletedTransactions == 1)

        _ = try await importAndProcess("second", importer: importer, tracker: tracker, events: events)
        _ = try await importAndProcess("third", importer: importer, tracker: tracker, events: events)
        #expect(try test.store.transactionCount() == 2, "notifications within the interval must not clean")
        #expect(events.cleanups.count == 1)
    }

    @Test func byDurationCleansAgainOnceTheIntervalPassed() async throws {
        let test = try TestStore()
        let importer = try test.reopen()
        let clock = ManualClock()
        let (tracker, events) = try await makeApp(test, strategy: .every(.seconds(200)), clock: clock)
        _ = try await importAndProcess("first", importer: importer, tracker: tracker, events: events)
        #expect(try test.store.transactionCount() == 0)
        clock.advance(by: .seconds(199))
        _ = try await importAndProcess("second", importer: importer, tracker: tracker, events: events)
        #expect(try test.store.transactionCount() == 1, "within the interval")
        clock.advance(by: .seconds(1))
        _ = try await importAndProcess("third", importer: importer, tracker: tracker, events: events)
        #expect(try test.store.transactionCount() == 0, "the interval has passed")
        #expect(await waitUntil { events.cleanups.count == 2 })
    }

    @Test func notificationsScheduleDeletesOnEveryNthNotification() async throws {
        let test = try TestStore()
        let importer = try test.reopen()
        let (tracker, events) = try await makeApp(test, strategy: .notifications(3))
        var cleanedAfter: [Int] = []
        for index in 1...7 {
            _ = try await importAndProcess("p\(index)", importer: importer, tracker: tracker, events: events)
            // A cleanup deletes everything: the app has consumed it all and the importer is write-only.
            if try test.store.transactionCount() == 0 { cleanedAfter.append(index) }
        }
        #expect(cleanedAfter == [3, 6])
        #expect(await waitUntil { events.cleanups.count == 2 })
        #expect(events.cleanups.map(\.deletedTransactions) == [3, 3])
        #expect(try test.store.transactionCount() == 1)
    }

    @Test func cleanupWaitsForEveryRequiredAuthorsPosition() async throws {
        let test = try TestStore()
        let widgetStore = try test.reopen()
        let configuration = trackerConfiguration("app", allAuthors: ["app", "widget", "watch"]) {
            $0.deletionSchedule = .notifications(1)
        }
        let app = try HistoryTracker(store: test.store, configuration: configuration)
        let events = TrackerEventLog(app)
        let widget = try HistoryTracker(
            store: widgetStore, configuration: trackerConfiguration("widget", allAuthors: ["app", "widget", "watch"]))

        let token = try widgetStore.insertPackages(["w1"], author: "widget")
        #expect(await waitUntil { events.positions.contains(token) })
        try await app.processPendingHistory()
        try await widget.processPendingHistory()
        #expect(try widgetStore.position(of: "widget")?.token == token)
        // The round's cleanup event follows its delivery event into the log.
        #expect(await waitUntil { !events.cleanups.isEmpty })
        let waiting = try #require(events.cleanups.last)
        #expect(waiting.watermark == nil)
        #expect(waiting.deletedTransactions == 0)
        // The widget's own round may not have saved its position yet when the app cleaned; the watch never ran.
        #expect(waiting.absentAuthors.contains("watch"))
        #expect(waiting.reason.contains("watch"))
        #expect(try test.store.transactionCount() == 1)

        // The watch app runs once: now every required author has a position, and the next cleanup deletes.
        let watchStore = try test.reopen()
        let watch = try HistoryTracker(
            store: watchStore, configuration: trackerConfiguration("watch", allAuthors: ["app", "widget", "watch"]))
        try await watch.processPendingHistory()
        #expect(try watchStore.position(of: "watch")?.token == token)
        let next = try widgetStore.insertPackages(["w2"], author: "widget")
        #expect(await waitUntil { events.cleanups.contains { $0.watermark != nil } })
        let ready = try #require(events.cleanups.last)
        #expect(ready.absentAuthors.isEmpty)
        #expect(ready.deletedTransactions >= 1)
        #expect(try test.store.fetchHistory(.allRetained).allSatisfy { $0.token >= next })
    }

    @Test func batchAuthorsDoNotBlockReadiness() async throws {
        let test = try TestStore()
        let importer = try test.reopen()
        let (tracker, events) = try await makeApp(test, strategy: .notifications(1))
        _ = try await importAndProcess("bulk", importer: importer, tracker: tracker, events: events)
        #expect(try importer.position(of: "importer") == nil, "the importer never reads, so it has no position")
        #expect(try test.store.transactionCount() == 0)
        #expect(await waitUntil { !events.cleanups.isEmpty })
        let cleanup = try #require(events.cleanups.first)
        #expect(cleanup.watermark != nil)
        #expect(cleanup.deletedTransactions == 1)
        #expect(tracker.deletionPolicy.requiredAuthors == ["app"])
        #expect(tracker.deletionPolicy.listedAuthors == ["app", "importer"])
    }
}

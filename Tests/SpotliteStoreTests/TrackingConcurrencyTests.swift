import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Several trackers on one file, each on its own handle (its own connections, as separate apps have), writing,
/// fetching and cleaning at the same time; and the tracker's start/stop life cycle.
@Suite("Tracking: concurrency and life cycle", .blockingWork)
struct TrackingConcurrencyTests {
    struct App {
        let author: String
        let store: SpotliteStore
        let inbox: RecordingSubscriber
        let tracker: HistoryTracker
        let events: TrackerEventLog
    }

    private func makeApps(_ test: TestStore, authors: [String], strategy: HistoryDeletionSchedule) throws -> [App] {
        try authors.map { author in
            let store = try test.reopen()
            let inbox = RecordingSubscriber()
            let tracker = try HistoryTracker(
                store: store,
                configuration: trackerConfiguration(author, allAuthors: authors) { $0.deletionSchedule = strategy },
                subscribers: [inbox])
            return App(author: author, store: store, inbox: inbox, tracker: tracker, events: TrackerEventLog(tracker))
        }
    }

    /// Each app writes `count` transactions at the same time as the others; returns the tokens by author.
    private func writeConcurrently(_ apps: [App], count: Int) async throws -> [String: [HistoryToken]] {
        try await withThrowingTaskGroup(of: (String, [HistoryToken]).self) { group in
            for app in apps {
                group.addTask {
                    var tokens: [HistoryToken] = []
                    for index in 0..<count {
                        tokens.append(try app.store.insertPackages(["\(app.author)-\(index)"], author: app.author))
                    }
                    return (app.author, tokens)
                }
            }
            var written: [String: [HistoryToken]] = [:]
            for try await (author, tokens) in group { written[author] = tokens }
            return written
        }
    }

    private func expectEachAppReceivedTheOthersExactlyOnceInOrder(
        _ apps: [App], written: [String: [HistoryToken]]
    ) async throws {
        for app in apps {
            let expected = written.filter { $0.key != app.author }.values.flatMap { $0 }.sorted()
            let complete = await waitUntil { app.inbox.tokens.count >= expected.count }
            #expect(complete, "\(app.author) received \(app.inbox.tokens.count) of \(expected.count)")
            try await app.tracker.processPendingHistory()
            #expect(app.inbox.tokens == expected, "\(app.author): in token order, none missing, none twice")
            #expect(app.events.failures.isEmpty, "\(app.author): \(app.events.failures)")
        }
    }

    @Test func severalTrackersOnOneStoreFetchInParallel() async throws {
        let test = try TestStore()
        let apps = try makeApps(test, authors: ["a", "b", "c", "d"], strategy: .none)
        let written = try await writeConcurrently(apps, count: 10)
        try await expectEachAppReceivedTheOthersExactlyOnceInOrder(apps, written: written)
    }

    @Test func cleansAndFetchesRunConcurrentlyWithoutErrorOrLoss() async throws {
        let test = try TestStore()
        let authors = ["a", "b", "c", "d"]
        let apps = try makeApps(test, authors: authors, strategy: .notifications(1))
        // One more process-like handle cleaning by hand after every commit meanwhile, with the same policy.
        let janitorStore = try test.reopen()
        let janitor = HistoryDeleter(store: janitorStore, policy: apps[0].tracker.deletionPolicy)
        let janitorDeleted = Recorder<Int>()
        let janitorNotifications = janitorStore.changeNotifications()
        let janitorTask = Task {
            for await _ in janitorNotifications {
                janitorDeleted.append(try janitor.deleteConsumedHistory().deletedTransactions)
            }
        }

        let written = try await writeConcurrently(apps, count: 10)
        try await expectEachAppReceivedTheOthersExactlyOnceInOrder(apps, written: written)
        janitorTask.cancel()
        try await within("the janitor to stop") { try await janitorTask.value }

        // Everyone has consumed everything: a last cleanup empties history, and every transaction was deleted
        // exactly once over all the cleanups that ran, whichever handle ran them.
        let last = try janitor.deleteConsumedHistory()
        #expect(try test.store.transactionCount() == 0)
        let automatic = { apps.flatMap { $0.events.cleanups.map(\.deletedTransactions) } }
        let manual = janitorDeleted.values.reduce(0, +) + last.deletedTransactions
        // Cleanup events reach the logs asynchronously.
        #expect(await waitUntil { automatic().reduce(0, +) + manual == 40 })
        #expect(!automatic().isEmpty)
    }

    @Test func overlappingRequestsNeverDeliverTwice() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let inbox = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"]),
            subscribers: [inbox])
        // Merges that suspend give overlapping rounds every chance to interleave.
        tracker.registerMergeHook { _ in
            for _ in 0..<20 { await Task.yield() }
            return .goOn
        }
        var written: [HistoryToken] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask { try await tracker.processPendingHistory() }
            }
            for index in 0..<15 {
                written.append(try widget.insertPackages(["p\(index)"], author: "widget"))
            }
            try await group.waitForAll()
        }
        #expect(await waitUntil { inbox.tokens.count >= written.count })
        try await tracker.processPendingHistory()
        #expect(inbox.tokens == written)
    }

    @Test func stopLeavesThePositionAndStartResumesFromIt() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let inbox = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"]),
            subscribers: [inbox])
        let first = try widget.insertPackages(["first"], author: "widget")
        #expect(await waitUntil { inbox.tokens == [first] })
        try await tracker.processPendingHistory()
        #expect(try tracker.position()?.token == first)

        // A round that started before stop() ends first (it may deliver what is committed meanwhile); after
        // stop() returns, nothing may move.
        await tracker.stop()
        #expect(!tracker.isRunning)
        let rounds = tracker.finishedRounds(.notification)
        let notifications = test.store.changeNotifications()
        let second = try widget.insertPackages(["second"], author: "widget")
        let third = try widget.insertPackages(["third"], author: "widget")
        // This handle has announced the last write to its listeners: a tracker still listening was told too.
        #expect(await firstNotification(from: notifications, timeout: .seconds(60)) { ($0.token ?? HistoryToken(0)) >= third } != nil)
        await tracker.waitForQueuedRounds()
        #expect(tracker.finishedRounds(.notification) == rounds, "a stopped tracker starts no round")
        #expect(inbox.tokens == [first])
        #expect(try tracker.position()?.token == first)
        #expect(try widget.position(of: "app")?.token == first)

        tracker.start()
        #expect(tracker.isRunning)
        #expect(await waitUntil { inbox.tokens == [first, second, third] })
        #expect(await pollUntil { (try? tracker.position()?.token) == third })
    }

    @Test func startAndStopAreIdempotent() async throws {
        let test = try TestStore()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app"], autoStart: false))
        #expect(!tracker.isRunning)
        #expect(test.store.hub.subscriberCount == 0)
        tracker.start()
        tracker.start()
        #expect(tracker.isRunning)
        #expect(test.store.hub.subscriberCount == 1, "a second start must not subscribe twice")
        await tracker.stop()
        await tracker.stop()
        #expect(!tracker.isRunning)
        #expect(await pollUntil { test.store.hub.subscriberCount == 0 })
    }

    @Test func autoStartStartsAndReleasingTheTrackerStopsIt() async throws {
        let test = try TestStore()
        var tracker: HistoryTracker? = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app"]))
        #expect(tracker?.isRunning == true)
        #expect(test.store.hub.subscriberCount == 1)
        let events = try #require(tracker?.events())
        tracker = nil
        #expect(await pollUntil { test.store.hub.subscriberCount == 0 })
        // The event sequence ends with the tracker.
        let ended = Recorder<Bool>()
        let reader = Task {
            for await _ in events {}
            ended.append(true)
        }
        #expect(await waitUntil { ended.count == 1 })
        reader.cancel()
    }
}

import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Shared cleanup through the tracker: as conservative by hand as automatically, bounded by the maximum duration,
/// waiting for consumers, atomic across processes; and delivery that is at least once across failures and crashes.
@Suite("Tracking: cleanup and delivery guarantees", .blockingWork)
struct TrackingCleanupTests {
    private static let day: TimeInterval = 86_400

    @Test func theManualCleanerIsAsConservativeAsTheAutomaticOne() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let authors = ["app", "widget", "watch"]
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: authors) { $0.deletionSchedule = .notifications(1) })
        let events = TrackerEventLog(tracker)
        struct Indexer: HistoryPositionHolder { let consumerName = "spotlite.indexer" }
        tracker.register(consumer: Indexer())

        let token = try widget.insertPackages(["w"], author: "widget")
        try widget.setPosition(token, for: "widget")
        #expect(await waitUntil { !events.cleanups.isEmpty })
        let automatic = try #require(events.cleanups.first)

        let deleter = tracker.deleter()
        #expect(deleter.policy == tracker.deletionPolicy)
        #expect(deleter.policy.requiredAuthors.sorted() == ["app", "spotlite.indexer", "watch", "widget"])
        let manual = try deleter.deleteConsumedHistory()
        // PersistentHistoryTrackingKit's manual cleaner ignored authors without a position; this one waits.
        #expect(manual.watermark == nil)
        #expect(manual.deletedTransactions == 0)
        #expect(manual.absentAuthors == ["spotlite.indexer", "watch"])
        #expect(automatic.watermark == nil && automatic.deletedTransactions == 0)
        #expect(automatic.absentAuthors.contains("watch") && automatic.absentAuthors.contains("spotlite.indexer"))
        #expect(try test.store.transactionCount() == 1)

        try test.store.setPosition(token, for: "watch")
        try test.store.setPosition(token, for: "spotlite.indexer")
        try await tracker.processPendingHistory()
        let ready = try deleter.deleteConsumedHistory()
        #expect(ready.watermark == token)
        #expect(ready.deletedTransactions == 1)
    }

    @Test func historyOlderThanTheMaximumDurationIsPurgedAndTheLaggardMustResynchronise() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let readerStore = try test.reopen()
        let authors = ["app", "widget", "reader"]
        let app = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: authors) {
                $0.batchAuthors = ["widget"]
                $0.deletionSchedule = .notifications(1)
                $0.maximumDuration = .seconds(600)
            })
        let appEvents = TrackerEventLog(app)
        let readerInbox = RecordingSubscriber()
        let reader = try HistoryTracker(
            store: readerStore,
            configuration: trackerConfiguration("reader", allAuthors: authors, autoStart: false) { $0.batchAuthors = ["widget"] },
            subscribers: [readerInbox])

        let old = try widget.insertPackages(["old"], author: "widget")
        try await reader.processPendingHistory()
        #expect(readerInbox.tokens == [old])
        let lagging = try widget.insertPackages(["lagging"], author: "widget")
        // The reader is not running; its position stays at `old` while the history after it ages: an hour passes.
        try await test.store.databasePool.write { db in
            try db.execute(sql: "UPDATE spotlite_transaction SET timestamp = timestamp - 3600 WHERE token <= ?",
                           arguments: [lagging])
        }
        let fresh = try widget.insertPackages(["fresh"], author: "widget")
        #expect(try await pollUntil { try test.store.fetchHistory(.allRetained).map(\.token) == [fresh] })
        let byDuration = { (result: HistoryDeletionResult) in result.reason.contains("older than the maximum duration") }
        #expect(await waitUntil { appEvents.cleanups.contains(where: byDuration) })
        let cleanup = try #require(appEvents.cleanups.last(where: byDuration))
        #expect(cleanup.watermark == old, "the reader lags at its position")

        let readerEvents = TrackerEventLog(reader)
        await #expect(throws: SpotliteStoreError.expiredToken(requested: old, purgedThrough: lagging)) {
            try await reader.processPendingHistory()
        }
        #expect(await waitUntil { readerEvents.failures.contains { ($0 as? SpotliteStoreError)?.area == .history } })
        #expect(readerInbox.tokens == [old], "expired history is reported, never silently skipped")

        // The reader resynchronises from the rows, then continues from the current token.
        try reader.resetPosition()
        let after = try widget.insertPackages(["after"], author: "widget")
        try await reader.processPendingHistory()
        #expect(readerInbox.tokens == [old, after])
    }

    @Test func anAbsentAuthorHoldsHistoryBackOnlyUntilTheMaximumDuration() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let authors = ["app", "widget", "watch"]
        let app = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: authors, autoStart: false))
        let deleter = app.deleter()
        let now = Date()

        // A week and a day ago, a cleanup saw that the watch app had no position.
        let firstSeen = try deleter.deleteConsumedHistory(now: now.addingTimeInterval(-8 * Self.day))
        #expect(firstSeen.absentAuthors == ["app", "watch", "widget"])

        let token = try widget.insertPackages(["w"], author: "widget")
        try widget.setPosition(token, for: "widget")
        try await app.processPendingHistory()

        // A day later than that it still waited for the watch app...
        let dayLater = try deleter.deleteConsumedHistory(dryRun: true, now: now.addingTimeInterval(-7 * Self.day))
        #expect(dayLater.watermark == nil)
        #expect(dayLater.absentAuthors == ["watch"])
        #expect(dayLater.deletedTransactions == 0)
        // ... but now it has been absent longer than seven days: the others' watermark applies, although the
        // history itself is fresh.
        let today = try deleter.deleteConsumedHistory(now: now)
        #expect(today.abandonedAuthors == ["watch"])
        #expect(today.absentAuthors.isEmpty)
        #expect(today.watermark == token)
        #expect(today.deletedTransactions == 1)
        #expect(today.reason.contains("no longer waits for watch"))

        // When the watch app finally runs, it is told its history is gone.
        let watch = try HistoryTracker(
            store: try test.reopen(), configuration: trackerConfiguration("watch", allAuthors: authors, autoStart: false))
        await #expect(throws: SpotliteStoreError.expiredToken(requested: nil, purgedThrough: token)) {
            try await watch.processPendingHistory()
        }
        try watch.resetPosition()
        #expect(try watch.position()?.token == token)
        // Having a position again, it is waited for again.
        let next = try deleter.deleteConsumedHistory(now: now)
        #expect(next.abandonedAuthors.isEmpty && next.absentAuthors.isEmpty)
    }

    @Test func aConsumerThatHasNotRunKeepsItsHistoryUntilTheMaximumDurationThenGetsTheExpiredError() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        struct Thumbnailer: HistoryPositionHolder { let consumerName = "thumbnails" }
        let thumbnailer = Thumbnailer()
        let app = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false) {
                $0.batchAuthors = ["widget"]
            })
        app.register(consumer: thumbnailer)

        let t1 = try widget.insertPackages(["1"], author: "widget")
        try test.store.setPosition(t1, for: thumbnailer.consumerName)
        let t2 = try widget.insertPackages(["2"], author: "widget")
        let t3 = try widget.insertPackages(["3"], author: "widget")
        try await app.processPendingHistory()
        #expect(try app.position()?.token == t3)

        let dayLater = try app.deleter().deleteConsumedHistory(now: Date().addingTimeInterval(Self.day))
        #expect(dayLater.watermark == t1)
        #expect(dayLater.deletedTransactions == 1)
        let position = try #require(try thumbnailer.position(in: test.store)).token
        #expect(try test.store.fetchHistory(.after(position)).map(\.token) == [t2, t3])

        let weekLater = try app.deleter().deleteConsumedHistory(now: Date().addingTimeInterval(8 * Self.day))
        #expect(weekLater.deletedTransactions == 2)
        #expect(throws: SpotliteStoreError.expiredToken(requested: t1, purgedThrough: t3)) {
            try test.store.fetchHistory(.after(position))
        }
    }

    @Test func onlyListedAuthorsAreDeletedUnlessUnlistedOnesArePurgedToo() async throws {
        for purgesUnlisted in [false, true] {
            let test = try TestStore()
            let tracker = try HistoryTracker(
                store: test.store,
                configuration: trackerConfiguration("app", allAuthors: ["app", "importer"], autoStart: false) {
                    $0.batchAuthors = ["importer"]
                    $0.deletesUnlistedAuthors = purgesUnlisted
                })
            let listed = try test.store.insertPackages(["listed"], author: "importer")
            try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('from-the-shell');")
            let stranger = try test.store.insertPackages(["stranger"], author: "someone-else")
            try await tracker.processPendingHistory()
            #expect(try tracker.position()?.token == stranger)

            let result = try tracker.deleter().deleteConsumedHistory()
            let remaining = try test.store.fetchHistory(.allRetained)
            if purgesUnlisted {
                #expect(result.deletedTransactions == 3)
                #expect(remaining.isEmpty)
            } else {
                #expect(result.deletedTransactions == 1)
                #expect(remaining.map(\.author) == [nil, "someone-else"])
                #expect(!remaining.contains { $0.token == listed })
            }
        }
    }

    @Test func cleanupReadsPositionsAndDeletesInOneTransactionAcrossProcesses() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app", "widget", "reader"], autoStart: false) {
                $0.batchAuthors = ["widget"]
            })
        var tokens: [HistoryToken] = []
        for index in 1...6 { tokens.append(try widget.insertPackages(["p\(index)"], author: "widget")) }
        try await tracker.processPendingHistory()
        try test.store.setPosition(tokens[5], for: "reader")

        // Another process rewinds the reader (it restored its data from a backup) inside a transaction that it
        // holds open until told to commit, while this process cleans.
        let marker = test.directory.path("rewinding")
        let go = test.directory.path("go")
        let waitForGo = test.directory.path("wait-for-go.sh")
        try "for i in $(seq 1 1200); do [ -e '\(go)' ] && exit 0; sleep 0.05; done; exit 1\n"
            .write(toFile: waitForGo, atomically: true, encoding: .utf8)
        let shell = try SQLiteShell.start(test.path, """
            BEGIN IMMEDIATE;
            UPDATE spotlite_position SET token = \(tokens[1].rawValue) WHERE author = 'reader';
            .shell touch '\(marker)'
            .shell sh '\(waitForGo)'
            COMMIT;
            """)
        #expect(await pollUntil { FileManager.default.fileExists(atPath: marker) })
        // A separate read now still sees the old position: reading it, then deleting in another transaction, as
        // the kit does with its defaults file, would delete what the reader is about to need again.
        #expect(try test.store.position(of: "reader")?.token == tokens[5])

        let deleter = tracker.deleter()
        // On a thread of its own: the clean blocks while it waits for the lock, and must not hold one of the few
        // cooperative threads this test needs to go on.
        let (cleanerStarted, started) = AsyncStream.makeStream(of: Void.self)
        let cleaning = Task {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    started.yield()
                    continuation.resume(with: Result { try deleter.deleteConsumedHistory() })
                }
            }
        }
        // Once the cleaner runs, let the other process commit: the shell looks for the go file every 50 ms, while the
        // cleaner reaches the lock at once. Either way the cleaner must read the rewound position.
        try await within("the cleaner to start") {
            for await _ in cleanerStarted { break }
        }
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        let result = try await within("the cleaner to finish") { try await cleaning.value }
        _ = try shell.finish()
        #expect(result.watermark == tokens[1])
        #expect(try test.store.fetchHistory(.allRetained).map(\.token) == Array(tokens[2...]))
        #expect(try test.store.fetchHistory(.after(tokens[1])).count == 4)
    }

    @Test func aThrowingSubscriberGetsTheSameTransactionsAgain() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let first = RecordingSubscriber()
        let refusing = RecordingSubscriber()
        refusing.refuse(next: 1)
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [first, refusing])
        let events = TrackerEventLog(tracker)

        let a = try widget.insertPackages(["a"], author: "widget")
        await #expect(throws: RecordingSubscriber.Refusal.self) { try await tracker.processPendingHistory() }
        #expect(await waitUntil { events.failures.contains { $0 is RecordingSubscriber.Refusal } })
        #expect(try tracker.position() == nil)

        let b = try widget.insertPackages(["b"], author: "widget")
        try await tracker.processPendingHistory()
        #expect(refusing.deliveries.values.map { $0.map(\.token) } == [[a], [a, b]])
        #expect(first.deliveries.values.map { $0.map(\.token) } == [[a], [a, b]], "at least once: every subscriber again")
        #expect(try tracker.position()?.token == b)
    }

    @Test func aCrashBetweenDeliveryAndSavingThePositionRedeliversAndNeverSkips() async throws {
        let test = try TestStore()
        let widget = try test.reopen()
        let t1 = try widget.insertPackages(["one"], author: "widget")
        let t2 = try widget.insertPackages(["two"], author: "widget")

        // Another connection takes the write lock the moment delivery ends, so saving the position fails exactly
        // where a crash would hit: after the subscriber applied the changes, before the position moved.
        var blockerConfiguration = Configuration()
        blockerConfiguration.allowsUnsafeTransactions = true
        let blocker = try DatabaseQueue(path: test.path, configuration: blockerConfiguration)
        let beforeCrash = RecordingSubscriber()
        let crashing = AnyHistorySubscriber { transactions in
            try await beforeCrash.merge(transactions)
            try blocker.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        }
        let doomedStore = try test.reopen(options: StoreOptions(busyTimeout: 0.2))
        let doomed = try HistoryTracker(
            store: doomedStore, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [crashing])
        await #expect(throws: DatabaseError.self) { try await doomed.processPendingHistory() }
        try blocker.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        #expect(beforeCrash.tokens == [t1, t2])
        #expect(try test.store.position(of: "app") == nil)

        // The app starts again, on a fresh handle: the same transactions come again, then new ones, none skipped.
        let restarted = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: try test.reopen(), configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [restarted])
        try await tracker.processPendingHistory()
        #expect(restarted.tokens == [t1, t2])
        let t3 = try widget.insertPackages(["three"], author: "widget")
        try await tracker.processPendingHistory()
        #expect(restarted.tokens == [t1, t2, t3])
        withExtendedLifetime(doomed) {}
    }
}

import Foundation
import GRDB
import Logging
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Which transactions a tracker delivers: other authors' (two apps on two handles of one file), batch operations,
/// mirror authors only when asked, the current author's batch contexts, and foreign writers when asked.
@Suite("Tracking: fetching", .blockingWork)
struct TrackingFetchTests {
    @Test func theCurrentAuthorsOwnTransactionsAreNotDelivered() async throws {
        let test = try TestStore()
        let widgetStore = try test.reopen()
        let subscriber = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [subscriber])

        let own = try test.store.insertPackages(["mine"], author: "app")
        let theirs = try widgetStore.insertPackages(["theirs"], author: "widget")
        let ownAgain = try test.store.insertPackages(["mine-too"], author: "app")
        let summary = try await tracker.processPendingHistory()

        #expect(subscriber.tokens == [theirs])
        #expect(summary.deliveredTransactions == 1)
        // The position passes over the app's own transactions too, so they do not hold cleanup back.
        #expect(summary.position == ownAgain)
        #expect(try tracker.position()?.token == ownAgain)
        #expect(own < theirs)
    }

    @Test func twoAppsEachReceiveTheOthersInserts() async throws {
        let test = try TestStore()
        let appStore = test.store
        let widgetStore = try test.reopen()
        let authors = ["app", "widget"]
        let appInbox = RecordingSubscriber()
        let widgetInbox = RecordingSubscriber()
        let app = try HistoryTracker(
            store: appStore, configuration: trackerConfiguration("app", allAuthors: authors), subscribers: [appInbox])
        let widget = try HistoryTracker(
            store: widgetStore, configuration: trackerConfiguration("widget", allAuthors: authors),
            subscribers: [widgetInbox])

        let fromApp = try appStore.insertPackages(["from-app"], author: "app")
        let fromWidget = try widgetStore.insertPackages(["from-widget"], author: "widget")

        // Delivered by the trackers' own notification rounds: nothing here asks them to process.
        #expect(await waitUntil { appInbox.tokens == [fromWidget] && widgetInbox.tokens == [fromApp] })
        #expect(appInbox.transactions.first?.changes.map(\.key) == ["from-widget".databaseValue])
        #expect(widgetInbox.transactions.first?.changes.map(\.key) == ["from-app".databaseValue])
        #expect(appInbox.transactions.allSatisfy { $0.author == "widget" })
        withExtendedLifetime((app, widget)) {}
    }

    @Test func aBatchOperationArrivesAsOneTransactionWithOneChangePerRow() async throws {
        let test = try TestStore()
        let importerStore = try test.reopen()
        let inbox = RecordingSubscriber()
        let app = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app", "importer"]) { $0.batchAuthors = ["importer"] },
            subscribers: [inbox])

        let token = try importerStore.run("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250)
            INSERT INTO Package (name, summary) SELECT 'bulk-' || i, 'row ' || i FROM n
            """, author: "importer", context: "batchContext")

        #expect(await waitUntil { !inbox.transactions.isEmpty })
        try await app.processPendingHistory()
        let transaction = try #require(inbox.transactions.first)
        #expect(inbox.transactions.count == 1)
        #expect(transaction.token == token)
        #expect(transaction.author == "importer")
        #expect(transaction.contextName == "batchContext")
        #expect(transaction.changes.count == 250)
        #expect(transaction.changes.allSatisfy { $0.changeType == .insert && $0.entity == "Package" })
        #expect(Set(transaction.changes.map(\.key)).count == 250)
    }

    @Test func theMirrorAuthorIsDeliveredOnlyWhenAskedFor() async throws {
        let test = try TestStore()
        let syncStore = try test.reopen()
        let authors = ["app", "widget"]
        let plainInbox = RecordingSubscriber()
        let mirroringInbox = RecordingSubscriber()
        let plain = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: authors, autoStart: false) {
                $0.mirrorAuthors = ["sync.import"]
            },
            subscribers: [plainInbox])
        let mirroring = try HistoryTracker(
            store: try test.reopen(),
            configuration: trackerConfiguration("widget", allAuthors: authors, autoStart: false) {
                $0.mirrorAuthors = ["sync.import"]
                $0.includesMirrorAuthors = true
            },
            subscribers: [mirroringInbox])

        let imported = try syncStore.insertPackages(["from-the-cloud"], author: "sync.import")
        try await plain.processPendingHistory()
        try await mirroring.processPendingHistory()

        #expect(plainInbox.tokens.isEmpty)
        #expect(mirroringInbox.tokens == [imported])
        let transaction = try #require(try test.store.fetchHistory(.allRetained).last)
        #expect(plain.configuration.passOverReason(for: transaction) == .mirrorAuthor)
        #expect(mirroring.configuration.passOverReason(for: transaction) == nil)
        #expect(try plain.position()?.token == imported, "passed over by the setting, not held back")
    }

    @Test func theCurrentAuthorsBatchContextsAreDeliveredToIt() async throws {
        let test = try TestStore()
        let inbox = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false) {
                $0.batchContextNames = ["batchContext"]
            },
            subscribers: [inbox])

        try test.store.insertPackages(["edited-in-the-ui"], author: "app", context: "viewContext")
        let batch = try test.store.run(
            "UPDATE Package SET section = 'misc' WHERE section IS NULL", author: "app", context: "batchContext")
        let unnamed = try test.store.insertPackages(["no-context"], author: "app")
        try await tracker.processPendingHistory()

        #expect(inbox.tokens == [batch])
        #expect(inbox.transactions.first?.changes.map(\.changeType) == [.update])
        #expect(try tracker.position()?.token == unnamed)
    }

    @Test func writesByOtherProgramsAreDeliveredUnlessTheSettingLeavesThemOutWhichIsLogged() async throws {
        let test = try TestStore()
        let defaultInbox = RecordingSubscriber()
        let withoutInbox = RecordingSubscriber()
        let messages = Recorder<(Logger.Level, String)>()
        let byDefault = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app"], autoStart: false),
            subscribers: [defaultInbox])
        let without = try HistoryTracker(
            store: try test.reopen(),
            configuration: trackerConfiguration("app", allAuthors: ["app"], autoStart: false) {
                $0.positionKeyPrefix = "second."
                $0.includesUnattributedTransactions = false
                $0.logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
                $0.logLevel = .important
            },
            subscribers: [withoutInbox])

        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('from-the-shell');")
        try await byDefault.processPendingHistory()
        try await without.processPendingHistory()

        let transaction = try #require(defaultInbox.transactions.first)
        #expect(defaultInbox.transactions.count == 1)
        #expect(transaction.author == nil)
        #expect(transaction.changes.map(\.key) == ["from-the-shell".databaseValue])
        #expect(withoutInbox.tokens.isEmpty)
        // Passed over because a setting says so, and said so in the log.
        #expect(try without.position()?.token == transaction.token)
        #expect(messages.values.contains { level, message in
            level == .notice && message.contains("passed over 1 transactions of unattributed writes")
        })
    }

    @Test func unlistedAuthorsSuchAsAMigrationAreDeliveredNotPassedOver() async throws {
        let test = try TestStore()
        let inbox = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
            subscribers: [inbox])
        try await tracker.processPendingHistory()
        let imported = try test.store.insertPackages(["imported"], author: "spotlite.import")
        let stranger = try test.store.insertPackages(["unknown"], author: "a-tool-nobody-listed")
        try await tracker.processPendingHistory()
        #expect(inbox.tokens == [imported, stranger])
    }

    @Test func largeBacklogsAreDeliveredInBatchesInTokenOrder() async throws {
        let test = try TestStore()
        let widgetStore = try test.reopen()
        var written: [HistoryToken] = []
        for index in 0..<23 {
            written.append(try widgetStore.insertPackages(["p\(index)"], author: "widget"))
        }
        let inbox = RecordingSubscriber()
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false) {
                $0.fetchBatchSize = 5
            },
            subscribers: [inbox])
        let events = TrackerEventLog(tracker)
        let summary = try await tracker.processPendingHistory()

        #expect(inbox.tokens == written)
        #expect(inbox.deliveries.values.map(\.count) == [5, 5, 5, 5, 3])
        #expect(summary.deliveredTransactions == 23)
        #expect(await waitUntil { events.positions.count == 5 })
        #expect(events.positions == [written[4], written[9], written[14], written[19], written[22]])
    }
}

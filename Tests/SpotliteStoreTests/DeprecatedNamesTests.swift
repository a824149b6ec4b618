import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// The names used before 0.1.0 still build and mean what the new ones mean (CHANGELOG.md, "Renamed"). The tests
/// are deprecated themselves, so that using the old names here warns no one.
@Suite("Deprecated names", .blockingWork)
struct DeprecatedNamesTests {
    @available(*, deprecated)
    @Test func theOldDeletionNamesAreTheNewTypes() {
        let schedules: [CleanStrategy] = [.none, .byDuration(.seconds(60)), .byNotification(times: 3)]
        #expect(schedules == [HistoryDeletionSchedule.none, .every(.seconds(60)), .notifications(3)])

        var policy = CleanupPolicy(requiredAuthors: ["app"], purgesUnlistedAuthors: true)
        #expect(policy == HistoryDeletionPolicy(requiredAuthors: ["app"], deletesUnlistedAuthors: true))
        #expect(policy.purgesUnlistedAuthors)
        policy.purgesUnlistedAuthors = false
        #expect(!policy.deletesUnlistedAuthors)

        let result: CleanupResult = HistoryDeletionResult(watermark: nil, deletedTransactions: 0, keptTransactions: 0,
                                                          reason: "nothing to delete")
        var summary = TrackerPassSummary(deliveredTransactions: 1, cleanup: result)
        #expect(summary.deletion == result && summary.cleanup == result)
        summary.cleanup = nil
        #expect(summary.deletion == nil)
        if case .deletedHistory(let made) = HistoryTrackerEvent.cleaned(result) {
            #expect(made == result)
        } else {
            Issue.record("HistoryTrackerEvent.cleaned(_:) did not make .deletedHistory")
        }
    }

    @available(*, deprecated)
    @Test func theOldTrackerConfigurationNamesSetTheNewProperties() {
        var configuration = HistoryTrackerConfiguration(
            currentAuthor: "app", allAuthors: ["app", "widget"], cleanStrategy: .byNotification(times: 5),
            purgesUnlistedAuthors: true, autoStart: false)
        #expect(configuration.deletionSchedule == .notifications(5))
        #expect(configuration.deletesUnlistedAuthors)
        #expect(configuration.cleanupPolicy == configuration.deletionPolicy)
        configuration.cleanStrategy = .byDuration(.seconds(3600))
        configuration.purgesUnlistedAuthors = false
        #expect(configuration.deletionSchedule == .every(.seconds(3600)))
        #expect(!configuration.deletesUnlistedAuthors)

        let purging = HistoryTrackerConfiguration(currentAuthor: "app", allAuthors: ["app"], purgesUnlistedAuthors: true)
        #expect(purging.deletesUnlistedAuthors && purging.deletionSchedule == .none)
    }

    @available(*, deprecated)
    @Test func theOldTrackerAndCleanerNamesDeleteAsTheNewOnesDo() async throws {
        let test = try TestStore()
        let tracker = try HistoryTracker(
            store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false))
        #expect(tracker.cleanupPolicy == tracker.deletionPolicy)
        let widget = try test.reopen()
        let token = try widget.insertPackages(["vim"], author: "widget")
        try await tracker.processPendingHistory()
        try test.store.setPosition(token, for: "widget")

        let cleaner: HistoryCleaner = tracker.cleaner()
        let dryRun = try cleaner.clean(dryRun: true)
        #expect(dryRun.watermark == token)
        #expect(try test.store.transactionCount() == 1)
        let result = try cleaner.clean()
        #expect(result.deletedTransactions == 1)
        #expect(try test.store.transactionCount() == 0)
    }

    @available(*, deprecated)
    @Test("the former error types' case patterns match what they matched; `is` widens, which their warning says")
    func theOldErrorTypesAreSpotliteStoreError() throws {
        let test = try TestStore()
        let (first, newest) = try test.expireHistory()
        do {
            _ = try test.store.fetchHistory(.after(first))
            Issue.record("history after a deleted token was fetched")
        } catch HistoryError.expiredToken(let requested, let purgedThrough) {
            #expect(requested == first && purgedThrough == newest)
        }
        do {
            _ = try RecordImporter(store: test.store, entity: "Package", batchSize: 0)
            Issue.record("a batch size of 0 was accepted")
        } catch ImportError.invalidBatchSize(let size, .importLines) {
            #expect(size == 0)
        }
        let readOnly = try test.reopen(options: StoreOptions(readOnly: true))
        do {
            try readOnly.write(author: "app") { _ in }
            Issue.record("a read-only store wrote")
        } catch StoreError.readOnlyStore(let operation) {
            #expect(operation == .write)
        }
        let phase: MigrationError.Phase = .didMigrate
        #expect(phase == SpotliteStoreError.MigrationPhase.didMigrate)
        // What the deprecation messages warn about: each former name is the whole type now.
        let importing: any Error = SpotliteStoreError.invalidAuthor("")
        #expect(importing is HistoryError && importing is StoreError)
        #expect((importing as? SpotliteStoreError)?.area == .importing)
        #expect(TrackerError.unknownMergeHook(UUID()).area == .tracking)
    }
}

import Foundation
import GRDB
import Logging
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// The tracker's configuration: the kit's defaults, rejected configurations with their way out, and log levels.
@Suite("Tracking: configuration and logging", .blockingWork)
struct TrackingConfigurationTests {
    @Test func defaultsFollowTheKitWhereItIsSafe() {
        let configuration = HistoryTrackerConfiguration(currentAuthor: "app", allAuthors: ["app"])
        #expect(configuration.deletionSchedule == .none)
        #expect(configuration.maximumDuration == .seconds(7 * 86_400))
        #expect(configuration.deletionPolicy.maximumDuration == TimeInterval(7 * 86_400))
        #expect(configuration.autoStart)
        #expect(configuration.logLevel == .important)
        #expect(configuration.positionKeyPrefix.isEmpty)
        #expect(!configuration.includesMirrorAuthors)
        #expect(!configuration.deletesUnlistedAuthors)
    }

    @Test func unworkableConfigurationsAreRejectedWithTheWayOut() throws {
        let test = try TestStore()
        func rejection(_ adjust: (inout HistoryTrackerConfiguration) -> Void) -> SpotliteStoreError? {
            var configuration = HistoryTrackerConfiguration(
                currentAuthor: "app", allAuthors: ["app", "importer"], autoStart: false)
            adjust(&configuration)
            do {
                _ = try HistoryTracker(store: test.store, configuration: configuration)
                return nil
            } catch let error as SpotliteStoreError {
                return error
            } catch {
                Issue.record("unexpected error \(error)")
                return nil
            }
        }

        let cases: [(SpotliteStoreError?, SpotliteStoreError, String)] = [
            (rejection { $0.currentAuthor = "other" }, .currentAuthorNotListed("other"), "add it there"),
            (rejection { $0.currentAuthor = " app" }, .invalidAuthorName(" app", role: .currentAuthor), "without leading"),
            (rejection { $0.allAuthors.append("") }, .invalidAuthorName("", role: .listedAuthor), "non-empty"),
            (rejection { $0.batchAuthors = ["stranger"] }, .batchAuthorNotListed("stranger"), "add it there or remove it"),
            (rejection { $0.batchAuthors = ["app"] }, .currentAuthorIsBatchAuthor("app"), "batchContextNames"),
            (rejection { $0.deletionSchedule = .notifications(0) }, .invalidNotificationCount(0), "at least 1"),
            (rejection { $0.deletionSchedule = .every(.zero) }, .invalidDuration(.zero, role: .deletionInterval), "positive"),
            (rejection { $0.maximumDuration = .seconds(-1) }, .invalidDuration(.seconds(-1), role: .maximumDuration), "nil"),
            (rejection { $0.fetchBatchSize = 0 }, .invalidBatchSize(0, of: .trackerFetch), "at least 1"),
            (rejection { $0.consumers = ["indexer "] }, .invalidAuthorName("indexer ", role: .consumer), "trailing"),
        ]
        for (thrown, expected, hint) in cases {
            #expect(thrown == expected)
            #expect(expected.description.contains(hint), "\(expected.description)")
        }
        #expect(rejection { $0.maximumDuration = nil } == nil)
        #expect(rejection { $0.batchAuthors = ["importer"] } == nil)
    }

    @Test func aReadOnlyStoreCannotBeTracked() throws {
        let test = try TestStore()
        let readOnly = try test.reopen(options: StoreOptions(readOnly: true))
        let configuration = HistoryTrackerConfiguration(currentAuthor: "app", allAuthors: ["app"], autoStart: false)
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .trackHistory)) {
            _ = try HistoryTracker(store: readOnly, configuration: configuration)
        }
    }

    @Test func deletionPolicyFollowsTheConfiguration() {
        var configuration = HistoryTrackerConfiguration(
            currentAuthor: "app", allAuthors: ["app", "widget", "importer"], batchAuthors: ["importer"],
            consumers: ["spotlite.indexer", "app"], deletesUnlistedAuthors: true, positionKeyPrefix: "kit.")
        configuration.maximumDuration = .milliseconds(1500)
        let policy = configuration.deletionPolicy
        #expect(policy.requiredAuthors == ["kit.app", "kit.widget", "spotlite.indexer", "app"])
        #expect(policy.listedAuthors == ["app", "widget", "importer"])
        #expect(policy.deletesUnlistedAuthors)
        #expect(policy.maximumDuration == 1.5)
        struct Embedder: HistoryPositionHolder { let consumerName = "embeddings" }
        #expect(policy.waiting(for: [Embedder(), Embedder()]).requiredAuthors.last == "embeddings")
        #expect(policy.waiting(for: [Embedder()]).requiredAuthors.count == 5)
    }

    private func loggedMessages(at level: TrackerLogLevel) async throws -> [(Logger.Level, String)] {
        let test = try TestStore()
        let widget = try test.reopen()
        let messages = Recorder<(Logger.Level, String)>()
        let refusing = RecordingSubscriber()
        refusing.refuse(next: 1)
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false) {
                $0.logLevel = level
                $0.logger = Logger(label: "tracker-test") { _ in CapturingLogHandler(messages: messages) }
            },
            subscribers: [refusing])
        try widget.insertPackages(["a"], author: "widget")
        await #expect(throws: RecordingSubscriber.Refusal.self) { try await tracker.processPendingHistory() }
        try await tracker.processPendingHistory()
        return messages.values
    }

    @Test func logLevelZeroLogsNothing() async throws {
        #expect(try await loggedMessages(at: .off).isEmpty)
    }

    @Test func logLevelOneLogsFailuresButNotEveryDelivery() async throws {
        let messages = try await loggedMessages(at: .important)
        #expect(messages.contains { $0.0 == .error && $0.1.contains("the position stays") && $0.1.contains("refused") })
        #expect(!messages.contains { $0.1.contains("delivered") })
    }

    @Test func logLevelTwoAlsoLogsEachDelivery() async throws {
        let messages = try await loggedMessages(at: .detailed)
        #expect(messages.contains { $0.0 == .error && $0.1.contains("refused") })
        #expect(messages.contains { $0.0 == .info && $0.1.contains("delivered 1 of 1") })
    }
}

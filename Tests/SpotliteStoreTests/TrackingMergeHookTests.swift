import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// The merge-hook pipeline and the default merge into subscribers.
@Suite("Tracking: merge hooks", .blockingWork)
struct TrackingMergeHookTests {
    struct Fixture {
        let test: TestStore
        let widget: SpotliteStore
        let first = RecordingSubscriber()
        let second = RecordingSubscriber()
        let tracker: HistoryTracker

        init() throws {
            test = try TestStore()
            widget = try test.reopen()
            tracker = try HistoryTracker(
                store: test.store,
                configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false),
                subscribers: [first, second])
        }

        @discardableResult
        func widgetInserts(_ name: String) throws -> HistoryToken {
            try widget.insertPackages([name], author: "widget")
        }
    }

    @Test func goOnRunsTheNextHookThenTheDefaultMerge() async throws {
        let fixture = try Fixture()
        let ran = Recorder<String>()
        fixture.tracker.registerMergeHook { _ in ran.append("one"); return .goOn }
        fixture.tracker.registerMergeHook { _ in ran.append("two"); return .goOn }
        let token = try fixture.widgetInserts("a")
        try await fixture.tracker.processPendingHistory()

        #expect(ran.values == ["one", "two"])
        #expect(fixture.first.tokens == [token])
        #expect(fixture.second.tokens == [token])
    }

    @Test func finishSkipsTheRestAndTheDefaultMergeButCountsAsDelivered() async throws {
        let fixture = try Fixture()
        let ran = Recorder<String>()
        fixture.tracker.registerMergeHook { _ in ran.append("one"); return .finish }
        fixture.tracker.registerMergeHook { _ in ran.append("two"); return .goOn }
        let token = try fixture.widgetInserts("a")
        let summary = try await fixture.tracker.processPendingHistory()

        #expect(ran.values == ["one"])
        #expect(fixture.first.tokens.isEmpty)
        #expect(fixture.second.tokens.isEmpty)
        #expect(summary.deliveredTransactions == 1)
        #expect(try fixture.tracker.position()?.token == token)
    }

    @Test func beforeInsertsAHookAheadOfAnother() async throws {
        let fixture = try Fixture()
        let ran = Recorder<String>()
        let last = fixture.tracker.registerMergeHook { _ in ran.append("last"); return .goOn }
        let middle = try fixture.tracker.registerMergeHook(before: last) { _ in ran.append("middle"); return .goOn }
        try fixture.tracker.registerMergeHook(before: middle) { _ in ran.append("first"); return .goOn }
        try fixture.widgetInserts("a")
        try await fixture.tracker.processPendingHistory()
        #expect(ran.values == ["first", "middle", "last"])
    }

    @Test func beforeAnUnknownHookIsRejected() throws {
        let fixture = try Fixture()
        let stranger = UUID()
        #expect(throws: SpotliteStoreError.unknownMergeHook(stranger)) {
            try fixture.tracker.registerMergeHook(before: stranger) { _ in .goOn }
        }
        #expect(SpotliteStoreError.unknownMergeHook(stranger).recovery == .registerHookFirst)
    }

    @Test func theHookSeesTheTransactionsAndTheSubscribers() async throws {
        let fixture = try Fixture()
        let inputs = Recorder<MergeHookInput>()
        fixture.tracker.registerMergeHook { input in inputs.append(input); return .goOn }
        let a = try fixture.widgetInserts("a")
        let b = try fixture.widgetInserts("b")
        try await fixture.tracker.processPendingHistory()

        let input = try #require(inputs.values.first)
        #expect(inputs.count == 1)
        #expect(input.transactions.map(\.token) == [a, b])
        #expect(input.subscribers.count == 2)
        #expect((input.subscribers.first as? RecordingSubscriber) === fixture.first)
        #expect((input.subscribers.last as? RecordingSubscriber) === fixture.second)
        #expect(input.currentAuthor == "app")
        #expect(input.store === fixture.test.store)
    }

    @Test func removingHooks() async throws {
        let fixture = try Fixture()
        let ran = Recorder<String>()
        let finishing = fixture.tracker.registerMergeHook { _ in ran.append("finishing"); return .finish }
        #expect(fixture.tracker.removeMergeHook(id: finishing))
        #expect(!fixture.tracker.removeMergeHook(id: finishing))
        let a = try fixture.widgetInserts("a")
        try await fixture.tracker.processPendingHistory()
        #expect(ran.values.isEmpty)
        #expect(fixture.first.tokens == [a])

        fixture.tracker.registerMergeHook { _ in ran.append("one"); return .finish }
        fixture.tracker.registerMergeHook { _ in ran.append("two"); return .finish }
        fixture.tracker.removeAllMergeHooks()
        let b = try fixture.widgetInserts("b")
        try await fixture.tracker.processPendingHistory()
        #expect(ran.values.isEmpty)
        #expect(fixture.first.tokens == [a, b])
    }

    @Test func subscribersAreMergedInRegistrationOrderAndCanBeRemoved() async throws {
        let fixture = try Fixture()
        let order = Recorder<String>()
        let third = fixture.tracker.addSubscriber(AnyHistorySubscriber { _ in order.append("third") })
        fixture.tracker.addSubscriber(AnyHistorySubscriber { _ in order.append("fourth") })
        fixture.tracker.registerMergeHook { input in
            order.append("hook sees \(input.subscribers.count)")
            return .goOn
        }
        try fixture.widgetInserts("a")
        try await fixture.tracker.processPendingHistory()
        #expect(order.values == ["hook sees 4", "third", "fourth"])
        #expect(fixture.first.deliveries.count == 1 && fixture.second.deliveries.count == 1)

        #expect(fixture.tracker.removeSubscriber(id: third))
        #expect(!fixture.tracker.removeSubscriber(id: third))
        try fixture.widgetInserts("b")
        try await fixture.tracker.processPendingHistory()
        #expect(order.values == ["hook sees 4", "third", "fourth", "hook sees 3", "fourth"])
    }

    @Test func aThrowingHookLeavesThePositionAndTheSameTransactionsComeAgain() async throws {
        let fixture = try Fixture()
        struct HookFailure: Error {}
        let attempts = Recorder<[HistoryToken]>()
        fixture.tracker.registerMergeHook { input in
            attempts.append(input.transactions.map(\.token))
            if attempts.count == 1 { throw HookFailure() }
            return .goOn
        }
        let events = TrackerEventLog(fixture.tracker)
        let token = try fixture.widgetInserts("a")

        await #expect(throws: HookFailure.self) { try await fixture.tracker.processPendingHistory() }
        #expect(try fixture.tracker.position() == nil)
        #expect(fixture.first.tokens.isEmpty)
        #expect(await waitUntil { events.failures.contains { $0 is HookFailure } })

        try await fixture.tracker.processPendingHistory()
        #expect(attempts.values == [[token], [token]])
        #expect(fixture.first.tokens == [token])
        #expect(try fixture.tracker.position()?.token == token)
    }
}

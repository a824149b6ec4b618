import Foundation
import GRDB
import Logging
import Synchronization
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

// Helpers shared by the Tracking*Tests suites (this file holds no tests of its own).

/// A thread-safe list that tests append to from hooks and subscribers. Every append wakes the tests waiting in
/// ``waitUntil(timeout:_:)``.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
        RecorderChanges.shared.fire()
    }

    var values: [Value] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// A subscriber that records what it is given, and can be told to throw.
final class RecordingSubscriber: HistorySubscriber {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "the subscriber refused this delivery" }
    }

    let deliveries = Recorder<[HistoryTransaction]>()
    private let refusals = Mutex(0)

    /// Makes the next `count` merges throw after recording.
    func refuse(next count: Int) {
        refusals.withLock { $0 = count }
    }

    func merge(_ transactions: [HistoryTransaction]) async throws {
        deliveries.append(transactions)
        let refuses = refusals.withLock { remaining -> Bool in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
        if refuses { throw Refusal() }
    }

    var transactions: [HistoryTransaction] { deliveries.values.flatMap { $0 } }
    var tokens: [HistoryToken] { transactions.map(\.token) }
}

/// Collects a tracker's events from the moment it is created.
final class TrackerEventLog: Sendable {
    let events = Recorder<HistoryTrackerEvent>()
    private let task: Task<Void, Never>

    init(_ tracker: HistoryTracker) {
        let stream = tracker.events()
        let events = self.events
        task = Task {
            for await event in stream { events.append(event) }
        }
    }

    deinit {
        task.cancel()
    }

    var cleanups: [HistoryDeletionResult] {
        events.values.compactMap { event in
            if case .deletedHistory(let result) = event { return result }
            return nil
        }
    }

    var failures: [any Error] {
        events.values.compactMap { event in
            if case .failed(let error) = event { return error }
            return nil
        }
    }

    var positions: [HistoryToken] {
        events.values.compactMap { event in
            if case .delivered(_, let position) = event { return position }
            return nil
        }
    }
}

/// Waits until `condition`, which reads ``Recorder``s (events, deliveries), holds: it is checked again after
/// each append to any recorder, never on a timer. False after `timeout`, a generous bound on liveness only.
func waitUntil(timeout: Duration = Liveness.limit, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
        let seen = RecorderChanges.shared.generation
        if try condition() { return true }
        guard await RecorderChanges.shared.wait(after: seen, until: deadline) else { return try condition() }
    }
}

/// Waits until `condition` holds for state that tells no one when it changes (a subscriber count, a file, rows):
/// checks it every few milliseconds. False after `timeout`. Use ``waitUntil(timeout:_:)`` for recorded events.
func pollUntil(timeout: Duration = Liveness.limit, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}

/// Counts the appends to every ``Recorder`` of the process and wakes the tests waiting for one.
final class RecorderChanges: Sendable {
    static let shared = RecorderChanges()

    private struct State {
        var generation = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    var generation: Int { state.withLock { $0.generation } }

    func fire() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// True once an append follows `generation`; false when `deadline` passes first.
    func wait(after generation: Int, until deadline: ContinuousClock.Instant) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        // On a thread of its own: a sleep on the cooperative pool wakes late while tests block the pool's threads.
        let expiry = Deadline(after: ContinuousClock.now.duration(to: deadline), name: "spotlite.tests.waitUntil") {
            self.resume(id, with: false)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            let changed = state.withLock { state -> Bool? in
                if state.generation != generation { return true }
                if ContinuousClock.now >= deadline { return false }
                state.waiters[id] = continuation
                return nil
            }
            if let changed { continuation.resume(returning: changed) }
        }
    }

    private func resume(_ id: Int, with value: Bool) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: value)
    }
}

/// A configuration with quiet logs and no auto-start unless asked.
func trackerConfiguration(
    _ author: String, allAuthors: [String], autoStart: Bool = true,
    _ adjust: (inout HistoryTrackerConfiguration) -> Void = { _ in }
) -> HistoryTrackerConfiguration {
    var configuration = HistoryTrackerConfiguration(
        currentAuthor: author, allAuthors: allAuthors, logLevel: .off, autoStart: autoStart)
    adjust(&configuration)
    return configuration
}

extension SpotliteStore {
    /// Inserts packages in one transaction and returns its token.
    @discardableResult
    func insertPackages(_ names: [String], author: String?, context: String? = nil) throws -> HistoryToken {
        try run(
            names.map { "INSERT INTO Package (name, summary) VALUES ('\($0)', 'about \($0)');" }.joined(),
            author: author, context: context)
    }

    /// Runs `sql` as one transaction by `author` and returns its token.
    @discardableResult
    func run(_ sql: String, author: String?, context: String? = nil) throws -> HistoryToken {
        let token = try write(author: author, context: context) { db in
            try db.execute(sql: sql)
            // The write's own token (the store's current token may already be another writer's afterwards).
            return try HistoryToken.fetchOne(db, sql: "SELECT token FROM spotlite_current WHERE id = 1")
        }
        return try #require(token)
    }

    /// How many transactions history holds.
    func transactionCount() throws -> Int {
        try countHistory(.allRetained)
    }
}

/// Captures log messages with their levels.
struct CapturingLogHandler: LogHandler {
    let messages: Recorder<(Logger.Level, String)>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append((event.level, event.message.description))
    }
}

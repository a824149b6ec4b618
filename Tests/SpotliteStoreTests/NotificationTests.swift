import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// The first notification satisfying `predicate`, or nil when none came within `timeout` (a bound on liveness, not
/// on speed). Ends the subscription.
func firstNotification(
    from notifications: StoreChangeNotifications, timeout: Duration = Liveness.limit,
    where predicate: @escaping @Sendable (StoreChangeNotification) -> Bool = { _ in true }
) async -> StoreChangeNotification? {
    try? await within("a change notification", limit: timeout) {
        for await notification in notifications where predicate(notification) { return notification }
        return nil
    }
}

@Suite("Change notifications", .blockingWork)
struct NotificationTests {
    @Test func writeThroughTheStoreIsAnnounced() async throws {
        let test = try TestStore()
        let notifications = test.store.changeNotifications()
        try test.insertPackage("zsh")
        let token = try test.store.currentToken()
        let notification = await firstNotification(from: notifications)
        #expect(notification?.token == token)
        #expect(notification?.storeID == test.store.storeID)
        #expect(notification?.path == test.path)
        #expect(!test.store.storeID.isEmpty)
    }

    @Test func sqliteShellWriteIsAnnouncedPromptlyAndSealed() async throws {
        let test = try TestStore()
        try test.insertPackage("before")
        let before = try #require(try test.store.currentToken())
        let notifications = test.store.changeNotifications()

        let shell = try SQLiteShell.start(test.path, """
            INSERT INTO Package (name) VALUES ('from-shell');
            SELECT printf('%.3f', (julianday('now') - 2440587.5) * 86400.0);
            """)
        let notification = await firstNotification(from: notifications) { ($0.token ?? HistoryToken(0)) > before }
        let arrived = Date()
        let committed = try #require(Double(try shell.finish().trimmingCharacters(in: .whitespacesAndNewlines)))

        let token = try #require(notification?.token)
        // The requirement is 100 ms after the commit (the shell prints the time right after it commits); the
        // machine is shared and noisy, so allow ten times more. Measured when the store sent it: when this
        // task receives it also depends on other tests keeping the two cooperative threads busy.
        let sent = try #require(notification?.date)
        #expect(sent.timeIntervalSince1970 - committed < 1.0)
        #expect(arrived >= sent)
        // The watcher sealed the change before announcing it, so the token already covers it.
        let transaction = try #require(try test.store.fetchHistory(.after(before)).first)
        #expect(transaction.token == token)
        #expect(transaction.author == nil)
        #expect(transaction.changes.first?.key == "from-shell".databaseValue)
    }

    @Test func writeByAnotherHandleIsAnnounced() async throws {
        let test = try TestStore()
        let other = try test.reopen()
        let notifications = test.store.changeNotifications()
        try other.write(author: "other-app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('x')") }
        let expected = try other.currentToken()
        let notification = await firstNotification(from: notifications) { $0.token == expected }
        #expect(notification?.token == expected)
        #expect(notification?.storeID == other.storeID)
    }

    @Test func readOnlyHandleIsNotifiedOfOtherWriters() async throws {
        let test = try TestStore()
        let reader = try test.reopen(options: StoreOptions(readOnly: true))
        let notifications = reader.changeNotifications()
        try test.insertPackage("x")
        let expected = try test.store.currentToken()
        let notification = await firstNotification(from: notifications) { $0.token == expected }
        #expect(notification?.token == expected)
    }

    @Test func writeWithoutHistoryIsNotAnnounced() async throws {
        let test = try TestStore()
        try test.store.write(author: "app") { db in try db.execute(sql: "CREATE TABLE Notes (text TEXT)") }
        let notifications = test.store.changeNotifications()
        let received = Recorder<HistoryToken?>()
        let listening = Task { for await notification in notifications { received.append(notification.token) } }
        try test.store.write(author: "app") { db in try db.execute(sql: "INSERT INTO Notes VALUES ('untracked')") }
        try SQLiteShell.run(test.path, "INSERT INTO Notes VALUES ('untracked too');")
        // Then a tracked write: once its notification is in, it is the only one.
        try test.insertPackage("tracked")
        let tracked = try test.store.currentToken()
        #expect(await waitUntil { received.values.contains(tracked) })
        listening.cancel()
        #expect(received.values == [tracked])
    }

    @Test func everySubscriberIsNotified() async throws {
        let test = try TestStore()
        let first = test.store.changeNotifications()
        let second = test.store.changeNotifications()
        #expect(test.store.hub.subscriberCount == 2)
        try test.insertPackage("x")
        let token = try test.store.currentToken()
        async let a = firstNotification(from: first)
        async let b = firstNotification(from: second)
        let (one, two) = await (a, b)
        #expect(one?.token == token)
        #expect(two?.token == token)
    }

    @Test func endingIterationReleasesTheWatcher() async throws {
        let test = try TestStore()
        let hub = test.store.hub
        do {
            let notifications = test.store.changeNotifications()
            #expect(hub.isMonitoring, "subscribing starts the watcher at once")
            let task = Task {
                for await _ in notifications {}
            }
            task.cancel()
            try await within("the cancelled iteration to end") { await task.value }
        }
        // The subscription ends when the stream's termination handler has run, which tells no one: a bounded poll.
        #expect(await pollUntil { hub.subscriberCount == 0 && !hub.isMonitoring })

        // A new subscription starts watching again.
        let again = test.store.changeNotifications()
        #expect(hub.isMonitoring)
        try SQLiteShell.run(test.path, "INSERT INTO Package (name) VALUES ('after-restart');")
        #expect(await firstNotification(from: again) != nil)
    }

    @Test func sequenceEndsWhenTheStoreIsReleased() async throws {
        let directory = try TemporaryDirectory()
        var store: SpotliteStore? = try SpotliteStore(path: directory.path("store.sqlite"), model: Fixtures.model)
        let notifications = try #require(store).changeNotifications()
        let consumer = Task {
            var count = 0
            for await _ in notifications { count += 1 }
            return count
        }
        try store?.write(author: "app") { db in try db.execute(sql: "INSERT INTO Package (name) VALUES ('x')") }
        store = nil
        let received = await firstValue(of: consumer)
        #expect(received == 1, "the sequence delivered the write, then ended")
    }
}

/// The task's value, or nil (and the task cancelled) when it has not finished within `timeout` (a bound on
/// liveness, not on speed).
func firstValue<Value: Sendable>(of task: Task<Value, Never>, timeout: Duration = Liveness.limit) async -> Value? {
    let value = try? await within("the task's value", limit: timeout) { await task.value }
    if value == nil { task.cancel() }
    return value
}

import Foundation
import GRDB
import Logging
import Synchronization

/// Fans change notifications out to subscribers, from two sources: commits through this store handle (posted
/// directly) and commits by anyone else (seen by a ``DatabaseFileMonitor`` while at least one subscriber exists).
final class ChangeNotificationHub: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<StoreChangeNotification>.Continuation] = [:]
        var nextSubscriberID = 0
        var lastToken: HistoryToken?
        var monitor: DatabaseFileMonitor?
        var generation = 0
    }

    private let state = Mutex(State())
    private let pool: DatabasePool
    private let path: String
    private let storeID: String
    private let sealsForeignChanges: Bool
    private let logger: Logger?

    init(pool: DatabasePool, path: String, storeID: String, sealsForeignChanges: Bool, logger: Logger?) {
        self.pool = pool
        self.path = path
        self.storeID = storeID
        self.sealsForeignChanges = sealsForeignChanges
        self.logger = logger
    }

    deinit {
        // Consumers must not wait forever on a store that is gone: their sequences end.
        let (monitor, subscribers) = state.withLock { state in
            defer { state.subscribers = [:] }
            return (state.monitor, Array(state.subscribers.values))
        }
        monitor?.stop()
        for continuation in subscribers { continuation.finish() }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    var isMonitoring: Bool { state.withLock { $0.monitor != nil } }

    func subscribe() -> StoreChangeNotifications {
        let (stream, continuation) = AsyncStream.makeStream(
            of: StoreChangeNotification.self, bufferingPolicy: .bufferingNewest(1))
        let baseline = try? pool.read(HistoryRecorder.currentToken)
        let (id, needsMonitor, generation) = state.withLock { state in
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = continuation
            if let baseline, baseline > (state.lastToken ?? HistoryToken(0)) { state.lastToken = baseline }
            return (id, state.monitor == nil, state.generation)
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        if needsMonitor { startMonitor(generation: generation) }
        return StoreChangeNotifications(stream: stream)
    }

    /// Announces a token committed through this process.
    func post(_ token: HistoryToken) {
        publish(token)
    }

    private func unsubscribe(_ id: Int) {
        let monitor = state.withLock { state -> DatabaseFileMonitor? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            state.generation += 1
            defer { state.monitor = nil }
            return state.monitor
        }
        monitor?.stop()
    }

    private func publish(_ token: HistoryToken?) {
        state.withLock { state in
            guard let token, token > (state.lastToken ?? HistoryToken(0)) else { return }
            state.lastToken = token
            let notification = StoreChangeNotification(token: token, storeID: storeID, path: path)
            for continuation in state.subscribers.values { continuation.yield(notification) }
        }
    }

    private func startMonitor(generation: Int) {
        #if canImport(Glibc)
        let checker = ForeignCommitChecker(
            path: path, pool: pool, sealsForeignChanges: sealsForeignChanges, logger: logger)
        do {
            let monitor = try DatabaseFileMonitor(databasePath: path) { [weak self] in
                guard let token = checker.check() else { return }
                self?.publish(token)
            }
            let installed = state.withLock { state -> Bool in
                // Every subscriber may have left meanwhile, or another subscriber started a monitor first.
                guard state.generation == generation, state.monitor == nil, !state.subscribers.isEmpty else { return false }
                state.monitor = monitor
                return true
            }
            if !installed { monitor.stop() }
        } catch {
            logger?.error("cannot watch \(path) for changes by other processes: \(error)")
        }
        #endif
    }
}

/// Runs on the monitor's thread: tells whether another connection committed, seals foreign changes, and
/// returns the current token.
private final class ForeignCommitChecker: Sendable {
    private let pool: DatabasePool
    private let sealsForeignChanges: Bool
    private let logger: Logger?
    /// A connection of its own: `PRAGMA data_version` changes when any other connection commits.
    private let versionConnection: DatabaseQueue?
    private let lastDataVersion = Mutex<Int64?>(nil)

    init(path: String, pool: DatabasePool, sealsForeignChanges: Bool, logger: Logger?) {
        self.pool = pool
        self.sealsForeignChanges = sealsForeignChanges
        self.logger = logger
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "spotlite.data-version"
        versionConnection = try? DatabaseQueue(path: path, configuration: configuration)
    }

    func check() -> HistoryToken? {
        guard dataVersionChanged() else { return nil }
        do {
            if sealsForeignChanges, try pool.read(HistoryRecorder.hasPendingChanges) {
                _ = try pool.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        _ = try HistoryRecorder.sealPendingChanges(db)
                        return .commit
                    }
                }
            }
            return try pool.read(HistoryRecorder.currentToken)
        } catch {
            logger?.error("cannot read the store's history after a change by another process: \(error)")
            return nil
        }
    }

    private func dataVersionChanged() -> Bool {
        guard let versionConnection,
            let version = try? versionConnection.inDatabase({ try Int64.fetchOne($0, sql: "PRAGMA data_version") })
        else { return true }
        return lastDataVersion.withLock { last in
            defer { last = version }
            return last != version
        }
    }
}

import Foundation
import Synchronization

/// Does a tracker's processing: fetch after the position, observe, merge, advance the position, clean.
///
/// Rounds never overlap, whether started by a notification or by the app: hooks and subscribers are awaited, and
/// an actor alone would let a second round start while the first is suspended, delivering the same transactions
/// twice and racing on the position. So each round is a ``QueuedRound``, which first awaits the one before it.
actor TrackerEngine {
    enum Trigger: Sendable, Hashable, CustomStringConvertible {
        case start, notification, manual

        var description: String {
            switch self {
            case .start: "start"
            case .notification: "change notification"
            case .manual: "request"
            }
        }
    }

    nonisolated let store: SpotliteStore
    nonisolated let configuration: HistoryTrackerConfiguration
    nonisolated let registry: TrackerRegistry
    nonisolated let events: EventBroadcaster<HistoryTrackerEvent>
    nonisolated let log: TrackerLog
    /// Rounds finished so far, by trigger: lets tests know a round ended without watching its side effects.
    nonisolated let finishedRounds = Mutex<[Trigger: Int]>([:])

    /// Rounds make blocking SQLite calls (a write may wait for another process's lock): on a thread of their own,
    /// not on Swift's cooperative pool.
    private nonisolated let executor: DedicatedExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The last round queued; the next one starts when it ends.
    private var lastRound: QueuedRound<TrackerPassSummary>?
    private var notificationCount = 0
    /// Measures the clean strategy's interval, on the clock the tracker was given.
    private let stopwatch: Stopwatch
    private var lastClean: Duration?

    init(store: SpotliteStore, configuration: HistoryTrackerConfiguration, registry: TrackerRegistry,
         events: EventBroadcaster<HistoryTrackerEvent>, clock: any Clock<Duration>) {
        self.store = store
        self.configuration = configuration
        self.registry = registry
        self.events = events
        self.log = TrackerLog(logger: configuration.logger, level: configuration.logLevel)
        stopwatch = Stopwatch(clock)
        executor = DedicatedExecutor(label: "spotlite.tracker.\(configuration.currentAuthor)")
    }

    /// The policy cleanup runs with: the configuration's, waiting for every registered consumer too.
    nonisolated func deletionPolicy() -> HistoryDeletionPolicy {
        var policy = configuration.deletionPolicy
        for consumer in registry.snapshot.consumers where !policy.requiredAuthors.contains(consumer) {
            policy.requiredAuthors.append(consumer)
        }
        return policy
    }

    /// One round: delivers everything pending, then cleans if the strategy says so after a notification. Waits for
    /// the rounds queued before it. A round that started runs to its end even if the caller is cancelled; one
    /// still waiting its turn then never starts (it throws `CancellationError`): a stopped tracker's live loop
    /// leaves nothing queued behind it.
    func process(_ trigger: Trigger) async throws -> TrackerPassSummary {
        let round = QueuedRound(after: lastRound) { try await self.runRound(trigger) }
        lastRound = round
        return try await round.value
    }

    /// Returns once every round queued so far has ended.
    func waitForQueuedRounds() async {
        await lastRound?.waitUntilEnded()
    }

    private func runRound(_ trigger: Trigger) async throws -> TrackerPassSummary {
        defer { finishedRounds.withLock { $0[trigger, default: 0] += 1 } }
        if case .notification = trigger { notificationCount += 1 }
        log.detailed("\(configuration.currentAuthor): processing history after a \(trigger)")
        var summary = TrackerPassSummary()
        do {
            try await deliverPending(into: &summary)
        } catch {
            if case SpotliteStoreError.expiredToken = error {
                log.important(
                    "\(configuration.currentAuthor): its position has expired (\(error)); resynchronise, then call resetPosition()",
                    failure: true)
            } else {
                log.important("\(configuration.currentAuthor): delivery failed, the position stays: \(error)", failure: true)
            }
            events.send(.failed(error))
            throw error
        }
        if case .notification = trigger, isDeletionDue() {
            do {
                summary.deletion = try deleteConsumedHistory()
            } catch {
                // Delivery succeeded and is kept; cleanup is retried by the strategy.
                log.important("\(configuration.currentAuthor): cleanup failed: \(error)", failure: true)
                events.send(.failed(error))
            }
        }
        return summary
    }

    private func deliverPending(into summary: inout TrackerPassSummary) async throws {
        let key = configuration.positionKey
        // Every author: the position must never pass over a transaction that no setting of the configuration
        // leaves out (an unlisted author's, such as a migration's), so the choice is made here, one by one.
        let request = HistoryRequest().limit(configuration.fetchBatchSize)
        var position = try store.position(of: key)?.token
        summary.position = position
        while true {
            var batch = request
            batch.start = position.map { .afterToken($0) } ?? .beginning
            let page = try store.fetchPage(batch)
            // Past the page's transactions when it is complete, so a position left behind does not hold history
            // back from cleanup.
            guard let consumed = page.consumedThrough, consumed != position else { return }
            var deliverable: [HistoryTransaction] = []
            var passedOver: [TrackerPassOverReason: Int] = [:]
            for transaction in page.transactions {
                if let reason = configuration.passOverReason(for: transaction) {
                    passedOver[reason, default: 0] += 1
                } else {
                    deliverable.append(transaction)
                }
            }
            if !deliverable.isEmpty {
                try await deliver(deliverable)
            }
            // Only now, after every subscriber succeeded: a failure above leaves the position for a retry.
            try store.setPosition(consumed, for: key)
            position = consumed
            summary.position = consumed
            summary.deliveredTransactions += deliverable.count
            logPassedOver(passedOver, through: consumed)
            log.detailed(
                "\(configuration.currentAuthor): delivered \(deliverable.count) of \(page.transactions.count) fetched transactions; position \(key) is now \(consumed)")
            events.send(.delivered(transactions: deliverable.count, position: consumed))
            if page.isComplete { return }
        }
    }

    /// Own writes are passed over by design (detailed level); transactions a setting leaves out are news (level 1).
    private func logPassedOver(_ counts: [TrackerPassOverReason: Int], through position: HistoryToken) {
        for (reason, count) in counts.sorted(by: { $0.key.description < $1.key.description }) {
            let message = "\(configuration.currentAuthor): passed over \(count) transactions of \(reason), through token \(position)"
            if reason == .ownWrite { log.detailed(message) } else { log.important(message) }
        }
    }

    private func deliver(_ transactions: [HistoryTransaction]) async throws {
        let registered = registry.snapshot
        if !registered.observers.isEmpty {
            for transaction in transactions {
                for group in ObservedChanges.groups(of: transaction) {
                    for observer in registered.observers
                    where observer.entity == group.entity && observer.operation == group.operation {
                        await observer.hook(group)
                    }
                }
            }
        }
        let input = MergeHookInput(
            transactions: transactions, subscribers: registered.subscribers.map(\.subscriber), store: store,
            currentAuthor: configuration.currentAuthor)
        for entry in registered.mergeHooks {
            if try await entry.hook(input) == .finish {
                log.detailed("\(configuration.currentAuthor): a merge hook finished the merge of \(transactions.count) transactions")
                return
            }
        }
        for entry in registered.subscribers {
            try await entry.subscriber.merge(transactions)
        }
    }

    private func isDeletionDue() -> Bool {
        switch configuration.deletionSchedule {
        case .none:
            return false
        case .every(let interval):
            let now = stopwatch.elapsed
            if let lastClean, now - lastClean < interval { return false }
            lastClean = now
            return true
        case .notifications(let times):
            return notificationCount % times == 0
        }
    }

    private func deleteConsumedHistory() throws -> HistoryDeletionResult {
        let result = try HistoryDeleter(store: store, policy: deletionPolicy()).deleteConsumedHistory()
        if result.deletedTransactions > 0 {
            log.important("\(configuration.currentAuthor): cleaned \(result.deletedTransactions) transactions: \(result.reason)")
        } else {
            log.detailed("\(configuration.currentAuthor): cleanup deleted nothing: \(result.reason)")
        }
        events.send(.deletedHistory(result))
        return result
    }
}

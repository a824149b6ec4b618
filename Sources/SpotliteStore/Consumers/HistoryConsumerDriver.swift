import Foundation
import GRDB
import Logging

/// Runs a ``HistoryConsumer``: pages the history after its position (a bounded number of changes at a time, big
/// transactions in pieces), reads the current document of each changed record, calls
/// ``HistoryConsumer/apply(_:)``, saves the position once it returns, and keeps the consumer registered so that
/// cleanup, in any process, waits for what it has not applied.
///
/// ```swift
/// let driver = try HistoryConsumerDriver(store: store, consumer: EmbeddingIndexer(vectors: vectors), start: .snapshot)
/// try await driver.processPending()          // on demand: everything pending now
/// await driver.start()                       // or live: after every commit, from any process
/// let token = try store.writeReturningToken(author: "app") { db in … }.token
/// try await driver.waitUntilProcessed(through: token!)
/// ```
///
/// Rounds never overlap, live or on demand. The driver runs on a thread of its own, so the consumer's synchronous
/// work (and SQLite's) never holds Swift's cooperative threads; ``HistoryConsumer/apply(_:)`` may await anything.
public actor HistoryConsumerDriver<Consumer: HistoryConsumer> {
    /// The store whose history is consumed.
    public nonisolated let store: SpotliteStore
    /// The consumer.
    public nonisolated let consumer: Consumer
    /// Where a consumer without a saved position starts.
    public nonisolated let startingPoint: HistoryConsumerStart
    /// The most changes (or snapshot records) in one batch.
    public nonisolated let maximumChanges: Int
    /// The first delay before live mode retries a failed round; it doubles up to 5 seconds.
    public nonisolated let retryDelay: Duration

    private nonisolated let executor: DedicatedExecutor
    /// The driver runs on a queue of its own, off Swift's cooperative thread pool.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private nonisolated let logger: Logger
    private nonisolated let events = EventBroadcaster<HistoryConsumerEvent>()
    /// The last round queued; the next one starts when it ends (rounds never overlap).
    private var lastRound: QueuedRound<HistoryConsumerRound>?
    /// The clock live mode's retry delays run on.
    private nonisolated let clock: any Clock<Duration>
    /// In memory only: inside a transaction delivered in pieces. Saved positions are whole transactions.
    private var cursor: HistoryCursor?
    private var liveTask: Task<Void, Never>?
    /// Callers of ``waitUntilProcessed(through:)`` waiting for a round, by an id of their own.
    private var waiters: [Int: (token: HistoryToken, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var nextWaiterID = 0
    /// The error of the last round, or nil when it succeeded.
    public private(set) var lastError: (any Error)?

    /// A driver of `consumer` over `store`, registering the consumer (see ``SpotliteStore/registerConsumer(_:position:)``).
    /// With ``HistoryConsumerStart/now`` and no saved position, the position is saved at once at the current token.
    /// Live mode waits out its retry delays on `clock` (a test passes a clock it advances).
    ///
    /// - Throws: ``StoreError/readOnlyStore(operation:)`` for a read-only store; the store's errors.
    public init(store: SpotliteStore, consumer: Consumer, start: HistoryConsumerStart = .snapshot,
                maximumChanges: Int = 500, retryDelay: Duration = .milliseconds(100), logger: Logger? = nil,
                clock: any Clock<Duration> = ContinuousClock()) throws {
        guard !store.options.readOnly else {
            throw StoreError.readOnlyStore(operation: "consume history (the consumer's position is saved in the store)")
        }
        self.store = store
        self.consumer = consumer
        self.startingPoint = start
        self.maximumChanges = max(1, maximumChanges)
        self.retryDelay = retryDelay
        self.clock = clock
        self.logger = logger ?? Logger(label: "spotlite.consumer.\(consumer.consumerName)")
        executor = DedicatedExecutor(label: "spotlite.consumer.\(consumer.consumerName)")
        let initial = start == .now ? try store.currentToken() ?? HistoryToken(0) : nil
        try store.registerConsumer(consumer.consumerName, position: initial.flatMap { $0.rawValue > 0 ? $0 : nil })
    }

    /// The consumer's saved position.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public nonisolated func position() throws -> HistoryToken? {
        try store.position(of: consumer.consumerName)?.token
    }

    /// Every finished or failed round from now on. The stream ends when the driver is released.
    public nonisolated func roundEvents() -> AsyncStream<HistoryConsumerEvent> {
        events.subscribe()
    }

    deinit {
        liveTask?.cancel()
        events.finish()
    }

    // MARK: - Live mode

    /// Whether the driver follows the store's change notifications (between ``start()`` and ``stop()``).
    public var isRunning: Bool { liveTask != nil }

    /// Starts live mode: processes what is pending now, then after every commit, by any handle or process.
    /// A failed round is retried after ``retryDelay``, doubling up to 5 seconds, until it succeeds (``lastError``
    /// tells what failed). Calling it again while running does nothing.
    public func start() {
        guard liveTask == nil else { return }
        // Subscribed before the first round, so a commit made meanwhile is not missed.
        let notifications = store.changeNotifications()
        liveTask = Task { [weak self] in
            await self?.processUntilSuccess()
            for await _ in notifications {
                guard let self, !Task.isCancelled else { break }
                await self.processUntilSuccess()
            }
        }
    }

    /// Stops live mode after the round in progress (if any) has finished. The position stays, and so does the
    /// registration: cleanup keeps what the consumer has not applied (up to the maximum duration).
    public func stop() async {
        guard let task = liveTask else { return }
        liveTask = nil
        task.cancel()
        await task.value
    }

    /// Stops, then forgets the consumer in the store: its position and registration, so cleanup stops waiting for
    /// it. The next round starts over from ``startingPoint``.
    ///
    /// - Throws: ``StoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
    ///   `DatabaseError`).
    public func unregister() async throws {
        await stop()
        try store.unregisterConsumer(consumer.consumerName)
        cursor = nil
    }

    private func processUntilSuccess() async {
        var delay = retryDelay
        while liveTask != nil, !Task.isCancelled {
            do {
                _ = try await processPending()
                return
            } catch {
                // processPending logged it and sent the event.
            }
            try? await clock.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    // MARK: - Rounds

    /// Applies everything pending now and returns what the round did; waits for the rounds queued before it first.
    /// A round that started runs to its end even if the caller is cancelled; one still waiting its turn then never
    /// starts.
    ///
    /// - Throws: what ``HistoryConsumer/apply(_:)`` or the store threw; the position stays after the last applied
    ///   batch. ``HistoryError/expiredToken(requested:purgedThrough:)`` cannot escape: the driver reads a snapshot.
    ///   `CancellationError` when the caller was cancelled before the round started.
    @discardableResult
    public func processPending() async throws -> HistoryConsumerRound {
        let round = QueuedRound(after: lastRound) { try await self.runRound() }
        lastRound = round
        return try await round.value
    }

    private func runRound() async throws -> HistoryConsumerRound {
        var round = HistoryConsumerRound()
        do {
            try await deliverPending(into: &round)
        } catch {
            lastError = error
            logger.error("\(consumer.consumerName): applying history failed, the position stays at \(round.position.map { "\($0)" } ?? "none"): \(error)")
            events.send(.failed(error))
            throw error
        }
        lastError = nil
        events.send(.processed(round))
        return round
    }

    /// Waits until the consumer's position reaches `token` (a token from
    /// ``SpotliteStore/writeReturningToken(author:context:_:)``, say): the write is applied. Someone must process
    /// meanwhile: live mode, or ``processPending()`` from another task.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first; SQLite's errors.
    public func waitUntilProcessed(through token: HistoryToken) async throws {
        if let position = try position(), position >= token { return }
        let id = nextWaiterID
        nextWaiterID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Entering the continuation can itself be a suspension point: a caller that prefers a task
                // executor of its own (`withTaskExecutorPreference`) comes back onto the driver's queue through
                // that queue, and a round may save the position meanwhile and find no one to wake. So look again
                // here, where no round can run, before waiting.
                do {
                    try Task.checkCancellation()
                    if let position = try position(), position >= token { return continuation.resume() }
                } catch {
                    return continuation.resume(throwing: error)
                }
                waiters[id] = (token, continuation)
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(throwing: CancellationError())
    }

    private func deliverPending(into round: inout HistoryConsumerRound) async throws {
        let name = consumer.consumerName
        let saved = try store.position(of: name)?.token
        round.position = saved
        if cursor?.token != saved { cursor = HistoryCursor(token: saved) }
        if saved == nil, startingPoint == .snapshot {
            try await deliverSnapshot(into: &round)
        }
        while true {
            let page: HistoryChangePage
            do {
                page = try store.fetchHistory(after: cursor ?? HistoryCursor(token: nil), matching: consumer.filter,
                                              maximumChanges: maximumChanges)
            } catch let error as HistoryError {
                guard case .expiredToken = error else { throw error }
                // The consumer missed deleted history: only the rows can tell what it holds wrong now.
                logger.warning("\(name): \(error); reading a snapshot of the rows instead")
                try await deliverSnapshot(into: &round)
                continue
            }
            if page.passedOver > 0 {
                logger.info("\(name): passed over \(page.passedOver) transactions that its filter leaves out")
            }
            round.passedOver += page.passedOver
            if !page.transactions.isEmpty {
                let batch = try batch(of: page)
                try await consumer.apply(batch)
                round.batches += 1
                round.transactions += page.transactions.count
                round.upserts += batch.upserts.count
                round.deletions += batch.deletions.count
            }
            if let position = page.position, position != cursor?.token {
                try store.saveConsumerPosition(position, for: name)
                round.position = position
                resumeWaiters(through: position)
            }
            let moved = page.next != cursor
            cursor = page.next
            if page.isComplete || !moved { return }
        }
    }

    private func batch(of page: HistoryChangePage) throws -> HistoryBatch<Consumer.Document> {
        var order: [RecordID] = []
        var deleted: [RecordID: Bool] = [:]
        for transaction in page.transactions {
            for change in transaction.changes {
                let record = RecordID(entity: change.entity, key: change.key)
                if deleted[record] == nil { order.append(record) }
                deleted[record] = change.changeType == .delete
            }
        }
        let consumer = self.consumer
        let (upserts, deletions) = try store.read { db in
            var upserts: [HistoryBatch<Consumer.Document>.Upsert] = []
            var deletions: [RecordID] = []
            for record in order {
                if deleted[record] == false, let document = try consumer.document(for: record, in: db) {
                    upserts.append(.init(record: record, document: document))
                } else {
                    deletions.append(record)
                }
            }
            return (upserts, deletions)
        }
        return HistoryBatch(kind: .history, isFirstOfSnapshot: false, transactions: page.transactions,
                            upserts: upserts, deletions: deletions, position: page.position)
    }

    /// Delivers every current record of the filter's entities, then saves the position at the snapshot's token.
    /// The rows are read a page at a time, each page in a snapshot of its own: a row changed meanwhile comes again
    /// with the history after the token, read next.
    private func deliverSnapshot(into round: inout HistoryConsumerRound) async throws {
        let name = consumer.consumerName
        let token = try store.currentToken()
        let entities = store.model.entities.filter { consumer.filter.entities?.contains($0.name) ?? true }
        var first = true
        round.snapshot = true
        for entity in entities {
            var after: DatabaseValue?
            repeat {
                let (upserts, last) = try snapshotPage(of: entity, after: after)
                if !upserts.isEmpty {
                    try await consumer.apply(HistoryBatch(
                        kind: .snapshot, isFirstOfSnapshot: first, transactions: [], upserts: upserts, deletions: [],
                        position: nil))
                    first = false
                    round.batches += 1
                    round.upserts += upserts.count
                }
                after = last
            } while after != nil
        }
        if first {
            // No entity, or no record: the consumer must still learn that it holds nothing.
            try await consumer.apply(HistoryBatch(
                kind: .snapshot, isFirstOfSnapshot: true, transactions: [], upserts: [], deletions: [], position: nil))
            round.batches += 1
        }
        if let token {
            try store.saveConsumerPosition(token, for: name)
            round.position = token
            resumeWaiters(through: token)
        }
        cursor = HistoryCursor(token: token)
        logger.info("\(name): delivered a snapshot of \(round.upserts) records at token \(token.map { "\($0)" } ?? "0")")
    }

    /// One page of an entity's records in key order after `after`, and the last key read (nil at the end).
    private func snapshotPage(of entity: EntityDescription, after: DatabaseValue?)
        throws -> ([HistoryBatch<Consumer.Document>.Upsert], DatabaseValue?)
    {
        let consumer = self.consumer
        let pageSize = maximumChanges
        return try store.read { db in
            let keyColumn = entity.key.quotedDatabaseIdentifier
            var sql = "SELECT \(keyColumn) FROM \(entity.name.quotedDatabaseIdentifier)"
            var arguments: StatementArguments = []
            if let after {
                sql += " WHERE \(keyColumn) > ?"
                arguments = [after]
            }
            sql += " ORDER BY \(keyColumn) LIMIT \(pageSize)"
            let keys = try DatabaseValue.fetchAll(db, sql: sql, arguments: arguments)
            var upserts: [HistoryBatch<Consumer.Document>.Upsert] = []
            for key in keys {
                let record = RecordID(entity: entity.name, key: key)
                if let document = try consumer.document(for: record, in: db) {
                    upserts.append(.init(record: record, document: document))
                }
            }
            return (upserts, keys.count < pageSize ? nil : keys.last)
        }
    }

    private func resumeWaiters(through position: HistoryToken) {
        for (id, waiter) in waiters where waiter.token <= position {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }
}

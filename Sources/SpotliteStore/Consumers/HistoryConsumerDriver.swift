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
    /// How long live mode lets a burst of commits gather after a change notification before its round, so that
    /// they are applied in one round (notifications arriving meanwhile merge into one). Zero: at once.
    public nonisolated let coalescingDelay: Duration

    private nonisolated let executor: DedicatedExecutor
    /// The driver runs on a queue of its own, off Swift's cooperative thread pool.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private nonisolated let logger: Logger
    private nonisolated let events = EventBroadcaster<HistoryConsumerEvent>()
    /// The last round queued; the next one starts when it ends (rounds never overlap).
    private var lastRound: QueuedRound<HistoryConsumerRound>?
    /// The clock live mode's coalescing and retry delays run on.
    private nonisolated let clock: any Clock<Duration>
    /// In memory only: inside a transaction delivered in pieces. Saved positions are whole transactions.
    private var cursor: HistoryCursor?
    private var liveTask: Task<Void, Never>?
    /// Callers of ``waitUntilProcessed(through:)`` waiting for a round, by an id of their own.
    private var waiters: [Int: (token: HistoryToken, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var nextWaiterID = 0
    /// How many rounds have started: the next one's ``HistoryConsumerRound/number`` follows.
    private var roundsStarted = 0
    /// The error of the last round, or nil when it succeeded.
    public private(set) var lastError: (any Error)?

    /// A driver of `consumer` over `store`, registering the consumer (see ``SpotliteStore/registerConsumer(_:position:)``).
    /// With ``HistoryConsumerStart/now`` and no saved position, the position is saved at once at the current token.
    /// Live mode waits out its coalescing and retry delays on `clock` (a test passes a clock it advances).
    ///
    /// - Parameters:
    ///   - store: the store whose history is consumed; the consumer's position is saved there.
    ///   - consumer: what applies the changes.
    ///   - start: where a consumer without a saved position starts.
    ///   - maximumChanges: the most changes (or snapshot records) in one batch.
    ///   - retryDelay: the first delay before live mode retries a failed round; it doubles up to 5 seconds.
    ///   - coalescingDelay: how long live mode lets further commits arrive after a change notification before
    ///     its round (zero: at once).
    ///   - logger: where rounds, resynchronisations and failures are logged.
    ///   - clock: the clock live mode's delays run on.
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` for a read-only store; the store's errors.
    public init(store: SpotliteStore, consumer: Consumer, start: HistoryConsumerStart = .snapshot,
                maximumChanges: Int = 500, retryDelay: Duration = .milliseconds(100),
                coalescingDelay: Duration = .zero, logger: Logger? = nil,
                clock: any Clock<Duration> = ContinuousClock()) throws {
        guard !store.options.readOnly else {
            throw SpotliteStoreError.readOnlyStore(operation: .consumeHistory)
        }
        self.store = store
        self.consumer = consumer
        self.startingPoint = start
        self.maximumChanges = max(1, maximumChanges)
        self.retryDelay = retryDelay
        self.coalescingDelay = coalescingDelay
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

    /// Starts live mode: processes what is pending now, then after every commit, by any handle or process,
    /// once ``coalescingDelay`` has passed. A failed round is retried after ``retryDelay``, doubling up to 5
    /// seconds, until it succeeds (``lastError`` tells what failed); a round the consumer stopped by throwing
    /// `CancellationError` is not retried (the next commit starts the next round). Calling it again while running
    /// does nothing.
    ///
    /// Live mode holds the driver only while a round runs: a driver released without ``stop()`` finishes the
    /// round in progress (position included), then its loop ends.
    public func start() {
        guard liveTask == nil else { return }
        // Subscribed before the first round, so a commit made meanwhile is not missed.
        let notifications = store.changeNotifications()
        let delay = coalescingDelay
        let clock = self.clock
        liveTask = Task { [weak self] in
            await self?.processUntilSuccess()
            for await _ in notifications {
                // Commits notified meanwhile merge into the one notification buffered: one round for the burst.
                if delay > .zero { try? await clock.sleep(for: delay) }
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
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
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
            } catch is CancellationError {
                // The consumer stopped the round (its owner is stopping or gone): retrying would only stop again.
                // The next change notification starts the next round.
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
    /// starts. The consumer is resynchronised from the rows first when it holds nothing yet (a
    /// ``HistoryConsumerStart/snapshot`` start), when it asks (``HistoryConsumer/resynchronizationReason(resumingAfter:)``),
    /// or when the history it needs was deleted.
    ///
    /// - Throws: what ``HistoryConsumer/apply(_:)`` or the store threw; the position stays after the last applied
    ///   batch. ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` only when history was deleted again right
    ///   after each of two resynchronisations in the round (cleanup outpaces the consumer).
    ///   `CancellationError` when the caller was cancelled before the round started.
    @discardableResult
    public func processPending() async throws -> HistoryConsumerRound {
        try await queueRound(resynchronizing: nil)
    }

    /// Resynchronises the consumer from the store's rows (``HistoryConsumer/resynchronize(because:from:)``: by
    /// default every current record through ``HistoryConsumer/apply(_:)``), then applies the history committed
    /// since: the "reindex everything" an app offers. The round's ``HistoryConsumerRound/resynchronization`` is
    /// ``HistoryResynchronizationReason/requested(_:)`` with `reason`. Queued like ``processPending()``.
    ///
    /// - Throws: the errors of ``processPending()``.
    @discardableResult
    public func resynchronize(reason: String) async throws -> HistoryConsumerRound {
        try await queueRound(resynchronizing: .requested(reason))
    }

    private func queueRound(resynchronizing reason: HistoryResynchronizationReason?) async throws
        -> HistoryConsumerRound
    {
        let round = QueuedRound(after: lastRound) { try await self.runRound(resynchronizing: reason) }
        lastRound = round
        return try await round.value
    }

    private func runRound(resynchronizing reason: HistoryResynchronizationReason?) async throws -> HistoryConsumerRound {
        roundsStarted += 1
        var round = HistoryConsumerRound()
        round.number = roundsStarted
        do {
            try await consumer.roundWillBegin(number: round.number, resynchronizing: reason)
            try await deliverPending(into: &round, resynchronizing: reason)
        } catch {
            lastError = error
            if error is CancellationError {
                logger.info("\(consumer.consumerName): the round was stopped; the position stays at \(round.position.map { "\($0)" } ?? "none")")
            } else {
                logger.error("\(consumer.consumerName): applying history failed, the position stays at \(round.position.map { "\($0)" } ?? "none"): \(error)")
            }
            await consumer.roundDidEnd(number: round.number, result: .failure(error))
            events.send(.failed(error))
            throw error
        }
        lastError = nil
        await consumer.roundDidEnd(number: round.number, result: .success(round))
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

    /// How many resynchronisations one round attempts: history deleted again right after one means cleanup
    /// outpaces the consumer, which a third attempt would not change.
    private static var maximumResynchronizations: Int { 2 }

    private func deliverPending(into round: inout HistoryConsumerRound,
                                resynchronizing forced: HistoryResynchronizationReason?) async throws {
        let name = consumer.consumerName
        let saved = try store.position(of: name)?.token
        round.position = saved
        var reason = forced
        let ownsResumePoint: Bool
        switch try await consumer.resumePoint() {
        case .savedPosition:
            ownsResumePoint = false
            // Inside a transaction delivered in pieces, the cursor in memory is further than the saved position.
            if cursor?.token != saved { cursor = HistoryCursor(token: saved) }
            if saved == nil, startingPoint == .snapshot { reason = reason ?? .firstStart }
        case .after(let checkpoint):
            ownsResumePoint = true
            cursor = checkpoint
            // Behind the consumer (it committed, then the process died before the save) or ahead of it (its data was
            // restored from an older copy): either way cleanup must keep what follows the consumer's checkpoint.
            if let token = checkpoint.token, token != saved { try savePosition(token, into: &round) }
        case .start:
            ownsResumePoint = true
            cursor = HistoryCursor(token: startingPoint == .now ? saved : nil)
            if startingPoint == .snapshot { reason = reason ?? .firstStart }
        }
        if reason == nil,
           let asked = try await consumer.resynchronizationReason(resumingAfter: cursor ?? HistoryCursor(token: nil)) {
            reason = .requested(asked)
        }
        var resynchronizations = 0
        while true {
            if let why = reason {
                resynchronizations += 1
                try await resynchronize(because: why, into: &round)
                reason = nil
            }
            let page: HistoryChangePage
            do {
                page = try store.fetchHistory(after: cursor ?? HistoryCursor(token: nil), matching: consumer.filter,
                                              maximumChanges: maximumChanges)
            } catch SpotliteStoreError.expiredToken(let requested, let purgedThrough) {
                guard resynchronizations < Self.maximumResynchronizations else {
                    throw SpotliteStoreError.expiredToken(requested: requested, purgedThrough: purgedThrough)
                }
                // The consumer missed deleted history: only the rows can tell what it holds wrong now.
                let why = HistoryResynchronizationReason.historyDeleted(requested: requested, purgedThrough: purgedThrough)
                logger.warning("\(name): \(why); resynchronising from the rows")
                reason = why
                continue
            }
            if page.passedOver > 0 {
                logger.info("\(name): passed over \(page.passedOver) transactions that its filter leaves out")
            }
            round.passedOver += page.passedOver
            let moved = page.next != cursor
            // A consumer keeping its own checkpoint hears of history its filter left out too, or it would lag forever.
            if !page.transactions.isEmpty || (ownsResumePoint && moved) {
                let batch = try batch(of: page)
                try await consumer.apply(batch)
                round.batches += 1
                round.transactions += page.transactions.count
                round.upserts += batch.upserts.count
                round.deletions += batch.deletions.count
            }
            if ownsResumePoint {
                try await followResumePoint(into: &round)
            } else if let position = page.position, position != cursor?.token {
                try savePosition(position, into: &round)
            }
            cursor = page.next
            if page.isComplete || !moved {
                try await consumer.flush()
                if ownsResumePoint { try await followResumePoint(into: &round) }
                return
            }
        }
    }

    /// Saves the token of the consumer's own checkpoint as its position, when it moved: the position follows what
    /// the consumer has committed, never what it was merely handed.
    private func followResumePoint(into round: inout HistoryConsumerRound) async throws {
        guard case .after(let checkpoint) = try await consumer.resumePoint(), let token = checkpoint.token,
              token != round.position else { return }
        try savePosition(token, into: &round)
    }

    private func savePosition(_ token: HistoryToken, into round: inout HistoryConsumerRound) throws {
        try store.saveConsumerPosition(token, for: consumer.consumerName)
        round.position = token
        resumeWaiters(through: token)
    }

    /// The changed records of `page` that the consumer includes, each once in change order (removed when its last
    /// change is a delete), then their related records, with their current documents read in one snapshot.
    private func batch(of page: HistoryChangePage) throws -> HistoryBatch<Consumer.Document> {
        var changed: [RecordID] = []
        var isDeleted: [RecordID: Bool] = [:]
        for transaction in page.transactions {
            for change in transaction.changes where consumer.includes(change) {
                let record = RecordID(entity: change.entity, key: change.key)
                if isDeleted[record] == nil { changed.append(record) }
                isDeleted[record] = change.changeType == .delete
            }
        }
        let consumer = self.consumer
        let (upserts, deletions) = try store.read { db in
            var seen = Set(changed)
            let related = try consumer.relatedRecords(of: changed, in: db).filter { seen.insert($0).inserted }
            let records = changed + related
            let wanted = records.filter { isDeleted[$0] != true }
            let documents = try consumer.documents(for: wanted, in: db)
            precondition(documents.count == wanted.count,
                         "\(Consumer.self).documents(for:in:) returned \(documents.count) documents for \(wanted.count) records")
            var found: [RecordID: Consumer.Document] = [:]
            for (record, document) in zip(wanted, documents) {
                if let document { found[record] = document }
            }
            var upserts: [HistoryBatch<Consumer.Document>.Upsert] = []
            var deletions: [RecordID] = []
            for record in records {
                if let document = found[record] {
                    upserts.append(.init(record: record, document: document))
                } else {
                    deletions.append(record)
                }
            }
            return (upserts, deletions)
        }
        return HistoryBatch(kind: .history, isFirstOfSnapshot: false, transactions: page.transactions,
                            upserts: upserts, deletions: deletions, position: page.position, cursor: page.next)
    }

    /// Resynchronises the consumer (its own way, or through a snapshot of the rows), then saves the position at
    /// the token the result reflects; the history after it comes next.
    private func resynchronize(because reason: HistoryResynchronizationReason,
                               into round: inout HistoryConsumerRound) async throws {
        logger.info("\(consumer.consumerName): resynchronising from the rows: \(reason)")
        try await consumer.flush()
        round.snapshot = true
        round.resynchronization = reason
        let token: HistoryToken?
        switch try await consumer.resynchronize(because: reason, from: store) {
        case .deliverSnapshot:
            token = try await deliverSnapshot(into: &round)
        case .completed(let through):
            token = through
        }
        if let token { try savePosition(token, into: &round) }
        cursor = HistoryCursor(token: token)
    }

    /// Delivers every current record of the filter's entities and returns the token read before the rows. The
    /// rows are read a page at a time, each page in a snapshot of its own: a row changed meanwhile comes again
    /// with the history after the token. A page is applied once the next one is read, so that the last batch,
    /// known as such, carries the token as its position and cursor.
    private func deliverSnapshot(into round: inout HistoryConsumerRound) async throws -> HistoryToken? {
        let token = try store.currentToken()
        let entities = store.model.entities.filter { consumer.filter.entities?.contains($0.name) ?? true }
        var isFirst = true
        var delivered = 0
        var held: [HistoryBatch<Consumer.Document>.Upsert]?
        for entity in entities {
            var after: DatabaseValue?
            repeat {
                let (upserts, last) = try snapshotPage(of: entity, after: after)
                if !upserts.isEmpty {
                    if let previous = held {
                        try await consumer.apply(HistoryBatch(
                            kind: .snapshot, isFirstOfSnapshot: isFirst, transactions: [], upserts: previous,
                            deletions: [], position: nil, cursor: nil))
                        isFirst = false
                        round.batches += 1
                        delivered += previous.count
                    }
                    held = upserts
                }
                after = last
            } while after != nil
        }
        // Also with no record at all: the consumer must still learn that it holds nothing.
        let last = held ?? []
        try await consumer.apply(HistoryBatch(
            kind: .snapshot, isFirstOfSnapshot: isFirst, transactions: [], upserts: last, deletions: [],
            position: token, cursor: HistoryCursor(token: token)))
        round.batches += 1
        delivered += last.count
        round.upserts += delivered
        logger.info("\(consumer.consumerName): delivered a snapshot of \(delivered) records at token \(token.map { "\($0)" } ?? "0")")
        return token
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
            let records = keys.map { RecordID(entity: entity.name, key: $0) }
            let documents = try consumer.documents(for: records, in: db)
            precondition(documents.count == records.count,
                         "\(Consumer.self).documents(for:in:) returned \(documents.count) documents for \(records.count) records")
            let upserts = zip(records, documents).compactMap { record, document in
                document.map { HistoryBatch<Consumer.Document>.Upsert(record: record, document: $0) }
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

import Foundation
import Synchronization

/// PersistentHistoryTrackingKit for Spotlite: delivers other authors' history to this process's subscribers on
/// every change notification, with observer and merge hooks, a position per author kept in the store, and cleanup
/// shared safely between processes.
///
/// Each round, on a change notification (from any handle or process, no polling): fetch the transactions after the
/// current author's position from the other authors; run the observer hooks per transaction × entity × operation;
/// run the merge hooks; merge into every subscriber in order; then save the position at the last transaction.
/// A throwing hook or subscriber leaves the position, so the same transactions come again (at least once, never
/// skipped). Then clean if ``HistoryTrackerConfiguration/deletionSchedule`` says so.
///
/// ```swift
/// let tracker = try HistoryTracker(
///     store: store,
///     configuration: HistoryTrackerConfiguration(currentAuthor: "app", allAuthors: ["app", "widget"]),
///     subscribers: [AnyHistorySubscriber { transactions in await cache.apply(transactions) }])
/// tracker.registerObserver(entity: "Package", operation: .delete) { changes in print(changes.tombstones) }
/// ```
public final class HistoryTracker: HistoryPositionHolder, Sendable {
    /// The store whose history is tracked.
    public let store: SpotliteStore
    /// The configuration, validated.
    public let configuration: HistoryTrackerConfiguration

    private let engine: TrackerEngine
    private let registry: TrackerRegistry
    private let broadcaster: EventBroadcaster<HistoryTrackerEvent>
    private let loop = Mutex<Task<Void, Never>?>(nil)

    /// Creates a tracker, started at once when ``HistoryTrackerConfiguration/autoStart`` is set. `clock` measures
    /// the interval of ``HistoryDeletionSchedule/every(_:)`` (a test passes a clock it advances).
    ///
    /// - Throws: ``SpotliteStoreError`` when the configuration cannot work; ``SpotliteStoreError/readOnlyStore(operation:)`` for a
    ///   read-only store, where no position can be saved.
    public init(store: SpotliteStore, configuration: HistoryTrackerConfiguration,
                subscribers: [any HistorySubscriber] = [], clock: any Clock<Duration> = ContinuousClock()) throws {
        try configuration.validate()
        guard !store.options.readOnly else {
            throw SpotliteStoreError.readOnlyStore(operation: .trackHistory)
        }
        self.store = store
        self.configuration = configuration
        registry = TrackerRegistry(subscribers: subscribers)
        broadcaster = EventBroadcaster<HistoryTrackerEvent>()
        engine = TrackerEngine(store: store, configuration: configuration, registry: registry, events: broadcaster,
                               clock: clock)
        if configuration.autoStart { start() }
    }

    /// Released without ``stop()``: no round starts any more; one already delivering ends on its own, position
    /// included (it holds the engine, not the tracker).
    deinit {
        endLoop()?.cancel()
        broadcaster.finish()
    }

    /// The tracker's position name in the store (``HistoryTrackerConfiguration/positionKey``).
    public var consumerName: String { configuration.positionKey }

    /// How many rounds ended, by what started them (for tests).
    func finishedRounds(_ trigger: TrackerEngine.Trigger) -> Int {
        engine.finishedRounds.withLock { $0[trigger] ?? 0 }
    }

    /// Returns once every round queued so far has ended.
    func waitForQueuedRounds() async {
        await engine.waitForQueuedRounds()
    }

    /// Whether the tracker reacts to change notifications.
    public var isRunning: Bool { loop.withLock { $0 != nil } }

    /// Starts reacting to change notifications, first delivering what arrived while it was stopped. Does
    /// nothing when already running.
    public func start() {
        loop.withLock { task in
            guard task == nil else { return }
            // Subscribed before returning, so a write made right after start() is seen.
            let notifications = store.changeNotifications()
            let engine = self.engine
            let log = engine.log
            let author = configuration.currentAuthor
            log.detailed("\(author): tracking started")
            task = Task {
                _ = try? await engine.process(.start)
                for await _ in notifications {
                    if Task.isCancelled { break }
                    _ = try? await engine.process(.notification)
                }
                log.detailed("\(author): tracking stopped")
            }
        }
    }

    /// Stops reacting to change notifications, and returns once the last round has ended: a round already
    /// delivering completes and saves its position first (so the position read after this is final until the
    /// next ``start()``, ``processPendingHistory()`` or another process's tracker moves it). ``start()`` resumes
    /// from it. Returns at once when already stopped and no round runs.
    public func stop() async {
        let task = endLoop()
        task?.cancel()
        await task?.value
        // A round asked for with processPendingHistory() may run too: its position is saved when it ends.
        await engine.waitForQueuedRounds()
    }

    /// Stops reacting to change notifications without waiting for a round in progress (it completes, position
    /// included, after this returns).
    @available(*, deprecated, message: "use `await stop()`, which returns once the last round has saved its position")
    public func stop() {
        endLoop()?.cancel()
    }

    /// Takes the live loop away (so no new round starts from a notification) and returns it, still running.
    private func endLoop() -> Task<Void, Never>? {
        loop.withLock { task in
            defer { task = nil }
            return task
        }
    }

    /// Delivers what is pending now, whether or not the tracker is running, and returns what the round did.
    /// Rounds never overlap: this waits for a round in progress. Does not clean (see ``deleter()``).
    ///
    /// - Throws: what the fetch, a merge hook or a subscriber threw; the position then stays.
    @discardableResult
    public func processPendingHistory() async throws -> TrackerPassSummary {
        try await engine.process(.manual)
    }

    /// The tracker's events: deliveries, cleanups and failures, from now on. The sequence ends with the tracker.
    public func events() -> AsyncStream<HistoryTrackerEvent> {
        broadcaster.subscribe()
    }

    // MARK: - Observers

    /// Calls `hook` with the changes of `entity` and `operation`, one call per transaction, before merging.
    /// Hooks run in registration order. Returns the id that removes it.
    @discardableResult
    public func registerObserver(entity: String, operation: HistoryChangeType,
                                 _ hook: @escaping ObserverHook) -> UUID {
        if store.model.entity(named: entity) == nil {
            engine.log.important("\(configuration.currentAuthor): an observer watches \(entity), which this store's model does not track")
        }
        return registry.addObserver(entity: entity, operation: operation, hook: hook)
    }

    /// Removes the observer with this id; false when there is none (it was already removed).
    @discardableResult
    public func removeObserver(id: UUID) -> Bool {
        registry.removeObserver(id: id)
    }

    /// Removes every observer of `entity` and `operation`, and returns how many there were.
    @discardableResult
    public func removeObservers(entity: String, operation: HistoryChangeType) -> Int {
        registry.removeObservers(entity: entity, operation: operation)
    }

    /// Removes every observer.
    public func removeAllObservers() {
        registry.removeAllObservers()
    }

    // MARK: - Merge hooks

    /// Appends `hook` to the merge pipeline. Returns the id that removes it or inserts others before it.
    @discardableResult
    public func registerMergeHook(_ hook: @escaping MergeHook) -> UUID {
        registry.appendMergeHook(hook)
    }

    /// Inserts `hook` into the merge pipeline just before the hook `successor`.
    ///
    /// - Throws: ``SpotliteStoreError/unknownMergeHook(_:)`` when `successor` is not registered.
    @discardableResult
    public func registerMergeHook(before successor: UUID, _ hook: @escaping MergeHook) throws(SpotliteStoreError) -> UUID {
        try registry.insertMergeHook(hook, before: successor)
    }

    /// Removes the merge hook with this id; false when there is none.
    @discardableResult
    public func removeMergeHook(id: UUID) -> Bool {
        registry.removeMergeHook(id: id)
    }

    /// Removes every merge hook: delivery goes straight to the subscribers.
    public func removeAllMergeHooks() {
        registry.removeAllMergeHooks()
    }

    // MARK: - Subscribers and consumers

    /// Appends a subscriber to merge into after those already registered. Returns the id that removes it.
    @discardableResult
    public func addSubscriber(_ subscriber: any HistorySubscriber) -> UUID {
        registry.addSubscriber(subscriber)
    }

    /// Removes the subscriber with this id; false when there is none.
    @discardableResult
    public func removeSubscriber(id: UUID) -> Bool {
        registry.removeSubscriber(id: id)
    }

    /// Makes cleanup wait for `consumer`'s position too.
    public func register(consumer: any HistoryPositionHolder) {
        registry.addConsumer(consumer.consumerName)
    }

    // MARK: - Positions and cleanup

    /// The current author's saved position; nil before its first delivery.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func position() throws -> HistoryPosition? {
        try store.position(of: configuration.positionKey)
    }

    /// The position every required author, consumer and registered consumer has reached: what cleanup may
    /// delete. Nil while one of them has none.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func commonPosition() throws -> HistoryToken? {
        try store.commonPosition(of: deletionPolicy.requiredAuthors + store.registeredConsumers())
    }

    /// Sets the current author's position, after it resynchronised from the rows (for instance on an expired
    /// position); nil takes the store's current token. Delivery continues after it.
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
    ///   `DatabaseError`).
    public func resetPosition(to token: HistoryToken? = nil) throws {
        guard let token = try token ?? store.currentToken() else {
            try store.removePosition(for: configuration.positionKey)
            return
        }
        try store.setPosition(token, for: configuration.positionKey)
        engine.log.important("\(configuration.currentAuthor): position reset to \(token)")
    }

    /// Whose positions history deletion waits for and whose transactions it deletes: the configuration's policy,
    /// with every registered consumer.
    public var deletionPolicy: HistoryDeletionPolicy { engine.deletionPolicy() }

    /// A deleter for deleting consumed history at a moment the app chooses (going to the background, say), exactly
    /// as conservative as the scheduled one: the same policy, the same atomic transaction.
    public func deleter() -> HistoryDeleter {
        HistoryDeleter(store: store, policy: deletionPolicy)
    }
}

import Foundation
import SpotliteStore

extension SpotliteIndexer {
    /// Whether the indexer follows the store's change notifications (between ``start()`` and ``stop()``).
    public var isIndexingEnabled: Bool { liveMode.isRunning }

    /// Starts live indexing: catches up now, then applies the commits of any process shortly after they happen.
    ///
    /// Live mode is the history driver's own (`HistoryConsumerDriver.start()`): after a change notification it
    /// waits ``coalescingDelay`` so that a burst of writes is applied in one round (notifications arriving
    /// meanwhile merge into one). A failed round is retried with a growing delay (up to 5 s) until it succeeds;
    /// ``lastError`` tells what failed. Holds the index's writer lock until ``stop()``. Calling it again while
    /// running does nothing.
    ///
    /// - Throws: ``SearchError/indexLocked(path:holderPID:)`` when another indexer holds the index; the store's
    ///   errors when the indexer cannot be registered as a consumer of its history.
    public func start() async throws {
        guard !liveMode.isRunning else { return }
        let lock = try writerLock()
        let driver = try makeHistoryDriver()
        // Started before it is recorded: a stop() in between finds nothing to stop, and live mode runs as if started
        // after that stop (recorded first, a stop in between would stop nothing and leave a loop running unheld).
        await driver.start()
        // False when another start() recorded it meanwhile: the driver's loop is the same one, started once.
        _ = liveMode.began(driver: driver, holding: lock)
    }

    /// Stops live indexing after the update in progress (if any) has committed, and releases the writer lock.
    /// The indexer's position stays in the store, so the history it will need is kept for it (up to the
    /// configured maximum duration), and the next ``start()`` or ``update()`` resumes from the index's token.
    ///
    /// It needs nothing of the indexer's actor: live mode keeps its own state.
    public nonisolated func stop() async {
        // A round in progress holds the driver: ask it to return at its next batch boundary first.
        stopRequest.set(true)
        defer { stopRequest.set(false) }
        guard let live = liveMode.end() else { return }
        await live.driver?.stop()
        // The lock goes last, once the driver's loop has ended (withExtendedLifetime keeps it until here).
        withExtendedLifetime(live.lock) {}
    }
}

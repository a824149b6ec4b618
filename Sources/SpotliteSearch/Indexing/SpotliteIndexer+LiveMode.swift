import Foundation
import SpotliteStore

extension SpotliteIndexer {
    /// Whether the indexer follows the store's change notifications (between ``start()`` and ``stop()``).
    public var isIndexingEnabled: Bool { isLive }

    /// Whether live mode runs (the updater keeps it: a live round's failure goes to ``lastError``).
    var isLive: Bool { updater.isLive }

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
        guard !updater.isLive else { return }
        try retainLock()
        let driver: HistoryConsumerDriver<IndexHistoryConsumer>
        do {
            driver = try makeHistoryDriver()
        } catch {
            releaseLock()
            throw error
        }
        updater.isLive = true
        await driver.start()
    }

    /// Stops live indexing after the update in progress (if any) has committed, and releases the writer lock.
    /// The indexer's position stays in the store, so the history it will need is kept for it (up to the
    /// configured maximum duration), and the next ``start()`` or ``update()`` resumes from the index's token.
    public nonisolated func stop() async {
        // A round in progress holds the driver: ask it to return at its next batch boundary first.
        stopRequest.set(true)
        await stopLiveMode()
    }

    private func stopLiveMode() async {
        defer { stopRequest.set(false) }
        guard updater.isLive else { return }
        updater.isLive = false
        await historyDriver?.stop()
        releaseLock()
    }
}

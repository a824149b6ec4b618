import Foundation
import SpotliteStore

extension SpotliteIndexer {
    /// Whether the indexer follows the store's change notifications (between ``start()`` and ``stop()``).
    public var isIndexingEnabled: Bool { liveTask != nil }

    /// Starts live indexing: catches up now, then applies the commits of any process shortly after they happen.
    ///
    /// After a change notification the indexer waits ``coalescingDelay`` so that a burst of writes is applied in
    /// one update (notifications arriving meanwhile merge into one). A failed update is retried with a growing
    /// delay (up to 5 s) until it succeeds; ``lastError`` tells what failed. Holds the index's writer lock until
    /// ``stop()``. Calling it again while running does nothing.
    ///
    /// - Throws: ``SearchError/indexLocked(path:holderPID:)`` when another indexer holds the index.
    public func start() throws {
        guard liveTask == nil else { return }
        try retainLock()
        // Subscribe before catching up, so a write committed during the first update is not missed.
        let notifications = store.changeNotifications()
        let delay = coalescingDelay
        let clock = self.clock
        liveTask = Task { [weak self] in
            await self?.updateUntilSuccess()
            for await _ in notifications {
                try? await clock.sleep(for: delay)
                guard let self, !Task.isCancelled else { break }
                await self.updateUntilSuccess()
            }
        }
    }

    /// Stops live indexing after the update in progress (if any) has committed, and releases the writer lock.
    /// The indexer's position stays in the store, so the history it will need is kept for it (up to the
    /// configured maximum duration), and the next ``start()`` or ``update()`` resumes from the index's token.
    public nonisolated func stop() async {
        // An update in progress holds the actor: ask it to return at its next batch boundary first.
        stopRequest.set(true)
        await stopLiveTask()
    }

    private func stopLiveTask() async {
        defer { stopRequest.set(false) }
        guard let task = liveTask else { return }
        liveTask = nil
        task.cancel()
        await task.value
        releaseLock()
    }

    /// Updates, retrying failures with a growing delay while live indexing stays enabled.
    private func updateUntilSuccess() async {
        var delay = Duration.milliseconds(100)
        while liveTask != nil, !Task.isCancelled {
            do {
                _ = try await update()
                lastError = nil
                return
            } catch is CancellationError {
                return
            } catch {
                lastError = "\(error)"
                logger.error("live index update failed: \(error); retrying in \(delay)")
            }
            try? await clock.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }
}

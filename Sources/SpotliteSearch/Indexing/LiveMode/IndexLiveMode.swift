import Foundation
import Logging
import SpotliteStore
import Synchronization

/// Live indexing, from ``SpotliteIndexer/start()`` to ``SpotliteIndexer/stop()``: the history driver's own live
/// loop applies each commit (``IndexHistoryConsumer`` hands its rounds to the ``IndexUpdater``), while this keeps
/// what live mode holds: the index's writer lock, the driver it started, and what its last round left
/// (``lastError``).
///
/// The indexer owns it; the consumer tells it how each round ended. Its state is behind one lock, so stopping needs
/// no hop onto the indexer's actor. It holds the driver weakly: the driver holds the consumer, which holds this, and
/// the indexer alone keeps the driver alive (an indexer released without `stop()` ends its live loop).
final class IndexLiveMode: Sendable {
    private struct State {
        /// The writer lock, held while live mode runs (updates meanwhile share it).
        var lock: IndexWriterLock?
        /// The driver whose live loop runs.
        weak var driver: HistoryConsumerDriver<IndexHistoryConsumer>?
        /// The last error a round met, or nil after a successful round.
        var lastError: (any Error)?
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Whether live mode runs.
    var isRunning: Bool { state.withLock { $0.lock != nil } }

    /// The last error a round met while live mode ran, or nil after a successful round (live or not).
    var lastError: (any Error)? { state.withLock { $0.lastError } }

    /// The writer lock live mode holds, if it runs.
    var lock: IndexWriterLock? { state.withLock { $0.lock } }

    /// Records that `driver`'s live loop runs, holding `lock`; false (and nothing recorded) when live mode already
    /// ran.
    func began(driver: HistoryConsumerDriver<IndexHistoryConsumer>, holding lock: IndexWriterLock) -> Bool {
        state.withLock { state in
            guard state.lock == nil else { return false }
            state.lock = lock
            state.driver = driver
            return true
        }
    }

    /// Ends live mode: returns the driver to stop and the lock to release once it has stopped, or nil when live mode
    /// did not run.
    func end() -> (driver: HistoryConsumerDriver<IndexHistoryConsumer>?, lock: IndexWriterLock)? {
        state.withLock { state in
            guard let lock = state.lock else { return nil }
            let driver = state.driver
            state.lock = nil
            state.driver = nil
            return (driver, lock)
        }
    }

    /// How a round of the driver ended: a success clears ``lastError``; a live round's failure is kept there and
    /// logged (the driver retries it with a growing delay). A round the indexer stopped is no failure.
    func roundDidEnd(_ result: Result<HistoryConsumerRound, any Error>) {
        state.withLock { state in
            switch result {
            case .success:
                state.lastError = nil
            case .failure(let error):
                guard !(error is CancellationError), state.lock != nil else { return }
                state.lastError = error
                logger.error("live index update failed: \(error); retrying")
            }
        }
    }
}

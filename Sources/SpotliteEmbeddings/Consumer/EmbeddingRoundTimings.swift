import Foundation
import SpotliteStore
import Synchronization

/// Where the time of an ``EmbeddingIndexer``'s rounds goes, summed over the rounds since it was made: what to look
/// at when a commit takes long to become searchable by meaning. Shared by the copies of the indexer (it is a
/// value; the timings are one object).
public final class EmbeddingRoundTimings: Sendable {
    /// Seconds summed over rounds, by stage; a round's stages add up to its whole time.
    public struct Totals: Sendable, Hashable {
        /// Rounds that ended (failed ones included).
        public var rounds = 0
        /// Batches applied.
        public var batches = 0
        /// Outside the embedder's own batches until the last one ended: the driver's checks (the resume point, the
        /// model the vectors were made by), reading the history and the changed records.
        public var reading = 0.0
        /// Tokenising and running the model.
        public var embedding = 0.0
        /// Committing the vectors with their cursor (one SQLite transaction) and updating the vectors in memory.
        public var committing = 0.0
        /// After the last batch: the driver saving its position and confirming the embedder's checkpoint.
        public var finishing = 0.0

        /// Every stage.
        public var total: Double { reading + embedding + committing + finishing }
    }

    private struct State {
        var totals = Totals()
        var roundStarted: ContinuousClock.Instant?
        var lastMark: ContinuousClock.Instant?
        var batchesThisRound = 0
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()

    /// Nothing measured yet.
    public init() {}

    /// The sums so far.
    public var totals: Totals { state.withLock { $0.totals } }

    func roundBegan() {
        let now = clock.now
        state.withLock { state in
            state.roundStarted = now
            state.lastMark = now
            state.batchesThisRound = 0
        }
    }

    /// Marks the start of a batch's embedding: the time since the last mark was spent reading.
    func batchBegan() {
        let now = clock.now
        state.withLock { state in
            if let mark = state.lastMark { state.totals.reading += (now - mark).timeInterval }
            state.lastMark = now
        }
    }

    func embedded() {
        let now = clock.now
        state.withLock { state in
            if let mark = state.lastMark { state.totals.embedding += (now - mark).timeInterval }
            state.lastMark = now
        }
    }

    func committed() {
        let now = clock.now
        state.withLock { state in
            if let mark = state.lastMark { state.totals.committing += (now - mark).timeInterval }
            state.lastMark = now
            state.batchesThisRound += 1
            state.totals.batches += 1
        }
    }

    func roundEnded() {
        let now = clock.now
        state.withLock { state in
            guard state.roundStarted != nil, let mark = state.lastMark else { return }
            if state.batchesThisRound > 0 {
                state.totals.finishing += (now - mark).timeInterval
            } else {
                state.totals.reading += (now - mark).timeInterval
            }
            state.totals.rounds += 1
            state.roundStarted = nil
            state.lastMark = nil
        }
    }
}

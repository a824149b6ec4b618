import Synchronization

/// A clock that moves only when told: a test advances it past a delay (a tracker's clean interval, a live
/// indexer's coalescing window, a retry delay) instead of sleeping through it, so the outcome never depends on
/// how busy the machine is.
///
/// ```swift
/// let clock = ManualClock()
/// let indexer = try SpotliteIndexer(store: store, configuration: configuration, clock: clock)
/// try await indexer.start()
/// // … write a burst, then let the coalescing delay pass:
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(1))
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point in the clock's time: how far it has been advanced since it was created.
    public struct Instant: InstantProtocol {
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before their continuation was stored.
        var cancelled: Set<Int> = []
        var nextID = 0
        /// Tests waiting for a number of sleepers.
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock is advanced to `deadline`; throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, wake, cancel }
                let (outcome, woken) = state.withLock { state -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    if state.cancelled.remove(id) != nil { return (.cancel, []) }
                    if deadline <= state.now { return (.wake, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (.wait, Self.takeSatisfiedWaiters(&state))
                }
                switch outcome {
                case .wait: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
                for waiter in woken { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.sorted { $0.value.deadline < $1.value.deadline }.map(\.value)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on this clock: the code under test has reached its delay.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let satisfied = state.sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
        state.sleeperWaiters.removeAll { $0.count <= count }
        return satisfied
    }
}

import Foundation
import Synchronization
import Testing

/// A bound on waiting for something that must happen: a round, a notification, a child process, a sleeper.
///
/// A lost wake-up must fail its test with a message saying what never came, not hang the whole run. The bound is
/// generous (a loaded machine is slow, not stuck) and says nothing about speed: it is not a timed assertion.
public enum Liveness {
    /// How long a test waits for one thing that must happen before calling it lost.
    public static let limit: Duration = .seconds(120)

    /// How long one test may run before the run ends as stuck (see ``BlockingWork``): the slowest tests take a
    /// few minutes on a loaded two-core machine.
    public static let testLimit: Duration = .seconds(900)
}

/// What a bounded wait throws when the awaited thing never happened.
public struct LivenessTimeout: Error, CustomStringConvertible {
    /// What the test waited for.
    public var what: String
    /// How long it waited.
    public var limit: Duration

    public var description: String {
        "waited \(limit) for \(what), and it never happened (a lost event or a wait that never ends)"
    }
}

/// Runs `body` (a wait: for a round, an event, a child) and returns what it returns, but throws
/// ``LivenessTimeout`` naming `what` once `limit` has passed without an outcome; `body`'s task is then cancelled
/// and left behind, so a wait that ignores cancellation cannot hang the test either.
///
/// `body` runs on a thread of its own (as tests with ``BlockingWork`` do): it may block. The deadline waits on a
/// thread of its own too (``Deadline``), so work blocking Swift's cooperative pool cannot hold it back.
public func within<T: Sendable>(
    _ what: @autoclosure () -> String, limit: Duration = Liveness.limit,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let description = what()
    let outcome = OneOutcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.install(continuation)
            let executor = QueueTaskExecutor(label: "spotlite.tests.within")
            let work = Task(executorPreference: executor) {
                do {
                    outcome.finish(.success(try await body()))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            // Cancelled when `body` finished first: then its thread only ends.
            let deadline = Deadline(after: limit, name: "spotlite.tests.within") {
                outcome.finish(.failure(LivenessTimeout(what: description, limit: limit)))
                work.cancel()
            }
            outcome.onFinish { deadline.cancel() }
            outcome.onCancel { work.cancel() }
        }
    } onCancel: {
        outcome.cancel()
    }
}

/// The first outcome of a race between a wait and its deadline; later ones are ignored.
private final class OneOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var finished = false
        var cancelled = false
        var finishActions: [@Sendable () -> Void] = []
        var cancelActions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, actions) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [@Sendable () -> Void]) in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            defer { state.continuation = nil; state.finishActions = [] }
            if state.continuation == nil { state.early = result }
            return (state.continuation, state.finishActions)
        }
        continuation?.resume(with: result)
        for action in actions { action() }
    }

    func onFinish(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.finished { return true }
            state.finishActions.append(action)
            return false
        }
        if now { action() }
    }

    func onCancel(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.cancelActions.append(action)
            return false
        }
        if now { action() }
    }

    /// The waiting test was cancelled: cancel the wait (its own outcome, likely a `CancellationError`, follows).
    func cancel() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            state.cancelled = true
            defer { state.cancelActions = [] }
            return state.cancelActions
        }
        for action in actions { action() }
    }
}

extension AsyncIteratorProtocol where Element: Sendable, Self: SendableMetatype {
    /// `next()`, bounded like ``within(_:limit:_:)``: throws ``LivenessTimeout`` naming `what` when no element
    /// (and no end) came in time. The iterator is unusable after a timeout.
    public mutating func next(within what: @autoclosure () -> String, limit: Duration = Liveness.limit)
        async throws -> Element?
    {
        let box = IteratorBox(self)
        let description = what()
        do {
            let element = try await SpotliteTestSupport.within(description, limit: limit) { try await box.next() }
            self = box.iterator
            return element
        } catch let timeout as LivenessTimeout {
            // The waiting task may still hold the iterator: it is not taken back.
            throw timeout
        } catch {
            // The iterator ended with an error: it keeps the state it ended in.
            self = box.iterator
            throw error
        }
    }
}

/// Carries an iterator into the task that waits on it. Unchecked: the test waits for that task (or gives the
/// iterator up on a timeout), so the iterator is never used from two tasks at once.
private final class IteratorBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    var iterator: Iterator
    init(_ iterator: Iterator) { self.iterator = iterator }
    func next() async throws -> Iterator.Element? { try await iterator.next() }
}

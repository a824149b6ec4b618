import Synchronization

/// A one-shot event a test waits for: a child process exiting, a callback running. ``open()`` wakes every waiter,
/// now and later; bound the wait with ``within(_:limit:_:)``.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether ``open()`` was called.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the latch: every waiter returns, and so does every later ``wait()``.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

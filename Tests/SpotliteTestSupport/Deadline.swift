import Dispatch
import Foundation

/// Runs an action once a limit has passed, unless cancelled first, on a thread of its own.
///
/// A deadline that sleeps on Swift's cooperative pool (`Task.sleep`) fires only when a pool thread is free: with
/// two cores the pool has two threads, and tests blocking them (a child process, a long SQLite job) held a 120 s
/// deadline back until they ended. A thread waiting on a semaphore needs nothing but the kernel to wake it.
public final class Deadline: @unchecked Sendable {
    // @unchecked: DispatchSemaphore is thread-safe but not marked Sendable by corelibs-libdispatch.
    private let cancelled = DispatchSemaphore(value: 0)

    /// Starts the thread that runs `action` after `limit`.
    public init(after limit: Duration, name: String, _ action: @escaping @Sendable () -> Void) {
        let timeout = DispatchTime.now() + .nanoseconds(Int(clamping: max(0, Self.nanoseconds(limit))))
        // The thread holds the deadline until it ends: a deadline nobody keeps still fires.
        let thread = Thread { [self] in
            if cancelled.wait(timeout: timeout) == .timedOut { action() }
        }
        thread.name = name
        thread.start()
    }

    /// Ends the waiting thread without running the action (nothing happens once the action ran).
    public func cancel() {
        cancelled.signal()
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ attoseconds / 1_000_000_000
    }
}

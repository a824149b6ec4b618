import Dispatch
import Foundation
import Synchronization
import SpotliteTestSupport
import Testing

/// The test support's bounded waits fire while Swift's cooperative pool is blocked: their deadlines wait on threads
/// of their own. (They slept on the pool, so with its two threads held by blocking work a 120 s bound fired late.)
@Suite("Liveness bounds", .blockingWork)
struct LivenessTests {
    /// Holds every thread of the cooperative pool in a blocking wait until `release()`, or until a bound that lets
    /// the run go on should the deadline under test never fire.
    final class PoolBlocker: @unchecked Sendable {
        // @unchecked: DispatchSemaphore is thread-safe but not marked Sendable by corelibs-libdispatch.
        private let released = DispatchSemaphore(value: 0)
        private let started = DispatchSemaphore(value: 0)
        private let heldUntilReleased = Mutex(true)
        let threads = ProcessInfo.processInfo.activeProcessorCount

        /// Starts one blocking task per pool thread and returns once all of them run (false if they did not start
        /// within `Liveness.limit`).
        func block() -> Bool {
            for _ in 0..<threads {
                Task.detached { [self] in
                    started.signal()
                    if released.wait(timeout: .now() + .seconds(60)) == .timedOut {
                        heldUntilReleased.withLock { $0 = false }
                    }
                }
            }
            return (0..<threads).allSatisfy { _ in started.wait(timeout: .now() + .seconds(120)) == .success }
        }

        /// Whether every blocking task was still blocking until ``release()`` (none gave up on its own bound).
        var heldThroughout: Bool { heldUntilReleased.withLock { $0 } }

        func release() {
            for _ in 0..<threads { released.signal() }
        }
    }

    @Test("within(…) throws LivenessTimeout while blocking work holds every thread of the cooperative pool")
    func withinFiresWhileThePoolIsBlocked() async throws {
        let blocker = PoolBlocker()
        #expect(blocker.block(), "the blocking tasks never all started")
        let error = await #expect(throws: LivenessTimeout.self) {
            try await within("a wake-up that never comes", limit: .milliseconds(200)) {
                try await Task.sleep(for: .seconds(3600))
            }
        }
        // The bound fired before any blocking task let its pool thread go: the deadline needed none of them.
        #expect(blocker.heldThroughout)
        blocker.release()
        #expect(error?.what == "a wake-up that never comes")
        #expect(error?.limit == .milliseconds(200))
    }

    @Test("within(…) returns what its body returns, or throws what it throws, before its bound")
    func withinReturnsTheOutcome() async throws {
        let value = try await within("a value") { 42 }
        #expect(value == 42)
        await #expect(throws: CancellationError.self) {
            try await within("a failing body") { throw CancellationError() }
        }
    }

    @Test("a Deadline runs its action once its limit has passed, and not once cancelled")
    func deadline() async throws {
        let ran = Latch()
        _ = Deadline(after: .milliseconds(10), name: "spotlite.tests.deadline") { ran.open() }
        try await within("the deadline's action") { await ran.wait() }

        let cancelledRan = Flag()
        let cancelled = Deadline(after: .milliseconds(50), name: "spotlite.tests.deadline") { cancelledRan.set() }
        cancelled.cancel()
        // Cancelled before its limit, its thread finds the signal and ends; wait past that limit to see it stay quiet.
        let later = Latch()
        _ = Deadline(after: .milliseconds(100), name: "spotlite.tests.deadline") { later.open() }
        try await within("a later deadline's action") { await later.wait() }
        #expect(!cancelledRan.isSet)
    }

    /// A flag set from another thread.
    final class Flag: Sendable {
        private let state = Mutex(false)
        var isSet: Bool { state.withLock { $0 } }
        func set() { state.withLock { $0 = true } }
    }
}

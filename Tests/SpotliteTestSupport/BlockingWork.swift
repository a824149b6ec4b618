import Dispatch
import Testing

/// Runs each test of a suite on a thread of its own instead of Swift's cooperative pool.
///
/// Tests that block (waiting for a child process, a long synchronous SQLite or Xapian job) hold the thread they
/// run on. The cooperative pool has as many threads as cores (two on a small server): two such tests running at
/// once would stall every other test's tasks, and their bounded waits would run out. A test with this trait runs
/// on a serial dispatch queue of its own (with the child tasks it starts), so tests can run in parallel however
/// long they block.
public struct BlockingWork: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite itself only groups its tests; each test case gets its own thread.
        guard testCase != nil else { return try await function() }
        let executor = QueueTaskExecutor(label: "spotlite.tests.\(test.name)")
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == BlockingWork {
    /// Each test runs on a thread of its own, off Swift's cooperative pool: for tests that block.
    public static var blockingWork: Self { BlockingWork() }
}

/// A task executor on a serial dispatch queue: a queue created this way gets a thread even when the cooperative
/// pool and dispatch's other threads are all busy.
final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: DispatchQueue is thread-safe but not marked Sendable by corelibs-libdispatch.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

import Dispatch
import Foundation
import Testing

/// Runs each test of a suite on a thread of its own instead of Swift's cooperative pool, a few tests at a time,
/// and ends the run with a message naming a test still running after ``Liveness/testLimit`` (a wait that never
/// ends) instead of hanging until the CI job is killed.
///
/// Tests block the thread they run on: waiting for a child process, a long synchronous SQLite or Xapian job, a
/// CPU-bound fuzzer. The cooperative pool has as many threads as cores (two on a small server): two such tests
/// running at once would stall every other test's tasks, and the library's own tasks (a tracker's live loop),
/// until their bounded waits run out. A test with this trait runs on a serial dispatch queue of its own (with the
/// child tasks it starts), leaving the pool to the library; at most ``concurrentTests`` run at once, so a
/// parallel run stays within what the machine can hold (processes, open databases).
///
/// Every suite of the package's tests carries it: `@Suite("…", .blockingWork)`.
public struct BlockingWork: SuiteTrait, TestTrait, TestScoping {
    /// How many tests with this trait run at once.
    public static let concurrentTests = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite only groups its tests; each test case gets a thread of its own.
        guard testCase != nil else { return try await function() }
        await TestSlots.shared.acquire()
        defer { Task { await TestSlots.shared.release() } }
        let watchdog = StuckTestWatchdog(test: test.name)
        defer { watchdog.cancel() }
        let executor = QueueTaskExecutor(label: "spotlite.tests.\(test.name)")
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

/// Bounds how many tests run at once; a test waiting for a slot holds no thread.
private actor TestSlots {
    static let shared = TestSlots(count: BlockingWork.concurrentTests)

    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        available = count
    }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { continuation in
            // Entering the continuation can suspend (a caller with a task executor preference comes back through
            // its executor): a slot freed meanwhile must not be missed.
            if available > 0 {
                available -= 1
                continuation.resume()
            } else {
                waiting.append(continuation)
            }
        }
    }

    func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
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

/// Ends the process, naming the test, when a test runs past ``Liveness/testLimit``. Each wait in a test has a bound
/// of its own (``within(_:limit:_:)``) that fails just that test; this catches a wait that was missed. The test's
/// closure cannot outlive its scope, so a stuck test cannot be abandoned: ending the run is the only way not to hang.
/// It waits on a thread of its own (``Deadline``), which blocked pool threads cannot hold back.
private struct StuckTestWatchdog {
    private let deadline: Deadline

    init(test: String) {
        deadline = Deadline(after: Liveness.testLimit, name: "spotlite.tests.watchdog") {
            FileHandle.standardError.write(Data(
                "error: \(test) still runs after \(Liveness.testLimit): a wait that never ends; ending the run\n".utf8))
            exit(1)
        }
    }

    func cancel() {
        deadline.cancel()
    }
}

import Dispatch
import Synchronization

/// A serial executor on a dispatch queue of its own, for actors that make blocking SQLite (and Xapian) calls.
///
/// Run on the default executor, a blocking call holds one of Swift's cooperative threads, of which there are as
/// many as cores (two on a small server), starving every other task of the process meanwhile; and a write may wait
/// for another process's lock up to the store's busy timeout. A queue of its own runs that work on a thread apart.
/// The library's one concurrency model: actors that touch the database run on one of these (the search indexer,
/// ``HistoryConsumerDriver``, the tracker's engine); everything else awaits them or uses GRDB's async APIs.
package final class DedicatedExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: DispatchQueue is thread-safe but not marked Sendable by corelibs-libdispatch.
    private let queue: DispatchQueue
    private let enqueued = Atomic<Int>(0)

    package init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility)
    }

    /// How many jobs ran or wait on this executor so far: each is one hop of a task onto its thread (the tests count
    /// the hops a round of the search indexer makes).
    package var jobsEnqueued: Int { enqueued.load(ordering: .relaxed) }

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueued.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

import Dispatch

/// The serial executor of a ``SpotliteIndexer``: a dispatch queue of its own.
///
/// Indexing is long synchronous work in SQLite and Xapian (a rebuild of a large store takes tens of seconds). Run on
/// the default executor it would hold one of Swift's cooperative threads, of which there are as many as cores (two on
/// a small server), starving every other task of the process meanwhile; a queue of its own runs it on a thread apart.
final class IndexingExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: DispatchQueue is thread-safe but not marked Sendable by corelibs-libdispatch.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

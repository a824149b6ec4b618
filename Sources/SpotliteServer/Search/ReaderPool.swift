import Foundation
import NIOCore
import SpotliteSearch

/// Searchers of one index, each owned by a thread of its own: searches run at once on as many threads as there are
/// searchers (each with its own Xapian handles), in the order they were asked, and wait beyond that, never behind
/// one global lock.
///
/// A search blocks its thread for as long as it takes, so it runs outside Swift's cooperative pool; a thread kept per
/// searcher hands it over in one step (the request's task waits on one continuation), where borrowing a searcher and
/// then a thread of Dispatch's pool took two, and each hop is a thread switch on a machine busy with searches.
final class ReaderPool: Sendable {
    private let work: WorkQueue
    /// How many searchers the pool holds.
    let count: Int

    /// A pool of `count` searchers (at least 1) made by `make`, each on a thread started at once.
    init(count: Int, make: () throws -> IndexSearcher) throws {
        let searchers = try (0..<max(1, count)).map { _ in try make() }
        self.count = searchers.count
        work = WorkQueue()
        for (number, searcher) in searchers.enumerated() {
            let work = self.work
            let thread = Thread { work.serve(with: searcher) }
            thread.name = "spotlite.search.\(number + 1)"
            thread.start()
        }
    }

    deinit {
        work.close()
    }

    /// Runs `body` with a searcher of its own, on the searcher's thread.
    func withSearcher<T: Sendable>(_ body: @escaping @Sendable (IndexSearcher) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            work.submit { searcher in continuation.resume(with: Result { try body(searcher) }) }
        }
    }

    /// Searches waiting for a searcher, first come first served.
    private final class WorkQueue: @unchecked Sendable {
        // @unchecked: every stored property is read and written under `condition` only.
        private let condition = NSCondition()
        private var jobs = CircularBuffer<(IndexSearcher) -> Void>()
        private var closed = false

        func submit(_ job: @escaping @Sendable (IndexSearcher) -> Void) {
            condition.lock()
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }

        /// A searcher's thread: runs jobs until the pool is released.
        func serve(with searcher: IndexSearcher) {
            while let job = next() { job(searcher) }
        }

        private func next() -> ((IndexSearcher) -> Void)? {
            condition.lock()
            defer { condition.unlock() }
            while jobs.isEmpty {
                if closed { return nil }
                condition.wait()
            }
            return jobs.removeFirst()
        }

        /// Ends the threads once the jobs already submitted have run.
        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
    }
}

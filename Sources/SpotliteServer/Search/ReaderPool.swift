import Dispatch
import SpotliteSearch
import Synchronization

/// Searchers of one index, each lent to one search at a time: searches run at once, each with its own Xapian
/// handles, as many as there are searchers, and wait for a free one beyond that, first come first served, never
/// behind one global lock.
///
/// A keyword search is work for the processor alone (the index's pages and the store's rows are read from the page
/// cache, and its searcher is its own): it runs on the thread of the task that asked (the connection's event loop,
/// ``EventLoopHTTP1Channel``), with no thread switch on the way, since each switch costs a wake-up on a machine busy
/// with searches. The pool bounds how many run at once. Work that may wait on others (a query embedded by the model
/// the live embedder also holds) runs on a thread outside Swift's cooperative pool instead
/// (``withSearcherWaiting(_:)``), and its task comes back to the event loop when it is done.
final class ReaderPool: Sendable {
    private struct State {
        var free: [IndexSearcher]
        var waiting: [CheckedContinuation<IndexSearcher, Never>] = []
    }

    private let state: Mutex<State>
    /// How many searchers the pool holds.
    let count: Int

    init(count: Int, make: () throws -> IndexSearcher) throws {
        let searchers = try (0..<max(1, count)).map { _ in try make() }
        self.count = searchers.count
        state = Mutex(State(free: searchers))
    }

    /// Runs `body` with a searcher of its own on the calling task's thread: for work that only computes.
    func withSearcher<T: Sendable>(_ body: (IndexSearcher) throws -> T) async throws -> T {
        let searcher = await checkOut()
        defer { checkIn(searcher) }
        return try body(searcher)
    }

    /// Runs `body` with a searcher of its own on a thread outside Swift's cooperative pool: for work that may wait
    /// on a lock held by others.
    func withSearcherWaiting<T: Sendable>(_ body: @escaping @Sendable (IndexSearcher) throws -> T) async throws -> T {
        let searcher = await checkOut()
        defer { checkIn(searcher) }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try body(searcher) })
            }
        }
    }

    private func checkOut() async -> IndexSearcher {
        // A free searcher is taken at once: waiting on a continuation, even one resumed at once, reschedules the task.
        if let searcher = state.withLock({ $0.free.popLast() }) { return searcher }
        return await withCheckedContinuation { continuation in
            let searcher: IndexSearcher? = state.withLock { state in
                if let searcher = state.free.popLast() { return searcher }
                state.waiting.append(continuation)
                return nil
            }
            if let searcher { continuation.resume(returning: searcher) }
        }
    }

    private func checkIn(_ searcher: IndexSearcher) {
        let waiter: CheckedContinuation<IndexSearcher, Never>? = state.withLock { state in
            if !state.waiting.isEmpty { return state.waiting.removeFirst() }
            state.free.append(searcher)
            return nil
        }
        waiter?.resume(returning: searcher)
    }
}

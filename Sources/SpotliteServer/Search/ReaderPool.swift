import Dispatch
import SpotliteSearch
import Synchronization

/// Searchers of one index, each lent to one search at a time: searches run at once on as many threads as there are
/// searchers (each with its own Xapian handles), and wait for a free one beyond that, never behind one global lock.
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

    /// Runs `body` with a searcher of its own, on a thread outside Swift's cooperative pool (a search blocks).
    func withSearcher<T: Sendable>(_ body: @escaping @Sendable (IndexSearcher) throws -> T) async throws -> T {
        let searcher = await checkOut()
        defer { checkIn(searcher) }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try body(searcher) })
            }
        }
    }

    private func checkOut() async -> IndexSearcher {
        await withCheckedContinuation { continuation in
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

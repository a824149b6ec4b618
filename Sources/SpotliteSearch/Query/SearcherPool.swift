import Foundation
import Synchronization

/// Answers batches of searches on several searchers of one index at once, one thread each, in the order asked.
///
/// An ``IndexSearcher`` runs one search at a time; a pool of `n` of them keeps `n` cores busy on a batch (such as
/// `spotlite search --queries FILE`). Each answer is the one its searcher alone would give: the searchers follow
/// the live generation on their own, and share only the store the snippets are read from, whose reads run in
/// parallel.
public final class SearcherPool: Sendable {
    /// The searchers, one per thread of a batch.
    public let searchers: [IndexSearcher]

    /// A pool of `count` searchers (at least 1) made by `make`.
    ///
    /// - Throws: what `make` throws.
    public init(count: Int, make: () throws -> IndexSearcher) throws {
        searchers = try (0..<max(1, count)).map { _ in try make() }
    }

    /// A pool of the given searchers (at least one).
    public init(searchers: [IndexSearcher]) {
        precondition(!searchers.isEmpty, "a searcher pool needs at least one searcher")
        self.searchers = searchers
    }

    /// The threads a pool should use on this machine: one per core, up to 4 (past the cores, searches only wait
    /// for each other).
    public static var defaultCount: Int { min(max(1, ProcessInfo.processInfo.activeProcessorCount), 4) }

    /// Runs every request, each on the first searcher free, and returns each outcome at its request's index: the
    /// results, or the error its search threw (one failing request does not stop the others).
    public func search(_ requests: [SearchRequest]) -> [Result<SearchResults, any Error>] {
        search(requests) { $0 }
    }

    /// Runs every request as ``search(_:)`` does, and hands each outcome to `answer` on the thread that searched
    /// it, as soon as it is searched; returns what `answer` made of each outcome, at its request's index. Work done
    /// with each answer (writing it out as text, say) then runs on every searcher's thread at once, not after the
    /// batch on one.
    public func search<Answer: Sendable>(
        _ requests: [SearchRequest], answering answer: @Sendable (Result<SearchResults, any Error>) -> Answer
    ) -> [Answer] {
        let threads = min(searchers.count, requests.count)
        guard threads > 1 else {
            return requests.map { request in answer(Result { try self.searchers[0].search(request) }) }
        }
        let next = Atomic<Int>(0)
        let answers = Mutex<[Answer?]>(Array(repeating: nil, count: requests.count))
        let searchers = self.searchers
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let searcher = searchers[thread]
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < requests.count else { return }
                let answered = answer(Result { try searcher.search(requests[index]) })
                answers.withLock { $0[index] = answered }
            }
        }
        return answers.withLock { $0.map { $0! } }
    }
}

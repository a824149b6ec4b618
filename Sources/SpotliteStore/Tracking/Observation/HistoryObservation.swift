import Foundation
import GRDB

/// The transactions of a store as they are committed, filtered, as an `AsyncSequence` (SwiftData's history
/// observation). Each element is a transaction with only the changes that pass the filters; transactions
/// without any are left out. Waits on change notifications, never polls.
///
/// With ``HistoryObservationStart/savedPosition(_:)``, an element counts as consumed when the loop asks for the
/// next one, and only then is the position saved: a consumer stopped while handling an element gets it again.
///
/// ```swift
/// for try await transaction in store.observeHistory(excludingAuthors: ["app"], entities: ["Package"],
///                                                   from: .savedPosition("thumbnailer")) {
///     try await render(transaction.changes)
/// }
/// ```
///
/// Throws ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` when the history after its start was deleted:
/// resynchronise, save the store's current token under the position name, and observe again.
public struct HistoryObservation: AsyncSequence, Sendable {
    /// Each element is one transaction, with its changes.
    public typealias Element = HistoryTransaction
    /// Fetching may fail (an expired token, SQLite's errors).
    public typealias Failure = any Error

    /// The store observed.
    public let store: SpotliteStore
    /// The filters (authors, entities, change types); the start and limit are the observation's own.
    public let filter: HistoryRequest
    /// Where the observation starts.
    public let start: HistoryObservationStart
    /// The most transactions read from the store at once.
    public let pageSize: Int

    /// Observes `store` with `filter`'s authors, entities and change types, from `start`, reading at most
    /// `pageSize` transactions at once.
    ///
    /// ``HistoryObservationStart/now`` is resolved here, when the observation is created: a write made after this
    /// returns is observed even if iteration begins later.
    public init(store: SpotliteStore, filter: HistoryRequest, start: HistoryObservationStart, pageSize: Int = 200) {
        self.store = store
        self.filter = filter
        self.start = start
        self.pageSize = Swift.max(1, pageSize)
        if case .now = start {
            nowToken = Result { try store.currentToken() }.mapError { $0 as any Error }
        } else {
            nowToken = nil
        }
    }

    /// The store's current token when the observation was created, for ``HistoryObservationStart/now``.
    private let nowToken: Result<HistoryToken?, any Error>?

    /// Starts observing: subscribes to change notifications, then resolves a saved position.
    public func makeAsyncIterator() -> AsyncIterator {
        // Subscribe before reading the start, so nothing committed in between is missed.
        let notifications = store.changeNotifications().makeAsyncIterator()
        var iterator = AsyncIterator(store: store, filter: filter, pageSize: pageSize, notifications: notifications)
        do {
            switch start {
            case .now:
                iterator.after = try nowToken?.get() ?? store.currentToken()
            case .after(let token):
                iterator.after = token
            case .savedPosition(let name):
                iterator.positionName = name
                iterator.after = try store.position(of: name)?.token
                iterator.savedThrough = iterator.after
            }
        } catch {
            iterator.pendingError = error
        }
        return iterator
    }

    /// Iterates one observation.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Each element is one transaction, with its changes.
        public typealias Element = HistoryTransaction
        /// Fetching may fail (an expired token, SQLite's errors).
        public typealias Failure = any Error

        let store: SpotliteStore
        let filter: HistoryRequest
        let pageSize: Int
        var notifications: StoreChangeNotifications.AsyncIterator
        var positionName: String?
        /// The next fetch starts after this token.
        var after: HistoryToken?
        var pendingError: (any Error)?
        var buffer: [HistoryTransaction] = []
        /// Everything through this token is handled once the consumer asks for the next element.
        var consumedThrough: HistoryToken?
        var savedThrough: HistoryToken?
        var isFinished = false

        init(store: SpotliteStore, filter: HistoryRequest, pageSize: Int,
             notifications: StoreChangeNotifications.AsyncIterator) {
            self.store = store
            self.filter = filter
            self.pageSize = pageSize
            self.notifications = notifications
        }

        /// The next matching transaction, waiting for one to be committed; nil once the task is cancelled or the
        /// store is released. Saves the position of the previous element first (with a saved position).
        ///
        /// - Throws: ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` when the history after the position was
        ///   deleted; ``SpotliteStoreError/readOnlyStore(operation:)`` when saving the position on a read-only store;
        ///   SQLite's errors.
        public mutating func next() async throws -> HistoryTransaction? {
            guard !isFinished else { return nil }
            do {
                if let pendingError { throw pendingError }
                try await saveConsumed()
                while !Task.isCancelled {
                    if !buffer.isEmpty {
                        let transaction = buffer.removeFirst()
                        // The last element of a page also covers the non-matching transactions the page skipped.
                        consumedThrough = buffer.isEmpty ? after : transaction.token
                        return transaction
                    }
                    buffer = try await fetchPage()
                    if !buffer.isEmpty { continue }
                    consumedThrough = after
                    try await saveConsumed()
                    guard await notifications.next() != nil else { break }
                }
                isFinished = true
                return nil
            } catch is CancellationError where Task.isCancelled {
                // GRDB's async accesses stop when the task is cancelled: the sequence ends, as documented.
                isFinished = true
                return nil
            } catch {
                isFinished = true
                throw error
            }
        }

        private mutating func fetchPage() async throws -> [HistoryTransaction] {
            var request = filter
            request.start = after.map { .afterToken($0) } ?? .beginning
            request.limit = pageSize
            let page = try await store.fetchPageAsynchronously(request)
            after = page.consumedThrough ?? after
            return page.transactions
        }

        private mutating func saveConsumed() async throws {
            guard let positionName, let consumedThrough, consumedThrough != savedThrough else { return }
            try await store.setPositionAsynchronously(consumedThrough, for: positionName)
            savedThrough = consumedThrough
        }
    }
}

extension SpotliteStore {
    /// Observes the transactions committed from `start` on, by any handle or process, leaving out
    /// `excludingAuthors` (nil in the set: writes by programs that do not use Spotlite) and keeping only changes
    /// of `entities` and `changeTypes` when given.
    public func observeHistory(
        excludingAuthors: Set<String?> = [], entities: Set<String>? = nil,
        changeTypes: Set<HistoryChangeType>? = nil, from start: HistoryObservationStart = .now
    ) -> HistoryObservation {
        let filter = HistoryRequest(
            authors: excludingAuthors.isEmpty ? .all : .excluding(excludingAuthors), entities: entities,
            changeTypes: changeTypes)
        return HistoryObservation(store: self, filter: filter, start: start)
    }
}

import Foundation

/// What to fetch from history: a starting point, filters and a page size.
///
/// Transaction filters (authors, context names) select transactions; change filters (entities, change types)
/// select changes, and a transaction without any selected change is left out of transaction results.
///
/// ```swift
/// let page = try store.fetchHistory(.after(position).excluding(authors: ["app"]).limit(100))
/// ```
public struct HistoryRequest: Sendable, Hashable {
    /// Where the fetch starts.
    public enum Start: Sendable, Hashable {
        /// From the first transaction ever recorded: throws ``SpotliteStoreError/expiredToken(requested:purgedThrough:)``
        /// once any history was deleted.
        case beginning
        /// From the oldest transaction still retained; never throws for expiry. For inspection, not for consumers
        /// that must not miss changes.
        case oldestRetained
        /// The transactions with a greater token.
        case afterToken(HistoryToken)
        /// The transactions with a later timestamp.
        case afterDate(Date)
    }

    /// Where the fetch starts.
    public var start: Start
    /// Which transactions to keep by author.
    public var authors: AuthorFilter
    /// Context names to keep (nil in the set: transactions without a context name); nil keeps every context.
    public var contextNames: Set<String?>?
    /// Entities whose changes to keep; nil keeps all.
    public var entities: Set<String>?
    /// Change types to keep; nil keeps all.
    public var changeTypes: Set<HistoryChangeType>?
    /// The most transactions (``SpotliteStore/fetchHistory(_:)``) or changes (``SpotliteStore/fetchChanges(_:)``)
    /// to return, oldest first; nil returns everything.
    public var limit: Int?

    /// A request with every filter spelled out; `after(_:)` and its neighbours cover the usual cases.
    public init(
        start: Start = .beginning, authors: AuthorFilter = .all, contextNames: Set<String?>? = nil,
        entities: Set<String>? = nil, changeTypes: Set<HistoryChangeType>? = nil, limit: Int? = nil
    ) {
        self.start = start
        self.authors = authors
        self.contextNames = contextNames
        self.entities = entities
        self.changeTypes = changeTypes
        self.limit = limit
    }

    /// Everything after `token`; from the beginning when `token` is nil.
    public static func after(_ token: HistoryToken?) -> HistoryRequest {
        HistoryRequest(start: token.map { .afterToken($0) } ?? .beginning)
    }

    /// Everything committed after `date`.
    public static func after(_ date: Date) -> HistoryRequest {
        HistoryRequest(start: .afterDate(date))
    }

    /// Everything after `transaction`.
    public static func after(_ transaction: HistoryTransaction) -> HistoryRequest {
        HistoryRequest(start: .afterToken(transaction.token))
    }

    /// Everything still retained, never failing because older history was deleted.
    public static var allRetained: HistoryRequest { HistoryRequest(start: .oldestRetained) }

    /// Keeps only the transactions of these authors (nil: writes by other programs).
    public func including(authors: Set<String?>) -> HistoryRequest {
        with { $0.authors = .including(authors) }
    }

    /// Leaves out the transactions of these authors (nil: writes by other programs).
    public func excluding(authors: Set<String?>) -> HistoryRequest {
        with { $0.authors = .excluding(authors) }
    }

    /// Keeps only the transactions with these context names.
    public func contexts(_ names: Set<String?>) -> HistoryRequest {
        with { $0.contextNames = names }
    }

    /// Keeps only the changes of these entities.
    public func entities(_ names: Set<String>) -> HistoryRequest {
        with { $0.entities = names }
    }

    /// Keeps only the changes of these types.
    public func changeTypes(_ types: Set<HistoryChangeType>) -> HistoryRequest {
        with { $0.changeTypes = types }
    }

    /// Returns at most `count` transactions or changes.
    public func limit(_ count: Int?) -> HistoryRequest {
        with { $0.limit = count }
    }

    private func with(_ change: (inout HistoryRequest) -> Void) -> HistoryRequest {
        var copy = self
        change(&copy)
        return copy
    }

    var hasChangeFilters: Bool { entities != nil || changeTypes != nil }
}

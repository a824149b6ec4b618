import Foundation

/// Which history to delete.
///
/// Deleting history never changes tokens: later transactions keep theirs and new ones continue after the
/// highest token ever issued. Consumers whose position is older than deleted history get
/// ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` on their next fetch.
public struct HistoryDeleteRequest: Sendable, Hashable {
    /// Up to where history is deleted.
    public enum Bound: Sendable, Hashable {
        /// Transactions with a smaller token.
        case beforeToken(HistoryToken)
        /// Transactions with this token or a smaller one.
        case throughToken(HistoryToken)
        /// Transactions with an earlier timestamp.
        case beforeDate(Date)
        /// Transactions every listed author has consumed: up to the smallest of their positions, read in the
        /// same SQLite transaction as the delete. Nothing is deleted when one of them has no position yet.
        case throughCommonPosition(of: [String])
    }

    /// Up to where history is deleted.
    public var bound: Bound
    /// Delete only the transactions of these authors (nil in the set: writes by other programs); nil deletes
    /// the transactions of every author.
    public var authors: Set<String?>?

    /// A request deleting the history below `bound`, only `authors`' transactions when given (nil in the set: unattributed ones).
    public init(bound: Bound, authors: Set<String?>? = nil) {
        self.bound = bound
        self.authors = authors
    }

    /// The transactions older than `token`.
    public static func before(_ token: HistoryToken) -> HistoryDeleteRequest {
        HistoryDeleteRequest(bound: .beforeToken(token))
    }

    /// The transactions up to and including `token`: what a consumer positioned at `token` has processed.
    public static func through(_ token: HistoryToken) -> HistoryDeleteRequest {
        HistoryDeleteRequest(bound: .throughToken(token))
    }

    /// The transactions whose timestamp is before `date`.
    public static func before(_ date: Date) -> HistoryDeleteRequest {
        HistoryDeleteRequest(bound: .beforeDate(date))
    }

    /// The history that every author in `authors` has consumed.
    public static func consumed(by authors: [String]) -> HistoryDeleteRequest {
        HistoryDeleteRequest(bound: .throughCommonPosition(of: authors))
    }

    /// Restricts the delete to the transactions of these authors (nil: writes by other programs).
    public func onlyAuthors(_ authors: Set<String?>) -> HistoryDeleteRequest {
        var copy = self
        copy.authors = authors
        return copy
    }
}

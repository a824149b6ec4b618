import Foundation

/// A history request that cannot be answered without losing changes.
public enum HistoryError: Error, Hashable, CustomStringConvertible, LocalizedError {
    /// History after the requested token (nil: from the beginning) was deleted, up to `purgedThrough`.
    /// The analogue of Core Data's `NSPersistentHistoryTokenExpiredError` (134301): the consumer must
    /// resynchronise from the current rows, then continue from ``SpotliteStore/currentToken()``.
    case expiredToken(requested: HistoryToken?, purgedThrough: HistoryToken)
    /// History after the requested date was deleted: a deleted transaction was newer than the date.
    case expiredDate(requested: Date, purgedThrough: Date)
    /// The requested token is newer than any this store has issued: it comes from another store, or the
    /// store was re-created. The consumer must resynchronise.
    case unknownToken(requested: HistoryToken, current: HistoryToken?)
    /// A limit of zero or less.
    case invalidLimit(Int)

    /// The problem and the way out, in one line.
    public var description: String {
        switch self {
        case .expiredToken(let requested, let purgedThrough):
            let from = requested.map { "after token \($0)" } ?? "from the beginning"
            return "the history \(from) has expired: it was deleted through token \(purgedThrough); resynchronise from the current rows and continue from the store's current token"
        case .expiredDate(let requested, let purgedThrough):
            return "the history after \(requested) has expired: transactions up to \(purgedThrough) were deleted; resynchronise from the current rows and continue from the store's current token"
        case .unknownToken(let requested, let current):
            let currentText = current.map { "\($0)" } ?? "none"
            return "token \(requested) is newer than the store's current token (\(currentText)): it belongs to another or a re-created store; resynchronise from the current rows"
        case .invalidLimit(let limit):
            return "a history limit must be at least 1, not \(limit); leave it out to fetch everything"
        }
    }

    /// The same as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

import GRDB

/// The position of a transaction in a store's history: strictly increasing in commit order and never reused,
/// even after history is deleted.
public struct HistoryToken: RawRepresentable, Comparable, Hashable, Sendable, Codable, CustomStringConvertible,
    DatabaseValueConvertible
{
    /// The `spotlite_transaction.token` value.
    public var rawValue: Int64

    /// The token with this number (the `rowid` of its transaction).
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// The token with this number (the `rowid` of its transaction).
    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// Tokens order as their transactions were committed.
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The number, as the command line prints it.
    public var description: String { String(rawValue) }
}

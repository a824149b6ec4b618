import Foundation

/// One committed write and its changes.
public struct HistoryTransaction: Sendable, Hashable {
    /// The transaction's position in history.
    public var token: HistoryToken
    /// When the write started (for writes by other programs: when their first change was made).
    public var timestamp: Date
    /// The writer's `transactionAuthor`; nil for writes by programs that do not use Spotlite.
    public var author: String?
    /// The writer's context name; nil when unset and for writes by other programs.
    public var contextName: String?
    /// The writing process; nil for writes by other programs.
    public var processID: Int32?
    /// The changes, in the order they were made (only those matching the request's change filters).
    public var changes: [HistoryChange]

    /// A transaction with its fields; the store creates them, tests and consumers' fixtures may too.
    public init(
        token: HistoryToken, timestamp: Date, author: String?, contextName: String?, processID: Int32?,
        changes: [HistoryChange]
    ) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.processID = processID
        self.changes = changes
    }
}

/// Where a reader stands in history: past every transaction through ``token``, and, while a transaction too big
/// for one page is read in pieces, past its changes through ``changeID``.
///
/// Only ``token`` is worth saving as a position: a reader that stops in the middle of a transaction starts that
/// transaction again, which is harmless when applying is idempotent (at least once, never skipped).
public struct HistoryCursor: Sendable, Hashable {
    /// Every transaction through this token is consumed; nil: none yet (from the first transaction).
    public var token: HistoryToken?
    /// In the transaction holding the change with this id (the first one after ``token`` that the reader's filter
    /// selects), the changes through this one are consumed; nil: none of them.
    public var changeID: Int64?

    /// A cursor past `token` (and past the changes through `changeID` of the next transaction).
    public init(token: HistoryToken?, changeID: Int64? = nil) {
        self.token = token
        self.changeID = changeID
    }
}

/// A page of history bounded by a number of changes (``SpotliteStore/fetchHistory(after:matching:maximumChanges:)``):
/// whole transactions while they fit, then the first piece of a transaction too big for the rest of the page.
public struct HistoryChangePage: Sendable, Hashable {
    /// The transactions of the page in token order, each with the page's changes of it. The last one may hold only
    /// part of its changes (``lastTransactionIsPartial``), and the first may continue one the previous page cut.
    public var transactions: [HistoryTransaction]
    /// Whether the last transaction continues on the next page.
    public var lastTransactionIsPartial: Bool
    /// Whether the page reaches the end of history as it was when the page was read.
    public var isComplete: Bool
    /// Where the next page starts.
    public var next: HistoryCursor
    /// The position a reader that handled every change of the page may save: through the last complete
    /// transaction, and, when the page is complete, through the store's current token (what follows the matching
    /// transactions did not match the request). Nil when there is nothing to save yet.
    public var position: HistoryToken?
    /// How many transactions between the cursor and ``position`` the request's filters left out.
    public var passedOver: Int

    /// A page as ``SpotliteStore/fetchHistory(after:matching:maximumChanges:)`` returns one, for testing code that
    /// reads pages without a store.
    public init(transactions: [HistoryTransaction], lastTransactionIsPartial: Bool = false, isComplete: Bool,
                next: HistoryCursor, position: HistoryToken?, passedOver: Int = 0) {
        self.transactions = transactions
        self.lastTransactionIsPartial = lastTransactionIsPartial
        self.isComplete = isComplete
        self.next = next
        self.position = position
        self.passedOver = passedOver
    }
}

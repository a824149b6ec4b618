/// Who writes, in Core Data's words: the transaction author and the context name recorded with each
/// transaction of history.
public struct WriteContext: Sendable, Hashable {
    /// Recorded as the transaction's author; consumers use it to skip their own changes.
    public var transactionAuthor: String?
    /// Recorded as the transaction's context name.
    public var name: String?

    /// A context writing as `transactionAuthor` (nil: unattributed), named `name` in history.
    public init(transactionAuthor: String?, name: String? = nil) {
        self.transactionAuthor = transactionAuthor
        self.name = name
    }
}

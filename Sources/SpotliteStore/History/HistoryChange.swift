import GRDB

/// One row change recorded in history.
public struct HistoryChange: Sendable, Hashable {
    /// Unique among all changes of the store, increasing in the order the changes were made.
    public var changeID: Int64
    /// The transaction the change belongs to.
    public var token: HistoryToken
    /// The entity (table) of the changed row.
    public var entity: String
    /// The key of the changed row, with the type it has in the table (integer or text).
    public var key: DatabaseValue
    /// Insert, update or delete.
    public var changeType: HistoryChangeType
    /// On updates, the columns whose value changed, in table order; nil otherwise.
    public var updatedColumns: [String]?
    /// On deletes, the values of the entity's `preserveOnDelete` columns (empty when it has none); nil otherwise.
    public var tombstone: [String: DatabaseValue]?

    /// A change with its fields; the store creates them, tests and consumers' fixtures may too.
    public init(
        changeID: Int64, token: HistoryToken, entity: String, key: DatabaseValue, changeType: HistoryChangeType,
        updatedColumns: [String]? = nil, tombstone: [String: DatabaseValue]? = nil
    ) {
        self.changeID = changeID
        self.token = token
        self.entity = entity
        self.key = key
        self.changeType = changeType
        self.updatedColumns = updatedColumns
        self.tombstone = tombstone
    }
}

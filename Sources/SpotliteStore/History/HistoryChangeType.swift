/// What happened to a row. Stored as 0, 1, 2 in `spotlite_change.type`.
public enum HistoryChangeType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A row was inserted.
    case insert = 0
    /// A row was updated; the change lists the columns that changed.
    case update = 1
    /// A row was deleted; the change carries its tombstone.
    case delete = 2

    /// `insert`, `update` or `delete`.
    public var description: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }
}

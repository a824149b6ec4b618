/// What happened to a row. Stored as 0, 1, 2 in `spotlite_change.type`.
public enum HistoryChangeType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case insert = 0
    case update = 1
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

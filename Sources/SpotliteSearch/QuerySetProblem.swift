/// Why a relevance query set cannot be read (``SearchError/invalidQuerySet(source:line:reason:)``).
public enum QuerySetProblem: Sendable, Hashable, CustomStringConvertible {
    /// A line has no tab between the key and the query.
    case noTab
    /// A line's key (before the tab) is empty.
    case emptyKey
    /// A line's query (after the tab) is empty or white space.
    case emptyQuery
    /// The file cannot be read as UTF-8 text; `message` is the system's own words.
    case unreadable(message: String)

    /// The problem as the error's description words it.
    public var description: String {
        switch self {
        case .noTab: return "there is no tab between the key and the query"
        case .emptyKey: return "the key is empty"
        case .emptyQuery: return "the query is empty"
        case let .unreadable(message): return "the file cannot be read as UTF-8 text (\(message))"
        }
    }
}

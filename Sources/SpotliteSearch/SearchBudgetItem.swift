/// The part of a search's budget that a request went over (``SearchError/overBudget(query:exceeded:)``), with the
/// figures: what was asked and what a search allows. Its description says it, and what to do instead.
public enum SearchBudgetItem: Sendable, Hashable, CustomStringConvertible {
    /// More hits than a search returns (``SearchRequest/maximumLimit``).
    case hits(requested: Int, maximum: Int)
    /// A page deeper than a search skips (``SearchRequest/maximumOffset``).
    case offset(requested: Int, maximum: Int)
    /// A text longer than a search reads (``SearchRequest/maximumQueryBytes``), in UTF-8 bytes.
    case bytes(count: Int, maximum: Int)
    /// More words than a search looks for (``SearchRequest/maximumWords``).
    case words(count: Int, maximum: Int)
    /// A match that ran past the request's time limit (``SearchRequest/timeLimit``), in seconds.
    case time(limit: Double)

    /// What went over, and what to do instead.
    public var description: String {
        switch self {
        case let .hits(requested, maximum):
            return "a search returns at most \(maximum) hits, not \(requested); page through more with the offset"
        case let .offset(requested, maximum):
            return "a search skips at most \(maximum) hits, not \(requested); narrow the query or sort instead of paging that deep"
        case let .bytes(count, maximum):
            return "the text has \(count) bytes, more than \(maximum); shorten it"
        case let .words(count, maximum):
            return "it has \(count) words, more than \(maximum); keep the words that matter"
        case let .time(limit):
            return "it ran longer than its time limit of \(limit) s; narrow it with more words, a filter or fewer wildcards"
        }
    }
}

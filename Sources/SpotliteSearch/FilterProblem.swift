/// What a keyword filter's text lacks (``SearchError/invalidFilter(_:reason:)``).
public enum FilterProblem: Sendable, Hashable, CustomStringConvertible {
    /// There is no colon, so no value.
    case noColon
    /// Nothing comes before the colon.
    case noField
    /// Nothing comes after the colon (most likely a lost value, such as an unset shell variable).
    case noValue

    /// What the filter lacks, as the error's description words it after the filter.
    public var description: String {
        switch self {
        case .noColon: return "has no value"
        case .noField: return "has no field before the colon"
        case .noValue: return "has no value after the colon"
        }
    }
}

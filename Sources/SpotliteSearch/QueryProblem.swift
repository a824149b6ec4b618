/// Why a query cannot be searched (``SearchError/invalidQuery(query:reason:)``): whether the engine's parser could
/// not read it, or Spotlite read it and says what to write instead. Front ends decide the way out by the case.
public enum QueryProblem: Sendable, Hashable, CustomStringConvertible {
    /// The engine's query parser (or its wildcard expansion) could not read the text. Xapian's message names the
    /// problem only, so the way out is to check the syntax (``SearchRecovery/checkQuerySyntax``).
    case syntax(engineMessage: String)
    /// Spotlite refuses the text (a range's bound, a field searched on its own, a NUL, operators read as words),
    /// saying what to write instead: the explanation is the way out.
    case refused(explanation: String)

    /// The problem in an engine's message. The shim's own range and field processors explain what to write
    /// instead after a semicolon, but can only throw Xapian's `QueryParserError`: their messages are refusals;
    /// Xapian's parser names the problem only.
    static func engine(_ message: String) -> QueryProblem {
        message.contains("; ") ? .refused(explanation: message) : .syntax(engineMessage: message)
    }

    /// The message, as the error's description shows it.
    public var description: String {
        switch self {
        case let .syntax(message): return message
        case let .refused(explanation): return explanation
        }
    }
}

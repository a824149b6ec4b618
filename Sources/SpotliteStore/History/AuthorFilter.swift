/// Which transactions to keep by author. `nil` in a set stands for writes by programs that do not use
/// Spotlite (they have no author).
public enum AuthorFilter: Sendable, Hashable {
    /// Every author, and unattributed writes.
    case all
    /// Only these authors (nil: unattributed writes).
    case including(Set<String?>)
    /// Every author but these (nil: unattributed writes).
    case excluding(Set<String?>)

    /// The SQL condition on `column` and its arguments; nil when every author matches.
    func sqlCondition(column: String) -> (sql: String, arguments: [String])? {
        switch self {
        case .all:
            return nil
        case .including(let authors):
            let named = authors.compactMap { $0 }.sorted()
            var terms: [String] = []
            if !named.isEmpty { terms.append("\(column) IN (\(Self.placeholders(named.count)))") }
            if authors.contains(nil) { terms.append("\(column) IS NULL") }
            return (terms.isEmpty ? "0" : "(" + terms.joined(separator: " OR ") + ")", named)
        case .excluding(let authors):
            let named = authors.compactMap { $0 }.sorted()
            // NULL NOT IN (...) is NULL, so the unattributed case needs its own term.
            let nullTerm = authors.contains(nil) ? "\(column) IS NOT NULL" : "\(column) IS NULL"
            let joiner = authors.contains(nil) ? " AND " : " OR "
            if named.isEmpty { return (authors.contains(nil) ? nullTerm : "1", []) }
            return ("(" + nullTerm + joiner + "\(column) NOT IN (\(Self.placeholders(named.count))))", named)
        }
    }

    package static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}

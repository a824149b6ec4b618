/// Why a field named by a search cannot be used the way asked (``SearchError/unknownField(_:reason:)``); each
/// description says what the search, or the configuration, takes instead.
public enum FieldProblem: Sendable, Hashable, CustomStringConvertible {
    /// A filter names a field no entity has; `keywordFields` lists those a filter takes, sorted.
    case noSuchFilterField(keywordFields: [String])
    /// A filter names a field that is not a keyword field.
    case notAKeywordField(FieldType, keywordFields: [String])
    /// A sort names a field no entity has.
    case noSuchSortField
    /// A sort names a field that is not a sortable number or date field.
    case notSortable
    /// A facet names a field no entity has.
    case noSuchFacetField
    /// A facet names a field that is not a keyword field with `facet = true`.
    case notAFacet

    /// The problem and what to use instead.
    public var description: String {
        switch self {
        case let .noSuchFilterField(keywordFields):
            return "no entity has a field of that name; filters take keyword fields: \(Self.list(keywordFields))"
        case let .notAKeywordField(type, keywordFields):
            return "it is a \(type) field; filters take keyword fields: \(Self.list(keywordFields))"
        case .noSuchSortField:
            return "no entity has a field of that name; sort by relevance or by a sortable number or date field"
        case .notSortable:
            return "it is not a sortable number or date field; add `sortable = true` to a number or date field to sort by it"
        case .noSuchFacetField:
            return "no entity has a field of that name; facets take keyword fields with `facet = true`"
        case .notAFacet:
            return "it is not a facet; add `facet = true` to a keyword field to count its values"
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "(none configured)" : names.joined(separator: ", ")
    }
}

/// How the indexer treats one column of an entity.
public enum FieldType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Full text: stemmed, with positions for phrase search; may carry a `weight` and a query `prefix`.
    case text
    /// Exact values, searchable as filters `field:value`; may be split by a `separator` and counted as a `facet`.
    case keyword
    /// A number, range-searchable as `field:LOW..HIGH`; sortable when asked.
    case number
    /// An ISO-8601 date or date-time, or Unix seconds; range-searchable and sortable like `number`.
    case date
    /// Not searchable; returned with every hit.
    case stored

    /// The type's name in `spotlite.toml`.
    public var description: String { rawValue }
}

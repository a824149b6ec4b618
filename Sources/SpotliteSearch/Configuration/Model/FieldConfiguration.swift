/// One indexed column of an entity, as written in `[entities.NAME.fields]`.
///
/// Which options apply depends on `type`: `weight` and `prefix` on `text`; `facet` and `separator` on `keyword`;
/// `sortable` on `number` and `date`; `store` on every type (`stored` fields are always stored).
/// ``SpotliteConfiguration/validate(source:)`` rejects options set on a type they do not apply to.
public struct FieldConfiguration: Sendable, Hashable {
    /// The largest accepted `weight`: Xapian keeps within-document frequencies in 32 bits, and weights beyond this
    /// add nothing to ranking but risk overflowing them on long texts.
    public static let maximumWeight = 1000

    /// The column name, an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
    public var name: String
    /// How the column is indexed.
    public var type: FieldType
    /// Scales the term frequencies of a `text` field (1 ... ``maximumWeight``); 1 for other types.
    public var weight: Int
    /// For a `text` field, the lowercase word that searches this field alone in queries (`prefix:word`).
    public var prefix: String?
    /// Whether the value is returned with hits. Always true for `stored` fields.
    public var store: Bool
    /// For a `keyword` field, whether its values are counted in search results.
    public var facet: Bool
    /// For a `keyword` field, the non-empty string that splits one column value into several keywords.
    public var separator: String?
    /// For a `number` or `date` field, whether results can be sorted by it.
    public var sortable: Bool
    /// For a `text` field, whether word positions are indexed (phrase search, `"…"`, needs them). Leaving them out
    /// makes rebuilds faster and the index smaller.
    public var positions: Bool

    /// Creates a field; prefer the per-type factories (``text(_:weight:prefix:store:positions:)`` and the others), which only
    /// offer the options that apply.
    public init(
        name: String,
        type: FieldType,
        weight: Int = 1,
        prefix: String? = nil,
        store: Bool = false,
        facet: Bool = false,
        separator: String? = nil,
        sortable: Bool = false,
        positions: Bool = true
    ) {
        self.name = name
        self.type = type
        self.weight = weight
        self.prefix = prefix
        self.store = type == .stored ? true : store
        self.facet = facet
        self.separator = separator
        self.sortable = sortable
        self.positions = positions
    }

    /// A full-text field.
    public static func text(_ name: String, weight: Int = 1, prefix: String? = nil, store: Bool = false,
                            positions: Bool = true) -> Self {
        Self(name: name, type: .text, weight: weight, prefix: prefix, store: store, positions: positions)
    }

    /// An exact-value field, filterable as `name:value`.
    public static func keyword(_ name: String, facet: Bool = false, separator: String? = nil, store: Bool = false) -> Self {
        Self(name: name, type: .keyword, store: store, facet: facet, separator: separator)
    }

    /// A numeric field, range-searchable as `name:LOW..HIGH`.
    public static func number(_ name: String, sortable: Bool = false, store: Bool = false) -> Self {
        Self(name: name, type: .number, store: store, sortable: sortable)
    }

    /// A date field (ISO-8601 text or Unix seconds), range-searchable as `name:LOW..HIGH`.
    public static func date(_ name: String, sortable: Bool = false, store: Bool = false) -> Self {
        Self(name: name, type: .date, store: store, sortable: sortable)
    }

    /// A field returned with hits but not searchable.
    public static func stored(_ name: String) -> Self {
        Self(name: name, type: .stored)
    }

    /// Whether the value is returned with hits (`store = true`, or a `stored` field).
    public var isStored: Bool { store || type == .stored }

    /// Whether queries can reach this field at all.
    public var isSearchable: Bool { type != .stored }
}

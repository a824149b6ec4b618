/// One entity: a table of the same name in the store, and the columns the index takes from it.
public struct EntityConfiguration: Sendable, Hashable {
    /// The entity and table name, an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
    public var name: String
    /// The primary-key column (text or integer). It may also be listed among the fields.
    public var key: String
    /// The columns recorded in the tombstone of each delete, in file order: the key or field names.
    public var preserveOnDelete: [String]
    /// The indexed columns, in file order.
    public var fields: [FieldConfiguration]
    /// The text fields whose text is embedded for semantic search, in this order (the `embed` key); empty: the
    /// entity is not embedded. Needs ``SpotliteConfiguration/embeddings``.
    public var embed: [String] = []

    /// Creates an entity; call ``SpotliteConfiguration/validate(source:)`` to check it.
    public init(name: String, key: String, preserveOnDelete: [String] = [], fields: [FieldConfiguration], embed: [String] = []) {
        self.name = name
        self.key = key
        self.preserveOnDelete = preserveOnDelete
        self.fields = fields
        self.embed = embed
    }

    /// The field with this exact name, if any.
    public func field(named name: String) -> FieldConfiguration? {
        fields.first { $0.name == name }
    }

    /// The table's columns as the store creates them: the key first, then every field that is not the key.
    public var columns: [String] {
        [key] + fields.map(\.name).filter { $0 != key }
    }
}

/// A tracked entity: a table of the same name, its key column and its attributes.
///
/// Every committed insert, update and delete of the table's rows is recorded in the store's history.
public struct EntityDescription: Sendable, Hashable {
    /// The table name: an identifier (`[A-Za-z_][A-Za-z0-9_]*`) that does not start with `spotlite_`.
    public var name: String
    /// The key column: unique, identifies a row in history.
    public var key: String
    /// The type of the key column.
    public var keyType: KeyType
    /// The other columns. Listing the key here too is allowed when its type agrees with `keyType`.
    public var attributes: [AttributeDescription]
    /// Columns whose values are kept in the tombstone of each delete (Core Data's
    /// `preservesValueInHistoryOnDeletion`). They must be the key or attributes, and not of type `.blob`.
    public var preserveOnDelete: [String]

    /// An entity; ``StoreModel/validate()`` checks its names.
    public init(
        name: String,
        key: String,
        keyType: KeyType = .text,
        attributes: [AttributeDescription] = [],
        preserveOnDelete: [String] = []
    ) {
        self.name = name
        self.key = key
        self.keyType = keyType
        self.attributes = attributes
        self.preserveOnDelete = preserveOnDelete
    }

    /// The key followed by the attributes, without repeating the key: the columns a created table has.
    public var columns: [AttributeDescription] {
        [AttributeDescription(name: key, type: keyType.attributeType)]
            + attributes.filter { $0.name != key }
    }

    /// The description of the column with this name (the key or an attribute).
    public func column(named name: String) -> AttributeDescription? {
        columns.first { $0.name == name }
    }
}

/// One column of an entity, other than its key (the key may be listed too, with the key's type).
public struct AttributeDescription: Sendable, Hashable {
    /// The column name: an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
    public var name: String
    /// The column's storage type.
    public var type: AttributeType

    /// An attribute (a column) named `name` of `type`.
    public init(name: String, type: AttributeType = .text) {
        self.name = name
        self.type = type
    }
}

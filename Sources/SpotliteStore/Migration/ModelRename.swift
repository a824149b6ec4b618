/// A rename between two model versions. Names alone cannot tell a rename from a removal plus an addition, so a
/// stage is told (Core Data's renaming identifier); without it the old column or table and its data are dropped.
public enum ModelRename: Sendable, Hashable {
    /// The entity `from` of the current version is called `to` in the next one; its table keeps its rows.
    case entity(from: String, to: String)
    /// The attribute `from` is called `to` in the next version; `entity` is the entity's name in the next version.
    case attribute(entity: String, from: String, to: String)
}

extension SpotliteStoreError {
    /// A change between two model versions that SQLite cannot make in place (``unsupportedChange(stage:reason:)``);
    /// each description says how to make it in a custom stage instead.
    public enum UnsupportedChange: Sendable, Hashable, CustomStringConvertible {
        /// The entity's key column or its type changes.
        case keyChange(entity: String, from: String, fromType: KeyType, to: String, toType: KeyType)
        /// An attribute's new type is one its existing column cannot hold.
        case typeChange(entity: String, attribute: String, from: AttributeType, to: AttributeType)

        /// The change and the way to make it.
        public var description: String {
            switch self {
            case let .keyChange(entity, from, fromType, to, toType):
                return "entity \(entity) changes its key from \(from) (\(fromType.rawValue)) to \(to) (\(toType.rawValue)); SQLite cannot change a primary key in place: add a new entity with the new key, copy the rows in a custom stage's didMigrate, and drop the old entity"
            case let .typeChange(entity, attribute, from, to):
                return "attribute \(entity).\(attribute) changes type from \(from.rawValue) to \(to.rawValue), which its column cannot hold; add an attribute under a new name, copy the values in a custom stage's didMigrate, and drop the old attribute"
            }
        }
    }

    /// A rename of a stage (``ModelRename``) that does not fit its versions (``invalidRename(stage:reason:)``).
    public enum RenameProblem: Sendable, Hashable, CustomStringConvertible {
        /// An entity rename whose old name is not in the current version.
        case entitySourceMissing(from: String, to: String)
        /// An entity rename whose new name is not in the next version.
        case entityTargetMissing(from: String, to: String)
        /// An entity rename to a name the current version already has.
        case entityTargetExists(from: String, to: String)
        /// An entity named by two entity renames.
        case entityRenamedTwice(from: String, to: String)
        /// An attribute rename of an entity the next version does not have.
        case attributeEntityMissing(entity: String, from: String, to: String)
        /// An attribute rename of an entity that is new in the next version.
        case attributeEntityIsNew(entity: String, from: String, to: String)
        /// An attribute rename whose old name the entity (`source`: its name in the current version) lacks.
        case attributeSourceMissing(entity: String, source: String, from: String, to: String)
        /// An attribute rename whose new name the entity lacks in the next version.
        case attributeTargetMissing(entity: String, from: String, to: String)
        /// An attribute rename to a name the entity (`source`: its name in the current version) already has.
        case attributeTargetExists(entity: String, source: String, from: String, to: String)
        /// An attribute named by two attribute renames.
        case attributeRenamedTwice(entity: String, from: String, to: String)

        /// The problem and, where there is one, the way out.
        public var description: String {
            switch self {
            case let .entitySourceMissing(from, to):
                return "entity \(from) is renamed to \(to), but the current version has no entity \(from)"
            case let .entityTargetMissing(from, to):
                return "entity \(from) is renamed to \(to), but the next version has no entity \(to)"
            case let .entityTargetExists(from, to):
                return "entity \(from) cannot be renamed to \(to): the current version already has an entity \(to); rename or drop that one in an earlier stage"
            case let .entityRenamedTwice(from, to):
                return "entity \(from) or \(to) appears in two entity renames; keep one"
            case let .attributeEntityMissing(entity, from, to):
                return "\(Self.attribute(entity, from, to)), but the next version has no entity \(entity) (name the entity as the next version does)"
            case let .attributeEntityIsNew(entity, from, to):
                return "\(Self.attribute(entity, from, to)), but entity \(entity) is new in the next version, so it has no attributes to rename"
            case let .attributeSourceMissing(entity, source, from, to):
                return "\(Self.attribute(entity, from, to)), but \(source) has no attribute \(from) in the current version"
            case let .attributeTargetMissing(entity, from, to):
                return "\(Self.attribute(entity, from, to)), but \(entity) has no attribute \(to) in the next version"
            case let .attributeTargetExists(entity, source, from, to):
                return "\(Self.attribute(entity, from, to)), but \(source) already has an attribute \(to); drop or rename it in an earlier stage"
            case let .attributeRenamedTwice(entity, from, to):
                return "attribute \(entity).\(from) or \(to) appears in two attribute renames; keep one"
            }
        }

        private static func attribute(_ entity: String, _ from: String, _ to: String) -> String {
            "attribute \(entity).\(from) is renamed to \(to)"
        }
    }
}

/// The entities a store tracks.
public struct StoreModel: Sendable, Hashable {
    /// The tracked entities, each a table of the same name.
    public var entities: [EntityDescription]

    /// A model of these entities; ``validate()`` checks it.
    public init(entities: [EntityDescription]) {
        self.entities = entities
    }

    /// The entity with exactly this name, if any.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    /// Checks names, keys and tombstone columns; throws the first problem found.
    ///
    /// - Throws: ``SpotliteStoreError/invalidIdentifier(_:role:)``, ``SpotliteStoreError/reservedIdentifier(_:role:)``,
    ///   ``SpotliteStoreError/duplicateName(_:scope:)``, ``SpotliteStoreError/conflictingKeyType(entity:key:keyType:attributeType:)``,
    ///   ``SpotliteStoreError/unknownColumn(_:entity:role:)`` or ``SpotliteStoreError/blobInTombstone(entity:column:)``.
    public func validate() throws(SpotliteStoreError) {
        var seenEntities: Set<String> = []
        for entity in entities {
            try Identifier.validate(entity.name, as: .table, role: .entityName)
            // SQLite table names ignore case, so two entities differing only by case would share a table.
            guard seenEntities.insert(entity.name.lowercased()).inserted else {
                throw .duplicateName(entity.name, scope: .entities)
            }
            try Identifier.validate(entity.key, as: .column, role: .key(entity: entity.name))
            var seenColumns: Set<String> = []
            for attribute in entity.attributes {
                try Identifier.validate(attribute.name, as: .column, role: .attribute(entity: entity.name))
                guard seenColumns.insert(attribute.name.lowercased()).inserted else {
                    throw .duplicateName(attribute.name, scope: .attributes(entity: entity.name))
                }
                if attribute.name == entity.key, attribute.type != entity.keyType.attributeType {
                    throw .conflictingKeyType(
                        entity: entity.name, key: entity.key, keyType: entity.keyType, attributeType: attribute.type)
                }
            }
            for name in entity.preserveOnDelete {
                guard let column = entity.column(named: name) else {
                    throw .unknownColumn(name, entity: entity.name, role: .preserveOnDelete)
                }
                if column.type == .blob {
                    throw .blobInTombstone(entity: entity.name, column: name)
                }
            }
        }
    }
}

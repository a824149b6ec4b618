/// Derives the schema change between two model versions. Names compare ignoring case, as SQLite's do.
struct SchemaDiff {
    let stage: String
    let current: StoreModel
    let next: StoreModel
    let renames: [ModelRename]

    func changes() throws(SpotliteStoreError) -> [SchemaChange] {
        let entitySources = try entitySourcesByNextName()
        let attributeRenames = try attributeRenamesByEntity(entitySources: entitySources)

        var renamedTables: [SchemaChange] = []
        var alteredColumns: [SchemaChange] = []
        var createdTables: [SchemaChange] = []
        var mappedSources: Set<String> = []
        for entity in next.entities {
            guard let source = entitySources[entity.name.lowercased()] else {
                createdTables.append(.createTable(entity))
                continue
            }
            mappedSources.insert(source.name.lowercased())
            if source.name.lowercased() != entity.name.lowercased() {
                renamedTables.append(.renameTable(from: source.name, to: entity.name))
            }
            alteredColumns += try columnChanges(from: source, to: entity,
                                               renames: attributeRenames[entity.name.lowercased()] ?? [:])
        }
        let droppedTables = current.entities.filter { !mappedSources.contains($0.name.lowercased()) }
            .map { SchemaChange.dropTable($0.name) }
        return renamedTables + alteredColumns + createdTables + droppedTables
    }

    /// The entity of the current version each entity of the next version continues, by lowercased next name.
    private func entitySourcesByNextName() throws(SpotliteStoreError) -> [String: EntityDescription] {
        var renamedTo: [String: EntityDescription] = [:]
        var renamedAway: Set<String> = []
        for case let .entity(from, to) in renames {
            guard let source = entity(named: from, in: current) else {
                throw .invalidRename(stage: stage, reason: .entitySourceMissing(from: from, to: to))
            }
            guard entity(named: to, in: next) != nil else {
                throw .invalidRename(stage: stage, reason: .entityTargetMissing(from: from, to: to))
            }
            guard entity(named: to, in: current) == nil else {
                throw .invalidRename(stage: stage, reason: .entityTargetExists(from: from, to: to))
            }
            guard renamedAway.insert(from.lowercased()).inserted, renamedTo[to.lowercased()] == nil else {
                throw .invalidRename(stage: stage, reason: .entityRenamedTwice(from: from, to: to))
            }
            renamedTo[to.lowercased()] = source
        }
        var sources: [String: EntityDescription] = [:]
        for entity in next.entities {
            let name = entity.name.lowercased()
            if let source = renamedTo[name] {
                sources[name] = source
            } else if !renamedAway.contains(name), let source = self.entity(named: entity.name, in: current) {
                sources[name] = source
            }
        }
        return sources
    }

    /// For each entity of the next version (lowercased), its renamed attributes: new name (lowercased) → old name.
    private func attributeRenamesByEntity(
        entitySources: [String: EntityDescription]
    ) throws(SpotliteStoreError) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for case let .attribute(entityName, from, to) in renames {
            guard let target = entity(named: entityName, in: next) else {
                throw .invalidRename(stage: stage, reason: .attributeEntityMissing(entity: entityName, from: from, to: to))
            }
            guard let source = entitySources[entityName.lowercased()] else {
                throw .invalidRename(stage: stage, reason: .attributeEntityIsNew(entity: entityName, from: from, to: to))
            }
            guard source.columns.contains(where: { $0.name.lowercased() == from.lowercased() }) else {
                throw .invalidRename(stage: stage, reason: .attributeSourceMissing(entity: entityName, source: source.name, from: from, to: to))
            }
            guard target.columns.contains(where: { $0.name.lowercased() == to.lowercased() }) else {
                throw .invalidRename(stage: stage, reason: .attributeTargetMissing(entity: entityName, from: from, to: to))
            }
            guard !source.columns.contains(where: { $0.name.lowercased() == to.lowercased() }) else {
                throw .invalidRename(stage: stage, reason: .attributeTargetExists(entity: entityName, source: source.name, from: from, to: to))
            }
            var renamesOfEntity = result[target.name.lowercased(), default: [:]]
            guard renamesOfEntity[to.lowercased()] == nil, !renamesOfEntity.values.contains(where: { $0.lowercased() == from.lowercased() }) else {
                throw .invalidRename(stage: stage, reason: .attributeRenamedTwice(entity: entityName, from: from, to: to))
            }
            renamesOfEntity[to.lowercased()] = from
            result[target.name.lowercased()] = renamesOfEntity
        }
        return result
    }

    private func columnChanges(from source: EntityDescription, to entity: EntityDescription,
                               renames: [String: String]) throws(SpotliteStoreError) -> [SchemaChange] {
        let table = entity.name
        // Old column name (lowercased) → new name, for renamed columns.
        let newNames = Dictionary(uniqueKeysWithValues: renames.map { ($0.value.lowercased(), $0.key) })
        let targetColumns = Dictionary(entity.columns.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

        let sourceKeyNext = newNames[source.key.lowercased()] ?? source.key
        guard sourceKeyNext.lowercased() == entity.key.lowercased(), source.keyType == entity.keyType else {
            throw .unsupportedChange(stage: stage, reason: .keyChange(entity: entity.name, from: source.key, fromType: source.keyType, to: entity.key, toType: entity.keyType))
        }

        var renamed: [SchemaChange] = []
        var dropped: [SchemaChange] = []
        var matched: Set<String> = []
        for column in source.columns {
            let nextName = newNames[column.name.lowercased()] ?? column.name
            guard let target = targetColumns[nextName.lowercased()] else {
                dropped.append(.dropColumn(table: table, column: column.name))
                continue
            }
            matched.insert(target.name.lowercased())
            if target.type != column.type, !target.type.accepts(ColumnAffinity(declaredType: column.type.declaredSQLType)) {
                throw .unsupportedChange(stage: stage, reason: .typeChange(entity: entity.name, attribute: target.name, from: column.type, to: target.type))
            }
            if newNames[column.name.lowercased()] != nil {
                renamed.append(.renameColumn(table: table, from: column.name, to: target.name))
            }
        }
        let added = entity.columns.filter { !matched.contains($0.name.lowercased()) }
            .map { SchemaChange.addColumn(table: table, column: $0) }
        return renamed + dropped + added
    }

    private func entity(named name: String, in model: StoreModel) -> EntityDescription? {
        model.entities.first { $0.name.lowercased() == name.lowercased() }
    }
}

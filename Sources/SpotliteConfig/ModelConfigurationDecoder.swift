import SpotliteSearch
import SpotliteStore
import TOMLKit

/// Turns the `[model]` table into a ``ModelConfiguration``, checking keys and value types. Whether the versions and
/// stages fit together is checked by ``SpotliteConfiguration/validate(source:)`` (see `SpotliteConfiguration+StagedMigration`).
struct ModelConfigurationDecoder {
    let source: String
    let order: TOMLKeyOrder

    private static let modelKeys = ["version", "versions", "stages"]
    private static let versionKeys = ["entities"]
    private static let entityKeys = ["key", "columns"]
    private static let stageKeys = ["from", "to", "will_migrate", "did_migrate", "renames"]
    private static let renameKeys = ["entity", "attribute", "to"]

    private static let columnsExpectation = "a table of column types, e.g. { id = \"number\", title = \"text\" }"
    private static let stagesExpectation = "an array of stage tables, e.g. [[model.stages]] with from = \"v1\" and to = \"v2\""
    private static let renameExpectation = "{ entity = \"Old\", to = \"New\" } or { entity = \"Entity\", attribute = \"old\", to = \"new\" }"
    private static let sqlFileExpectation = "the path of a SQL file, e.g. \"config/migrations/v1-v2.sql\""

    func decode(_ table: TOMLTable, at path: ConfigurationKeyPath) throws(ConfigurationError) -> ModelConfiguration {
        try checkKeys(table, at: path, known: Self.modelKeys)
        guard let version = try string(table, "version", at: path, expected: Expectation.modelVersion) else {
            throw error(path.appending("version"), .missingKey,
                        "missing; expected the name of the version [entities] describes, e.g. version = \"v2\"")
        }
        var model = ModelConfiguration(version: version)
        if let versions = try subtable(table, "versions", at: path, expected: "a table of versions, e.g. [model.versions.v1.entities.Track]") {
            let versionsPath = path.appending("versions")
            model.versions = try ordered(versions, at: versionsPath).map { name throws(ConfigurationError) in
                try decodeVersion(named: name, in: versions, at: versionsPath)
            }
        }
        if let value = table["stages"] {
            guard let stages = value.array else {
                throw error(path.appending("stages"), .wrongType, "expected \(Self.stagesExpectation); found \(ConfigurationDecoder.describe(value))")
            }
            for (index, element) in stages.enumerated() {
                guard let stage = element.table else {
                    throw error(at: "\(path.appending("stages"))[\(index + 1)]", .wrongType,
                                "expected \(Self.stagesExpectation); found \(ConfigurationDecoder.describe(element))")
                }
                model.stages.append(try decodeStage(stage, at: "\(path.appending("stages"))[\(index + 1)]"))
            }
        }
        return model
    }

    private func decodeVersion(named name: String, in versions: TOMLTable, at path: ConfigurationKeyPath) throws(ConfigurationError) -> ModelVersionConfiguration {
        let versionPath = path.appending(name)
        guard let version = versions[name]?.table else {
            throw error(versionPath, .wrongType, "expected a table with entities, e.g. [\(versionPath).entities.Track]")
        }
        try checkKeys(version, at: versionPath, known: Self.versionKeys)
        guard let entities = try subtable(version, "entities", at: versionPath, expected: "a table of entities") else {
            throw error(versionPath.appending("entities"), .missingKey,
                        "missing; expected the version's tables, e.g. [\(versionPath).entities.Track] with key and columns")
        }
        let entitiesPath = versionPath.appending("entities")
        let decoded = try ordered(entities, at: entitiesPath).map { entityName throws(ConfigurationError) in
            try decodeEntity(named: entityName, in: entities, at: entitiesPath)
        }
        return ModelVersionConfiguration(name: name, entities: decoded)
    }

    private func decodeEntity(named name: String, in entities: TOMLTable, at path: ConfigurationKeyPath) throws(ConfigurationError) -> VersionEntityConfiguration {
        let entityPath = path.appending(name)
        if let problem = Identifier.problemWithEntityName(name) {
            throw error(entityPath, .invalidValue, problem)
        }
        guard let entity = entities[name]?.table else {
            throw error(entityPath, .wrongType, "expected a table with key and columns")
        }
        try checkKeys(entity, at: entityPath, known: Self.entityKeys)
        guard let key = try string(entity, "key", at: entityPath, expected: Expectation.key) else {
            throw error(entityPath.appending("key"), .missingKey, "missing; expected \(Expectation.key)")
        }
        guard let columns = try subtable(entity, "columns", at: entityPath, expected: Self.columnsExpectation) else {
            throw error(entityPath.appending("columns"), .missingKey, "missing; expected \(Self.columnsExpectation)")
        }
        let columnsPath = entityPath.appending("columns")
        var decoded: [VersionEntityConfiguration.Column] = []
        for column in ordered(columns, at: columnsPath) {
            if let problem = Identifier.problemWithColumnName(column) {
                throw error(columnsPath.appending(column), .invalidValue, problem)
            }
            let typeName = try string(columns, column, at: columnsPath, expected: Expectation.fieldType) ?? ""
            guard let type = FieldType(rawValue: typeName) else {
                throw error(columnsPath.appending(column), .invalidValue,
                            "expected \(Expectation.fieldType); found \(ConfigurationKeyPath.quoted(typeName))")
            }
            decoded.append(.init(name: column, type: type))
        }
        return VersionEntityConfiguration(name: name, key: key, columns: decoded)
    }

    private func decodeStage(_ stage: TOMLTable, at path: String) throws(ConfigurationError) -> MigrationStageConfiguration {
        for key in stage.keys.sorted() where !Self.stageKeys.contains(key) {
            throw error(at: "\(path).\(ConfigurationKeyPath.render(key))", .unknownKey,
                        "unknown key \(ConfigurationKeyPath.quoted(key)); \(Expectation.knownKeys(Self.stageKeys))")
        }
        func text(_ key: String, expected: String) throws(ConfigurationError) -> String? {
            guard let value = stage[key] else { return nil }
            guard let text = value.string else {
                throw error(at: "\(path).\(key)", .wrongType, "expected \(expected); found \(ConfigurationDecoder.describe(value))")
            }
            return text
        }
        guard let from = try text("from", expected: Expectation.modelVersion) else {
            throw error(at: "\(path).from", .missingKey, "missing; expected the version the stage starts from, e.g. from = \"v1\"")
        }
        guard let to = try text("to", expected: Expectation.modelVersion) else {
            throw error(at: "\(path).to", .missingKey, "missing; expected the version the stage ends at, e.g. to = \"v2\"")
        }
        var result = MigrationStageConfiguration(
            from: from, to: to,
            willMigrate: try text("will_migrate", expected: Self.sqlFileExpectation),
            didMigrate: try text("did_migrate", expected: Self.sqlFileExpectation))
        for (key, file) in [("will_migrate", result.willMigrate), ("did_migrate", result.didMigrate)] where file?.isEmpty == true {
            throw error(at: "\(path).\(key)", .invalidValue, "expected \(Self.sqlFileExpectation); found \"\"")
        }
        if let value = stage["renames"] {
            guard let renames = value.array else {
                throw error(at: "\(path).renames", .wrongType,
                            "expected an array of renames such as \(Self.renameExpectation); found \(ConfigurationDecoder.describe(value))")
            }
            for (index, element) in renames.enumerated() {
                result.renames.append(try decodeRename(element, at: "\(path).renames[\(index + 1)]"))
            }
        }
        return result
    }

    private func decodeRename(_ value: TOMLValueConvertible, at path: String) throws(ConfigurationError) -> ModelRename {
        guard let rename = value.table else {
            throw error(at: path, .wrongType, "expected \(Self.renameExpectation); found \(ConfigurationDecoder.describe(value))")
        }
        for key in rename.keys.sorted() where !Self.renameKeys.contains(key) {
            throw error(at: path, .unknownKey, "unknown key \(ConfigurationKeyPath.quoted(key)); \(Expectation.knownKeys(Self.renameKeys))")
        }
        var names: [String: String] = [:]
        for key in Self.renameKeys {
            guard let value = rename[key] else { continue }
            guard let name = value.string, !name.isEmpty else {
                throw error(at: "\(path).\(key)", .wrongType, "expected a non-empty name; found \(ConfigurationDecoder.describe(value))")
            }
            names[key] = name
        }
        guard let entity = names["entity"], let to = names["to"] else {
            throw error(at: path, .missingKey, "expected \(Self.renameExpectation); entity and to are required")
        }
        if let attribute = names["attribute"] {
            return .attribute(entity: entity, from: attribute, to: to)
        }
        return .entity(from: entity, to: to)
    }

    // MARK: - Values

    private func ordered(_ table: TOMLTable, at path: ConfigurationKeyPath) -> [String] {
        order.ordered(table.keys, under: path.components)
    }

    private func checkKeys(_ table: TOMLTable, at path: ConfigurationKeyPath, known: [String]) throws(ConfigurationError) {
        for key in ordered(table, at: path) where !known.contains(key) {
            throw error(path.appending(key), .unknownKey, "unknown key \(ConfigurationKeyPath.quoted(key)); \(Expectation.knownKeys(known))")
        }
    }

    private func subtable(_ parent: TOMLTable, _ key: String, at path: ConfigurationKeyPath, expected: String) throws(ConfigurationError) -> TOMLTable? {
        guard let value = parent[key] else { return nil }
        guard let table = value.table else {
            throw error(path.appending(key), .wrongType, "expected \(expected); found \(ConfigurationDecoder.describe(value))")
        }
        return table
    }

    private func string(_ parent: TOMLTable, _ key: String, at path: ConfigurationKeyPath, expected: String) throws(ConfigurationError) -> String? {
        guard let value = parent[key] else { return nil }
        guard let text = value.string else {
            throw error(path.appending(key), .wrongType, "expected \(expected); found \(ConfigurationDecoder.describe(value))")
        }
        return text
    }

    private func error(_ path: ConfigurationKeyPath, _ kind: ConfigurationError.Kind, _ message: String) -> ConfigurationError {
        ConfigurationError(source: source, at: path, kind: kind, message)
    }

    private func error(at path: String, _ kind: ConfigurationError.Kind, _ message: String) -> ConfigurationError {
        ConfigurationError(source: source, keyPath: path, kind: kind, message: message)
    }
}

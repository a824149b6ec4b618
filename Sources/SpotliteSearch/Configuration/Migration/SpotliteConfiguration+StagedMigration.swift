import Foundation
import GRDB
import SpotliteStore

extension SpotliteConfiguration {
    /// The staged migration manager `[model]` describes, with each stage's SQL files read: open the store with it
    /// (`SpotliteStore.init(path:migrationManager:options:)`) or run it (`spotlite migrate run`). Nil without
    /// `[model]`.
    ///
    /// - Parameters:
    ///   - source: how errors name this configuration, usually its file.
    ///   - loadingSQLFiles: false to leave the SQL files unread, for status checks and for opening a store that is up
    ///     to date; a custom stage of such a manager fails if it ever runs.
    /// - Throws: ``ConfigurationError`` naming the `[model]` key at fault: versions and stages that do not fit
    ///   together, or a SQL file that cannot be read.
    public func stagedMigrationManager(source: String = "configuration",
                                       loadingSQLFiles: Bool = true) throws(ConfigurationError) -> StagedMigrationManager? {
        guard let model else { return nil }
        try validateModel(source: source)
        let versions = modelVersions()
        var stages: [MigrationStage] = []
        for (index, stage) in model.stages.enumerated() {
            let path = "model.stages[\(index + 1)]"
            let current = versions[stage.from]!, next = versions[stage.to]!
            guard stage.isCustom else {
                stages.append(.lightweight(migratingFrom: current, to: next, renames: stage.renames))
                continue
            }
            let willMigrate = try stage.willMigrate.map { file throws(ConfigurationError) in
                try Self.sqlHandler(file: file, keyPath: path + ".will_migrate", source: source, loading: loadingSQLFiles)
            }
            let didMigrate = try stage.didMigrate.map { file throws(ConfigurationError) in
                try Self.sqlHandler(file: file, keyPath: path + ".did_migrate", source: source, loading: loadingSQLFiles)
            }
            stages.append(.custom(migratingFrom: current, to: next, renames: stage.renames,
                                  willMigrate: willMigrate, didMigrate: didMigrate))
        }
        do {
            return stages.isEmpty ? try StagedMigrationManager(version: versions[model.version]!) : try StagedMigrationManager(stages)
        } catch {
            throw configurationError(for: error, source: source)
        }
    }

    /// Every version `[model]` describes, by name: the older ones of `[model.versions]` and the current one, whose
    /// entities are `[entities]`. Empty without `[model]`.
    public func modelVersions() -> [String: ModelVersion] {
        guard let model else { return [:] }
        var result = [model.version: ModelVersion(name: model.version, model: storeModel)]
        for version in model.versions {
            let entities = version.entities.map { entity in
                let attributes = entity.columns.filter { $0.name != entity.key }.map {
                    AttributeDescription(name: $0.name, type: $0.type.attributeType)
                }
                let keyType: KeyType = entity.columns.first { $0.name == entity.key }?.type == .number ? .integer : .text
                // Deletes made by a stage's willMigrate keep the tombstone columns the entity has today.
                let columnNames = Set([entity.key] + entity.columns.map(\.name))
                let preserved = self.entity(named: entity.name)?.preserveOnDelete.filter { columnNames.contains($0) } ?? []
                return EntityDescription(name: entity.name, key: entity.key, keyType: keyType, attributes: attributes,
                                         preserveOnDelete: preserved)
            }
            result[version.name] = ModelVersion(name: version.name, model: StoreModel(entities: entities))
        }
        return result
    }

    /// Checks that `[model]` fits together: names, a chain of stages from an older version to the current one that
    /// uses every older version, and schema changes that can be made. SQL files are read later, by
    /// ``stagedMigrationManager(source:)``.
    func validateModel(source: String) throws(ConfigurationError) {
        guard let model else { return }
        func failure(_ keyPath: String, _ kind: ConfigurationError.Kind, _ message: String) -> ConfigurationError {
            ConfigurationError(source: source, keyPath: keyPath, kind: kind, message: message)
        }
        guard Self.isVersionName(model.version) else {
            throw failure("model.version", .invalidValue,
                          "expected \(Expectation.modelVersion); found \(ConfigurationKeyPath.quoted(model.version))")
        }
        var known: Set<String> = [model.version]
        for version in model.versions {
            let path = ConfigurationKeyPath("model", "versions", version.name).description
            guard Self.isVersionName(version.name) else {
                throw failure(path, .invalidValue, "expected \(Expectation.modelVersion)")
            }
            guard known.insert(version.name).inserted else {
                throw failure(path, .conflict, "\(version.name) is the version [entities] describes ([model] version); give the older version another name")
            }
            for entity in version.entities where !entity.columns.contains(where: { $0.name == entity.key }) {
                throw failure(path + ".entities.\(ConfigurationKeyPath.render(entity.name)).columns", .missingKey,
                              "the key column \(entity.key) is missing; list it with its type, e.g. \(entity.key) = \"number\"")
            }
        }
        let names = ([model.version] + model.versions.map(\.name)).joined(separator: ", ")
        for (index, stage) in model.stages.enumerated() {
            for (key, name) in [("from", stage.from), ("to", stage.to)] where !known.contains(name) {
                throw failure("model.stages[\(index + 1)].\(key)", .invalidValue,
                              "unknown version \(ConfigurationKeyPath.quoted(name)); known versions: \(names); describe it in [model.versions.\(ConfigurationKeyPath.render(name))]")
            }
        }
        if let last = model.stages.last, last.to != model.version {
            throw failure("model.stages[\(model.stages.count)].to", .invalidValue,
                          "the last stage ends at \(last.to), but [entities] describe version \(model.version); add a stage from \(last.to) to \(model.version), or set [model] version")
        }
        let used = Set(model.stages.flatMap { [$0.from, $0.to] })
        for version in model.versions where !used.contains(version.name) {
            throw failure(ConfigurationKeyPath("model", "versions", version.name).description, .invalidValue,
                          "no stage starts from or ends at version \(version.name); add a [[model.stages]] entry for it or remove it")
        }
        let versions = modelVersions()
        // The chain and the schema changes are checked by building the manager with placeholder handlers.
        let stages = model.stages.map { stage -> MigrationStage in
            stage.isCustom
                ? .custom(migratingFrom: versions[stage.from]!, to: versions[stage.to]!, renames: stage.renames)
                : .lightweight(migratingFrom: versions[stage.from]!, to: versions[stage.to]!, renames: stage.renames)
        }
        do {
            _ = stages.isEmpty ? try StagedMigrationManager(version: versions[model.version]!) : try StagedMigrationManager(stages)
        } catch {
            throw configurationError(for: error, source: source)
        }
    }

    /// Makes the SQL file paths of `[[model.stages]]` absolute, as the loaders do for `store` and `index`.
    package mutating func resolveMigrationFiles(against baseDirectory: String) {
        guard var model else { return }
        for index in model.stages.indices {
            model.stages[index].willMigrate = model.stages[index].willMigrate.map { Self.resolvePath($0, against: baseDirectory) }
            model.stages[index].didMigrate = model.stages[index].didMigrate.map { Self.resolvePath($0, against: baseDirectory) }
        }
        self.model = model
    }

    private static func isVersionName(_ name: String) -> Bool {
        !name.isEmpty && name.trimmingCharacters(in: .whitespacesAndNewlines) == name
    }

    /// The key a manager's complaint is about: the stage it names, the version, or `[model]` as a whole.
    private func configurationError(for error: SpotliteStoreError, source: String) -> ConfigurationError {
        var keyPath = "model.stages"
        var stageName: String?
        switch error {
        case let .brokenChain(stage, _), let .unsupportedChange(stage, _), let .invalidRename(stage, _):
            stageName = stage
        case let .invalidModel(version, _):
            keyPath = version == model?.version ? "entities" : ConfigurationKeyPath("model", "versions", version).description
        case .repeatedVersion, .conflictingVersion:
            break
        default:
            keyPath = "model"
        }
        if let stageName, let index = model?.stages.firstIndex(where: { "\($0.from) → \($0.to)" == stageName }) {
            keyPath = "model.stages[\(index + 1)]"
        }
        let kind: ConfigurationError.Kind = if case .invalidModel = error { .invalidValue } else { .conflict }
        return ConfigurationError(source: source, keyPath: keyPath, kind: kind, message: error.description)
    }

    private static func sqlHandler(file: String, keyPath: String, source: String,
                                   loading: Bool) throws(ConfigurationError) -> MigrationStage.Handler {
        func failure(_ reason: String) -> ConfigurationError {
            ConfigurationError(source: source, keyPath: keyPath, kind: .unreadableFile,
                               message: "cannot read the migration file \(file): \(reason); check the path (relative paths start at the current directory)")
        }
        guard loading else {
            let message = "the migration file \(file) was not loaded (stagedMigrationManager(loadingSQLFiles: false)); load it to run this stage"
            return { _ in throw ConfigurationError(source: source, keyPath: keyPath, kind: .unreadableFile, message: message) }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else { throw failure("no such file") }
        guard !isDirectory.boolValue else { throw failure("it is a directory") }
        guard let data = FileManager.default.contents(atPath: file) else { throw failure("it cannot be opened") }
        guard let sql = String(data: data, encoding: .utf8) else { throw failure("it is not UTF-8 text") }
        guard !sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw failure("it is empty") }
        return { db in try db.execute(sql: sql) }
    }
}

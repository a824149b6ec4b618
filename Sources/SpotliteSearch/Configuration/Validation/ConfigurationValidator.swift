import Foundation
import SpotliteStore

/// The value rules every configuration must meet, whether it came from a file or was built in Swift: names,
/// ranges, options that fit their field type, and settings that contradict each other.
struct ConfigurationValidator {
    let source: String

    func validate(_ configuration: SpotliteConfiguration) throws(ConfigurationError) {
        try validatePaths(of: configuration)
        if let count = configuration.shards.count, !(1...IndexShards.maximumCount).contains(count) {
            throw error(at: ConfigurationKeyPath("shards"), .invalidValue, "expected \(Expectation.shards); found \(count)")
        }
        if let locations = configuration.shards.locations { try validateShardLocations(locations, indexPath: configuration.indexPath, storePath: configuration.storePath) }
        try validateRemote(configuration.remote)
        try validateHistory(configuration.history, indexerAuthor: configuration.indexer.author)
        try validateIndexer(configuration.indexer)
        try validateSearch(configuration.ranking)
        try validateSynonyms(configuration.synonyms)
        try validateEntities(configuration.entities)
        try validateEmbeddings(configuration)
        if configuration.searchMode.needsEmbeddings, configuration.embeddings == nil {
            throw error(at: ConfigurationKeyPath("search").appending("mode"), .invalidValue,
                        "\(configuration.searchMode.rawValue) search needs embeddings: add an [embeddings] table (model = \"\(EmbeddingsConfiguration.defaultModel)\") and embed = [fields] to an entity, or set mode = \"keyword\"")
        }
        let textFields = Set(configuration.entities.flatMap { $0.fields.filter { $0.type == .text }.map(\.name) })
        for name in configuration.indexer.spelling ?? [] where !textFields.contains(name) {
            throw error(
                at: ConfigurationKeyPath("indexer").appending("spelling"), .invalidValue,
                "expected \(Expectation.spellingFields); found \(ConfigurationKeyPath.quoted(name)), which is not a text field of any entity"
            )
        }
    }

    /// `embed` names text fields of its entity, and needs `[embeddings]`; `[embeddings]` needs an entity to embed.
    private func validateEmbeddings(_ configuration: SpotliteConfiguration) throws(ConfigurationError) {
        for entity in configuration.entities where !entity.embed.isEmpty {
            let path = ConfigurationKeyPath("entities", entity.name).appending("embed")
            var seen: Set<String> = []
            for name in entity.embed {
                guard let field = entity.field(named: name) else {
                    let texts = entity.fields.filter { $0.type == .text }.map { ConfigurationKeyPath.quoted($0.name) }
                    throw error(at: path, .invalidValue,
                                "expected \(Expectation.embedFields); found \(ConfigurationKeyPath.quoted(name)), which is not a field of \(entity.name) (its text fields: \(texts.isEmpty ? "none" : texts.joined(separator: ", ")))")
                }
                guard field.type == .text else {
                    throw error(at: path, .invalidValue,
                                "expected \(Expectation.embedFields); found \(ConfigurationKeyPath.quoted(name)), a \(field.type.rawValue) field: only text fields are embedded")
                }
                guard seen.insert(name).inserted else {
                    throw error(at: path, .invalidValue, "expected each field once; found \(ConfigurationKeyPath.quoted(name)) twice")
                }
            }
            if configuration.embeddings == nil {
                throw error(at: path, .missingKey,
                            "embedding \(entity.name) needs an [embeddings] table naming the model, e.g. [embeddings] with model = \"\(EmbeddingsConfiguration.defaultModel)\"; add it, or remove embed")
            }
        }
        guard let embeddings = configuration.embeddings else { return }
        let table = ConfigurationKeyPath("embeddings")
        if embeddings.model.trimmingCharacters(in: .whitespaces).isEmpty {
            throw error(at: table.appending("model"), .invalidValue, "expected \(Expectation.embeddingModel); found \"\"")
        }
        if embeddings.modelsPath?.isEmpty == true {
            throw error(at: table.appending("models"), .invalidValue, "expected \(Expectation.path); found \"\"")
        }
        if embeddings.indexPath?.isEmpty == true {
            throw error(at: table.appending("index"), .invalidValue, "expected \(Expectation.path); found \"\"")
        }
        if embeddings.author.isEmpty || embeddings.author.trimmingCharacters(in: .whitespaces) != embeddings.author {
            throw error(at: table.appending("author"), .invalidValue, "expected \(Expectation.authorName); found \(ConfigurationKeyPath.quoted(embeddings.author))")
        }
        if embeddings.author == configuration.indexer.author {
            throw error(at: table.appending("author"), .conflict,
                        "expected an author other than the indexer's (\(ConfigurationKeyPath.quoted(configuration.indexer.author))): each consumer keeps its own position; use \"\(EmbeddingsConfiguration.defaultAuthor)\"")
        }
        if embeddings.batchSize < 1 {
            throw error(at: table.appending("batch_size"), .invalidValue, "expected \(Expectation.batchSize); found \(embeddings.batchSize)")
        }
        if !configuration.entities.isEmpty, !configuration.entities.contains(where: { !$0.embed.isEmpty }) {
            throw error(at: table, .missingKey,
                        "no entity is embedded: add embed = [\"FIELD\", …] with its text fields to an entity, e.g. [entities.\(configuration.entities[0].name)] embed = [\(configuration.entities[0].fields.first { $0.type == .text }.map { "\"\($0.name)\"" } ?? "\"title\"")], or remove [embeddings]")
        }
    }

    private func validateSearch(_ ranking: RankingOptions) throws(ConfigurationError) {
        let search = ConfigurationKeyPath("search")
        func check(_ valid: Bool, _ key: ConfigurationKeyPath, _ expected: String, _ found: Double) throws(ConfigurationError) {
            guard !valid else { return }
            let shown = found.rounded() == found && abs(found) < 1e15 ? String(Int(found)) : String(found)
            throw error(at: key, .invalidValue, "expected \(expected); found \(shown)")
        }
        try check(ranking.k1.isFinite && ranking.k1 >= 0, search.appending("k1"), Expectation.bm25K1, ranking.k1)
        try check(ranking.b.isFinite && (0...1).contains(ranking.b), search.appending("b"), Expectation.bm25B, ranking.b)
        if let proximity = ranking.proximity {
            let path = search.appending("proximity")
            try check(proximity.window >= 2, path.appending("window"), Expectation.proximityWindow, Double(proximity.window))
            try check(proximity.weight.isFinite && proximity.weight > 0, path.appending("weight"), Expectation.positiveWeight,
                      proximity.weight)
            try check(proximity.depth >= 1, path.appending("depth"), Expectation.atLeastOne, Double(proximity.depth))
        }
        if let expansion = ranking.expansion {
            let path = search.appending("expand")
            try check(expansion.documents >= 1, path.appending("documents"), Expectation.atLeastOne, Double(expansion.documents))
            try check(expansion.terms >= 1, path.appending("terms"), Expectation.atLeastOne, Double(expansion.terms))
            try check(expansion.weight.isFinite && expansion.weight > 0, path.appending("weight"), Expectation.positiveWeight,
                      expansion.weight)
            try check(expansion.minimumWords >= 1, path.appending("min_words"), Expectation.atLeastOne,
                      Double(expansion.minimumWords))
        }
    }

    private func validateSynonyms(_ synonyms: [String: [String]]) throws(ConfigurationError) {
        let path = ConfigurationKeyPath("search").appending("synonyms")
        for key in synonyms.keys.sorted() {
            if let problem = QuerySynonyms.problem(withWords: key) {
                throw error(at: path.appending(key), .invalidValue, "the key \(ConfigurationKeyPath.quoted(key)) \(problem)")
            }
            let values = synonyms[key]!
            if values.isEmpty {
                throw error(at: path.appending(key), .invalidValue, "expected \(Expectation.synonymList); found an empty array (remove the key, or list its synonyms)")
            }
            for value in values {
                if let problem = QuerySynonyms.problem(withWords: value) {
                    throw error(at: path.appending(key), .invalidValue, "the synonym \(ConfigurationKeyPath.quoted(value)) \(problem)")
                }
            }
        }
    }

    // MARK: - Paths, history, indexer

    private func validatePaths(of configuration: SpotliteConfiguration) throws(ConfigurationError) {
        let store = ConfigurationKeyPath("store"), index = ConfigurationKeyPath("index")
        if configuration.storePath.isEmpty {
            throw error(at: store, .invalidValue, "expected \(Expectation.path), e.g. \"\(SpotliteConfiguration.defaultStorePath)\"; found \"\"")
        }
        if configuration.indexPath.isEmpty {
            throw error(at: index, .invalidValue, "expected \(Expectation.path), e.g. \"\(SpotliteConfiguration.defaultIndexPath)\"; found \"\"")
        }
        // The file system reads a path up to its first NUL: the rest would be dropped without a word.
        for (key, value) in [(store, configuration.storePath), (index, configuration.indexPath)] where value.utf8.contains(0) {
            throw error(at: key, .invalidValue, "expected \(Expectation.path) without NUL characters; found one in \(ConfigurationKeyPath.quoted(value.replacingOccurrences(of: "\0", with: "\\0")))")
        }
        let base = SpotliteConfiguration.currentDirectory
        if SpotliteConfiguration.resolvePath(configuration.storePath, against: base)
            == SpotliteConfiguration.resolvePath(configuration.indexPath, against: base) {
            throw error(
                at: index, .conflict,
                "expected a path other than the store's; found \(ConfigurationKeyPath.quoted(configuration.indexPath)) for both; "
                    + "give the index its own directory, e.g. \"\(SpotliteConfiguration.defaultIndexPath)\""
            )
        }
    }

    /// A list of 1 to 64 distinct locations, each a non-empty path or a remote host with a port in range.
    private func validateShardLocations(_ locations: [ShardLocation], indexPath: String,
                                        storePath: String) throws(ConfigurationError) {
        let key = ConfigurationKeyPath("shards")
        guard (1...IndexShards.maximumCount).contains(locations.count) else {
            throw error(at: key, .invalidValue, "expected \(Expectation.shards); found a list of \(locations.count) locations")
        }
        var seen: [String: Int] = [:]
        for (offset, location) in locations.enumerated() {
            let position = offset + 1
            switch location {
            case let .path(path):
                if path.isEmpty || path.utf8.contains(0) {
                    throw error(at: key, .invalidValue, "expected \(Expectation.shardLocation); found \(ConfigurationKeyPath.quoted(path.replacingOccurrences(of: "\0", with: "\\0"))) at position \(position)")
                }
            case let .remote(host, port):
                if !ShardLocation.isHost(host) {
                    throw error(at: key, .invalidValue, "expected \(Expectation.shardLocation); found \(ConfigurationKeyPath.quoted(location.description)), whose host is not a host name or address, at position \(position)")
                }
                if !(1...65535).contains(port) {
                    throw error(at: key, .invalidValue, "expected \(Expectation.shardLocation); found \(ConfigurationKeyPath.quoted(location.description)), whose port \(port) is out of range, at position \(position)")
                }
            }
            if let first = seen[location.identity] {
                throw error(at: key, .conflict, "expected distinct shard locations; found \(ConfigurationKeyPath.quoted(location.description)) at position \(position), the same shard as position \(first); give each shard its own database")
            }
            seen[location.identity] = position
            if case .path = location {
                for (name, path) in [("index", indexPath), ("store", storePath)] where ShardLocation.path(path).identity == location.identity {
                    throw error(at: key, .conflict, "expected shard locations apart from the \(name); found \(ConfigurationKeyPath.quoted(location.description)) at position \(position), which is the \(name)'s path; give the shard a directory of its own")
                }
            }
        }
    }

    private func validateHistory(_ history: HistoryConfiguration, indexerAuthor: String) throws(ConfigurationError) {
        let path = ConfigurationKeyPath("history")
        try validateAuthors(history.authors, at: path.appending("authors"))
        try validateAuthors(history.batchAuthors, at: path.appending("batch_authors"))
        try validateAuthors(history.mirrorAuthors, at: path.appending("mirror_authors"))
        for author in history.batchAuthors where !history.authors.contains(author) {
            throw error(
                at: path.appending("batch_authors"), .conflict,
                "expected authors also listed in history.authors (write-only authors are some of them); found "
                    + "\(ConfigurationKeyPath.quoted(author)), which is not; add it to history.authors or remove it here"
            )
        }
        if history.batchAuthors.contains(indexerAuthor) {
            throw error(
                at: path.appending("batch_authors"), .conflict,
                "expected no indexer among the write-only authors; found the indexer's author "
                    + "\(ConfigurationKeyPath.quoted(indexerAuthor)), and cleanup would then delete history the index "
                    + "has not read; remove it here"
            )
        }
        if let maximum = history.maximumDuration, !Self.isValidDuration(maximum) {
            throw error(at: path.appending("maximum_duration"), .invalidValue, "expected \(Expectation.duration); found \(maximum)")
        }
        switch history.deletionSchedule {
        case .none:
            break
        case let .every(interval) where !Self.isValidDuration(interval):
            throw error(at: path.appending("clean").appending("every"), .invalidValue, "expected \(Expectation.duration); found \(interval)")
        case let .notifications(count) where count < 1:
            throw error(at: path.appending("clean").appending("notifications"), .invalidValue, "expected \(Expectation.notifications); found \(count)")
        case .every, .notifications:
            break
        }
    }

    private static func isValidDuration(_ duration: Duration) -> Bool {
        duration > .zero && duration <= .seconds(DurationText.maximumSeconds)
    }

    private func validateAuthors(_ authors: [String], at path: ConfigurationKeyPath) throws(ConfigurationError) {
        var seen: Set<String> = []
        for author in authors {
            if let problem = Self.problemWithAuthor(author) {
                throw error(at: path, .invalidValue, problem)
            }
            if !seen.insert(author).inserted {
                throw error(
                    at: path, .conflict,
                    "expected each author once; found \(ConfigurationKeyPath.quoted(author)) twice; remove the repetition"
                )
            }
        }
    }

    static func problemWithAuthor(_ author: String) -> String? {
        let isTrimmed = author.first?.isWhitespace == false && author.last?.isWhitespace == false
        let hasControl = author.unicodeScalars.contains { $0.properties.generalCategory == .control }
        return isTrimmed && !hasControl ? nil : "expected \(Expectation.authorName); found \(ConfigurationKeyPath.quoted(author))"
    }

    /// Both timeouts from a millisecond to an hour: zero would wait for ever on a hung server.
    private func validateRemote(_ remote: RemoteConfiguration) throws(ConfigurationError) {
        let path = ConfigurationKeyPath("remote")
        for (key, value) in [("connect_timeout", remote.connectTimeout), ("timeout", remote.timeout)]
        where value < .milliseconds(1) || value > RemoteConfiguration.maximumTimeout {
            throw error(at: path.appending(key), .invalidValue, "expected \(Expectation.timeout); found \(DurationText.formatTimeout(value))")
        }
    }

    private func validateIndexer(_ indexer: IndexerConfiguration) throws(ConfigurationError) {
        let path = ConfigurationKeyPath("indexer")
        if let problem = Self.problemWithAuthor(indexer.author) {
            throw error(at: path.appending("author"), .invalidValue, problem)
        }
        if indexer.stemmerName == nil {
            throw error(
                at: path.appending("language"), .invalidValue,
                "expected \(Expectation.language); found \(ConfigurationKeyPath.quoted(indexer.language))"
            )
        }
        if !IndexerConfiguration.supportedStopwords.contains(indexer.stopwords) {
            throw error(
                at: path.appending("stopwords"), .invalidValue,
                "expected \(Expectation.stopwords); found \(ConfigurationKeyPath.quoted(indexer.stopwords))"
            )
        }
        if indexer.batchSize < 1 {
            throw error(at: path.appending("batch_size"), .invalidValue, "expected \(Expectation.batchSize); found \(indexer.batchSize)")
        }
    }

    // MARK: - Entities

    private func validateEntities(_ entities: [EntityConfiguration]) throws(ConfigurationError) {
        var entityNames: [String: String] = [:]
        var queryPrefixes = QueryPrefixRegistry()
        // The index keeps one plan per field name (its terms, its value slot), shared by every entity that has it.
        var fieldTypes: [String: (type: FieldType, path: ConfigurationKeyPath)] = [:]
        for entity in entities {
            let path = ConfigurationKeyPath("entities", entity.name)
            if let problem = Identifier.problemWithEntityName(entity.name) {
                throw error(at: path, .invalidValue, problem)
            }
            if let earlier = entityNames.updateValue(entity.name, forKey: entity.name.lowercased()) {
                throw error(
                    at: path, .conflict,
                    "expected entity names that differ ignoring case, as SQLite table names must; found "
                        + "\(ConfigurationKeyPath.quoted(earlier)) and \(ConfigurationKeyPath.quoted(entity.name)); rename one"
                )
            }
            try validateEntity(entity, at: path, queryPrefixes: &queryPrefixes)
            for field in entity.fields {
                let fieldPath = path.appending("fields").appending(field.name)
                guard let earlier = fieldTypes[field.name] else {
                    fieldTypes[field.name] = (field.type, fieldPath)
                    continue
                }
                if earlier.type != field.type {
                    throw error(
                        at: fieldPath, .conflict,
                        "expected field \(ConfigurationKeyPath.quoted(field.name)) to have one type in every entity, as "
                            + "the index shares it; found \(field.type) here and \(earlier.type) at \(earlier.path); "
                            + "rename one of them or give them one type"
                    )
                }
            }
        }
    }

    private func validateEntity(
        _ entity: EntityConfiguration, at path: ConfigurationKeyPath, queryPrefixes: inout QueryPrefixRegistry
    ) throws(ConfigurationError) {
        if let problem = Identifier.problemWithColumnName(entity.key) {
            throw error(at: path.appending("key"), .invalidValue, problem)
        }
        if entity.fields.isEmpty {
            throw error(
                at: path.appending("fields"), .invalidValue,
                "expected at least one field, e.g. title = { type = \"text\" }; found none"
            )
        }
        var fieldNames: [String: String] = [:]
        var textPrefixes: [String: String] = [:]
        for field in entity.fields {
            let fieldPath = path.appending("fields").appending(field.name)
            if let problem = Identifier.problemWithColumnName(field.name) {
                throw error(at: fieldPath, .invalidValue, problem)
            }
            if let earlier = fieldNames.updateValue(field.name, forKey: field.name.lowercased()) {
                throw error(
                    at: fieldPath, .conflict,
                    "expected field names that differ ignoring case, as SQLite column names must; found "
                        + "\(ConfigurationKeyPath.quoted(earlier)) and \(ConfigurationKeyPath.quoted(field.name)); rename one"
                )
            }
            try validateOptions(of: field, at: fieldPath)
            if let prefix = field.prefix {
                if let other = textPrefixes.updateValue(field.name, forKey: prefix) {
                    throw error(
                        at: fieldPath.appending("prefix"), .conflict,
                        "expected a prefix no other field of \(ConfigurationKeyPath.render(entity.name)) uses; found "
                            + "\(ConfigurationKeyPath.quoted(prefix)), already the prefix of field \(other); choose another"
                    )
                }
                try register(prefix, kind: .text, at: fieldPath.appending("prefix"), in: &queryPrefixes)
            }
            if field.type.isQueriedByName {
                try register(field.name, kind: field.type, at: fieldPath, in: &queryPrefixes)
            }
        }
        try validatePreserved(entity, at: path.appending("preserve_on_delete"))
    }

    private func validateOptions(of field: FieldConfiguration, at path: ConfigurationKeyPath) throws(ConfigurationError) {
        let misplaced: [(option: String, isSet: Bool)] = [
            ("weight", field.weight != 1), ("prefix", field.prefix != nil), ("facet", field.facet),
            ("separator", field.separator != nil), ("sortable", field.sortable),
        ]
        for (option, isSet) in misplaced where isSet && !field.type.optionKeys.contains(option) {
            throw error(at: path.appending(option), .invalidValue, Expectation.misplacedOption(option, on: field.type))
        }
        if !(1...FieldConfiguration.maximumWeight).contains(field.weight) {
            throw error(at: path.appending("weight"), .invalidValue, "expected \(Expectation.weight); found \(field.weight)")
        }
        if let prefix = field.prefix, !Self.isValidPrefix(prefix) {
            throw error(
                at: path.appending("prefix"), .invalidValue,
                "expected \(Expectation.prefix), at most \(Identifier.maximumLength) of them; found \(ConfigurationKeyPath.quoted(prefix))"
            )
        }
        if field.separator == "" {
            throw error(at: path.appending("separator"), .invalidValue, "expected \(Expectation.separator); found \"\"")
        }
        if field.type == .stored, !field.store {
            throw error(
                at: path.appending("store"), .invalidValue,
                "expected store = true or no store key: stored fields are always returned with hits; found false"
            )
        }
    }

    static func isValidPrefix(_ prefix: String) -> Bool {
        !prefix.isEmpty && prefix.unicodeScalars.count <= Identifier.maximumLength
            && prefix.unicodeScalars.allSatisfy { ("a"..."z").contains($0) }
    }

    private func validatePreserved(_ entity: EntityConfiguration, at path: ConfigurationKeyPath) throws(ConfigurationError) {
        let columns = entity.columns
        var seen: Set<String> = []
        for name in entity.preserveOnDelete {
            guard columns.contains(name) else {
                throw error(
                    at: path, .invalidValue,
                    "expected the key or field names (" + columns.joined(separator: ", ") + "); found "
                        + "\(ConfigurationKeyPath.quoted(name)); add it as a field or remove it here"
                )
            }
            if !seen.insert(name).inserted {
                throw error(at: path, .conflict, "expected each column once; found \(ConfigurationKeyPath.quoted(name)) twice")
            }
        }
    }

    // MARK: - Query prefixes

    /// What a word before `:` in a query means, across all entities: one query parser serves every entity, and
    /// Xapian refuses a name that is both a free-text prefix and a filter.
    private struct QueryPrefixRegistry {
        var owners: [String: (kind: FieldType, path: ConfigurationKeyPath)] = [:]
    }

    private func register(
        _ prefix: String, kind: FieldType, at path: ConfigurationKeyPath, in registry: inout QueryPrefixRegistry
    ) throws(ConfigurationError) {
        guard let owner = registry.owners[prefix] else {
            registry.owners[prefix] = (kind, path)
            return
        }
        guard owner.kind != kind else { return }
        throw error(
            at: path, .conflict,
            "expected \(ConfigurationKeyPath.quoted(prefix)) to mean one kind of search in queries; found it both as "
                + "\(kind.queryRole) here and as \(owner.kind.queryRole) at \(owner.path); rename the field or choose another prefix"
        )
    }

    private func error(at path: ConfigurationKeyPath, _ kind: ConfigurationError.Kind, _ message: String) -> ConfigurationError {
        ConfigurationError(source: source, at: path, kind: kind, message)
    }
}

private extension FieldType {
    var queryRole: String {
        switch self {
        case .text: "a text prefix"
        case .keyword: "a keyword filter"
        case .number: "a number range field"
        case .date: "a date range field"
        case .stored: "a stored field"
        }
    }
}

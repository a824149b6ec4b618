import SpotliteStore
import SpotliteSearch
import TOMLKit

/// Turns a parsed TOML document into a ``SpotliteConfiguration``, checking what only the document can tell: unknown and
/// missing keys, value types, durations, and options written on a field type they do not apply to. Value rules
/// shared with configurations built in Swift live in ``ConfigurationValidator``.
struct ConfigurationDecoder {
    let source: String
    let order: TOMLKeyOrder

    private static let rootKeys = ["store", "index", "shards", "history", "indexer", "entities", "model", "search", "remote", "embeddings"]
    private static let remoteKeys = ["connect_timeout", "timeout"]
    private static let historyKeys = [
        "authors", "batch_authors", "mirror_authors", "deliver_unattributed", "maximum_duration", "clean",
    ]
    private static let cleanKeys = ["every", "notifications"]
    private static let indexerKeys = ["author", "language", "stopwords", "batch_size", "spelling"]
    private static let embeddingsKeys = ["model", "models", "index", "author", "batch_size"]
    private static let searchKeys = ["mode", "k1", "b", "proximity", "expand", "stemming", "synonyms"]
    private static let proximityKeys = ["window", "weight", "depth"]
    private static let expandKeys = ["documents", "terms", "weight", "min_words"]
    private static let entityKeys = ["key", "preserve_on_delete", "fields", "embed"]
    private static let fieldKeys = ["type", "weight", "prefix", "positions", "store", "facet", "separator", "sortable"]

    func decode(_ root: TOMLTable) throws(ConfigurationError) -> SpotliteConfiguration {
        let document = Table(root, at: .root)
        try checkKeys(of: document, known: Self.rootKeys)
        var configuration = SpotliteConfiguration()
        if let store = try string(document, "store", expected: Expectation.path) {
            configuration.storePath = store
        }
        if let index = try string(document, "index", expected: Expectation.path) {
            configuration.indexPath = index
        }
        if let shards = try decodeShards(document) {
            configuration.shards = shards
        }
        if let remote = try table(document, "remote", expected: "a table ([remote])") {
            configuration.remote = try decodeRemote(remote)
        }
        if let history = try table(document, "history", expected: "a table ([history])") {
            configuration.history = try decodeHistory(history)
        }
        if let indexer = try table(document, "indexer", expected: "a table ([indexer])") {
            configuration.indexer = try decodeIndexer(indexer)
        }
        if let search = try table(document, "search", expected: "a table ([search])") {
            configuration.ranking = try decodeSearch(search)
            if let synonyms = try table(search, "synonyms", expected: Expectation.synonyms) {
                configuration.synonyms = try decodeSynonyms(synonyms)
            }
            if let mode = try string(search, "mode", expected: Expectation.searchMode) {
                guard let parsed = SearchMode(rawValue: mode) else {
                    throw error(at: search.path.appending("mode"), .invalidValue,
                                "expected \(Expectation.searchMode); found \(ConfigurationKeyPath.quoted(mode))")
                }
                configuration.searchMode = parsed
            }
        }
        if let embeddings = try table(document, "embeddings", expected: "a table ([embeddings])") {
            configuration.embeddings = try decodeEmbeddings(embeddings)
        }
        if let entities = try table(document, "entities", expected: Expectation.entities) {
            configuration.entities = try orderedKeys(of: entities).map { name throws(ConfigurationError) in
                try decodeEntity(named: name, in: entities)
            }
        }
        if let model = try table(document, "model", expected: "a table ([model])") {
            configuration.model = try ModelConfigurationDecoder(source: source, order: order).decode(model.table, at: model.path)
        }
        return configuration
    }

    /// `shards = 3` (local shards) or `shards = ["tcp://HOST:PORT", "path", …]` (a shard at each location). Syntax
    /// is checked here; ranges and duplicates by the validator, which also sees configurations built in Swift.
    private func decodeShards(_ document: Table) throws(ConfigurationError) -> IndexShards? {
        guard let value = document.table["shards"] else { return nil }
        if let count = value.int { return .count(count) }
        if let array = value.array, let position = array.firstIndex(where: { $0.int != nil }) {
            // `shards = [3, "tcp://…"]`: a count and locations mixed.
            throw error(at: document.path.appending("shards"), .wrongType,
                        "expected either a count alone (shards = 3) or a list of locations, each a path or \"tcp://HOST:PORT\"; found the number \(array[position].int!) at position \(position + 1) of the list; write the count alone, or one location per shard")
        }
        guard value.array != nil,
              let texts = try strings(document, "shards", expected: Expectation.shardLocation) else {
            throw typeError(document, "shards", expected: Expectation.shards, found: value)
        }
        var locations: [ShardLocation] = []
        for (position, text) in texts.enumerated() {
            switch ShardLocation.parse(text) {
            case let .success(location):
                locations.append(location)
            case let .failure(problem):
                throw error(at: document.path.appending("shards"), .invalidValue,
                            "expected \(Expectation.shardLocation); found \(problem) at position \(position + 1)")
            }
        }
        return .locations(locations)
    }

    // MARK: - Tables

    private func decodeHistory(_ history: Table) throws(ConfigurationError) -> HistoryConfiguration {
        try checkKeys(of: history, known: Self.historyKeys)
        var result = HistoryConfiguration()
        result.authors = try strings(history, "authors", expected: Expectation.authorList) ?? []
        result.batchAuthors = try strings(history, "batch_authors", expected: Expectation.authorList) ?? []
        result.mirrorAuthors = try strings(history, "mirror_authors", expected: Expectation.authorList) ?? []
        result.deliversUnattributedTransactions = try bool(history, "deliver_unattributed") ?? true
        if let text = try string(history, "maximum_duration", expected: Expectation.duration) {
            // "none" keeps unconsumed history forever: a lagging author then holds cleanup back indefinitely.
            result.maximumDuration = text == "none" ? nil : try duration(text, at: history.path.appending("maximum_duration"))
        }
        if let clean = history.table["clean"] {
            result.deletionSchedule = try decodeClean(clean, at: history.path.appending("clean"))
        }
        return result
    }

    private func decodeClean(_ value: TOMLValueConvertible, at path: ConfigurationKeyPath) throws(ConfigurationError) -> HistoryDeletionSchedule {
        if let text = value.string {
            guard text == "none" else {
                throw error(at: path, .invalidValue, "expected \(Expectation.deletionSchedule); found \(Self.describe(value))")
            }
            return .none
        }
        guard let table = value.table else {
            throw error(at: path, .wrongType, "expected \(Expectation.deletionSchedule); found \(Self.describe(value))")
        }
        let clean = Table(table, at: path)
        try checkKeys(of: clean, known: Self.cleanKeys)
        let every = try string(clean, "every", expected: Expectation.duration)
        let notifications = try integer(clean, "notifications", expected: Expectation.notifications)
        switch (every, notifications) {
        case let (text?, nil):
            return .every(try duration(text, at: path.appending("every")))
        case let (nil, count?):
            return .notifications(count)
        case (.some, .some):
            throw error(at: path, .conflict, "expected exactly one of every or notifications; found both; keep one")
        case (nil, nil):
            throw error(at: path, .missingKey, "expected \(Expectation.deletionSchedule); found an empty table")
        }
    }

    private func decodeRemote(_ remote: Table) throws(ConfigurationError) -> RemoteConfiguration {
        try checkKeys(of: remote, known: Self.remoteKeys)
        var result = RemoteConfiguration()
        for key in Self.remoteKeys {
            guard let text = try string(remote, key, expected: Expectation.timeout) else { continue }
            guard let duration = DurationText.parseTimeout(text) else {
                throw error(at: remote.path.appending(key), .invalidValue, "expected \(Expectation.timeout); found \(ConfigurationKeyPath.quoted(text))")
            }
            if key == "timeout" { result.timeout = duration } else { result.connectTimeout = duration }
        }
        return result
    }

    private func decodeIndexer(_ indexer: Table) throws(ConfigurationError) -> IndexerConfiguration {
        try checkKeys(of: indexer, known: Self.indexerKeys)
        var result = IndexerConfiguration()
        if let author = try string(indexer, "author", expected: Expectation.authorName) {
            result.author = author
        }
        if let language = try string(indexer, "language", expected: Expectation.language) {
            result.language = language
        }
        if let stopwords = try string(indexer, "stopwords", expected: Expectation.stopwords) {
            result.stopwords = stopwords
        }
        if let batchSize = try integer(indexer, "batch_size", expected: Expectation.batchSize) {
            result.batchSize = batchSize
        }
        if let spelling = try strings(indexer, "spelling", expected: Expectation.spellingFields) {
            result.spelling = spelling
        }
        return result
    }

    private func decodeEmbeddings(_ embeddings: Table) throws(ConfigurationError) -> EmbeddingsConfiguration {
        try checkKeys(of: embeddings, known: Self.embeddingsKeys)
        var result = EmbeddingsConfiguration()
        if let model = try string(embeddings, "model", expected: Expectation.embeddingModel) { result.model = model }
        result.modelsPath = try string(embeddings, "models", expected: Expectation.path)
        result.indexPath = try string(embeddings, "index", expected: Expectation.path)
        if let author = try string(embeddings, "author", expected: Expectation.authorName) { result.author = author }
        if let batchSize = try integer(embeddings, "batch_size", expected: Expectation.batchSize) { result.batchSize = batchSize }
        return result
    }

    private func decodeSearch(_ search: Table) throws(ConfigurationError) -> RankingOptions {
        try checkKeys(of: search, known: Self.searchKeys)
        var ranking = RankingOptions.measured
        if let k1 = try number(search, "k1", expected: Expectation.bm25K1) { ranking.k1 = k1 }
        if let b = try number(search, "b", expected: Expectation.bm25B) { ranking.b = b }
        if let stemming = try string(search, "stemming", expected: Expectation.stemming) {
            guard let strategy = RankingOptions.Stemming(rawValue: stemming) else {
                throw error(at: search.path.appending("stemming"), .invalidValue,
                            "expected \(Expectation.stemming); found \(ConfigurationKeyPath.quoted(stemming))")
            }
            ranking.stemming = strategy
        }
        if let value = search.table["proximity"] {
            let path = search.path.appending("proximity")
            if let flag = value.bool {
                ranking.proximity = flag ? .measured : nil
            } else if let table = value.table {
                let proximity = Table(table, at: path)
                try checkKeys(of: proximity, known: Self.proximityKeys)
                var boost = ProximityBoost.measured
                if let window = try integer(proximity, "window", expected: Expectation.proximityWindow) { boost.window = window }
                if let weight = try number(proximity, "weight", expected: Expectation.positiveWeight) { boost.weight = weight }
                if let depth = try integer(proximity, "depth", expected: Expectation.atLeastOne) { boost.depth = depth }
                ranking.proximity = boost
            } else {
                throw error(at: path, .wrongType, "expected \(Expectation.proximity); found \(Self.describe(value))")
            }
        }
        if let value = search.table["expand"] {
            let path = search.path.appending("expand")
            if let flag = value.bool {
                ranking.expansion = flag ? .measured : nil
            } else if let table = value.table {
                let expand = Table(table, at: path)
                try checkKeys(of: expand, known: Self.expandKeys)
                var expansion = QueryExpansion.measured
                if let documents = try integer(expand, "documents", expected: Expectation.atLeastOne) { expansion.documents = documents }
                if let terms = try integer(expand, "terms", expected: Expectation.atLeastOne) { expansion.terms = terms }
                if let weight = try number(expand, "weight", expected: Expectation.positiveWeight) { expansion.weight = weight }
                if let words = try integer(expand, "min_words", expected: Expectation.atLeastOne) { expansion.minimumWords = words }
                ranking.expansion = expansion
            } else {
                throw error(at: path, .wrongType, "expected \(Expectation.expand); found \(Self.describe(value))")
            }
        }
        return ranking
    }

    /// `synonyms = { db = ["database"], "text editor" = "editor" }`: a lone synonym may be written without brackets.
    private func decodeSynonyms(_ synonyms: Table) throws(ConfigurationError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for key in orderedKeys(of: synonyms) {
            if let single = synonyms.table[key]?.string {
                result[key] = [single]
            } else {
                result[key] = try strings(synonyms, key, expected: Expectation.synonymList) ?? []
            }
        }
        return result
    }

    private func decodeEntity(named name: String, in entities: Table) throws(ConfigurationError) -> EntityConfiguration {
        // The name is checked first: everything else about an entity with a hostile name is beside the point.
        if let problem = Identifier.problemWithEntityName(name) {
            throw error(at: entities.path.appending(name), .invalidValue, problem)
        }
        guard let entity = try table(entities, name, expected: Expectation.entity) else {
            throw error(at: entities.path.appending(name), .missingKey, "missing; expected \(Expectation.entity)")
        }
        try checkKeys(of: entity, known: Self.entityKeys)
        guard let key = try string(entity, "key", expected: Expectation.key) else {
            throw error(at: entity.path.appending("key"), .missingKey, "missing; expected \(Expectation.key)")
        }
        let preserved = try strings(entity, "preserve_on_delete", expected: Expectation.columnList) ?? []
        guard let fieldTable = try table(entity, "fields", expected: Expectation.fields) else {
            throw error(
                at: entity.path.appending("fields"), .missingKey,
                "missing; expected a table of fields, e.g. [\(entity.path.appending("fields"))] with title = { type = \"text\" }"
            )
        }
        let fields = try orderedKeys(of: fieldTable).map { fieldName throws(ConfigurationError) in
            try decodeField(named: fieldName, in: fieldTable)
        }
        let embed = try strings(entity, "embed", expected: Expectation.embedFields) ?? []
        return EntityConfiguration(name: name, key: key, preserveOnDelete: preserved, fields: fields, embed: embed)
    }

    private func decodeField(named name: String, in fields: Table) throws(ConfigurationError) -> FieldConfiguration {
        if let problem = Identifier.problemWithColumnName(name) {
            throw error(at: fields.path.appending(name), .invalidValue, problem)
        }
        guard let field = try table(fields, name, expected: Expectation.field) else {
            throw error(at: fields.path.appending(name), .missingKey, "missing; expected \(Expectation.field)")
        }
        try checkKeys(of: field, known: Self.fieldKeys)
        guard let typeName = try string(field, "type", expected: Expectation.fieldType) else {
            throw error(at: field.path.appending("type"), .missingKey, "missing; expected \(Expectation.fieldType)")
        }
        guard let type = FieldType(rawValue: typeName) else {
            throw error(
                at: field.path.appending("type"), .invalidValue,
                "expected \(Expectation.fieldType); found \(ConfigurationKeyPath.quoted(typeName))"
            )
        }
        for option in orderedKeys(of: field) where FieldType.optionKeys.contains(option) && !type.optionKeys.contains(option) {
            throw error(at: field.path.appending(option), .invalidValue, Expectation.misplacedOption(option, on: type))
        }
        let store = try bool(field, "store")
        if type == .stored, store == false {
            throw error(
                at: field.path.appending("store"), .invalidValue,
                "expected store = true or no store key: stored fields are always returned with hits; found false"
            )
        }
        return FieldConfiguration(
            name: name,
            type: type,
            weight: try integer(field, "weight", expected: Expectation.weight) ?? 1,
            prefix: try string(field, "prefix", expected: Expectation.prefix),
            store: store ?? false,
            facet: try bool(field, "facet") ?? false,
            separator: try string(field, "separator", expected: Expectation.separator),
            sortable: try bool(field, "sortable") ?? false,
            positions: try bool(field, "positions") ?? true
        )
    }

    // MARK: - Values

    /// A TOML table together with the key path that leads to it.
    private struct Table {
        let table: TOMLTable
        let path: ConfigurationKeyPath

        init(_ table: TOMLTable, at path: ConfigurationKeyPath) {
            self.table = table
            self.path = path
        }
    }

    private func orderedKeys(of table: Table) -> [String] {
        order.ordered(table.table.keys, under: table.path.components)
    }

    private func checkKeys(of table: Table, known: [String]) throws(ConfigurationError) {
        for key in orderedKeys(of: table) where !known.contains(key) {
            throw error(
                at: table.path.appending(key), .unknownKey,
                "unknown key \(ConfigurationKeyPath.quoted(key)); \(Expectation.knownKeys(known))"
            )
        }
    }

    private func table(_ parent: Table, _ key: String, expected: String) throws(ConfigurationError) -> Table? {
        guard let value = parent.table[key] else { return nil }
        guard let table = value.table else { throw typeError(parent, key, expected: expected, found: value) }
        return Table(table, at: parent.path.appending(key))
    }

    private func string(_ parent: Table, _ key: String, expected: String) throws(ConfigurationError) -> String? {
        guard let value = parent.table[key] else { return nil }
        guard let text = value.string else { throw typeError(parent, key, expected: expected, found: value) }
        return text
    }

    private func integer(_ parent: Table, _ key: String, expected: String) throws(ConfigurationError) -> Int? {
        guard let value = parent.table[key] else { return nil }
        guard let number = value.int else { throw typeError(parent, key, expected: expected, found: value) }
        return number
    }

    /// A number written as an integer or a floating-point value.
    private func number(_ parent: Table, _ key: String, expected: String) throws(ConfigurationError) -> Double? {
        guard let value = parent.table[key] else { return nil }
        if let number = value.double { return number }
        if let number = value.int { return Double(number) }
        throw typeError(parent, key, expected: expected, found: value)
    }

    private func bool(_ parent: Table, _ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = parent.table[key] else { return nil }
        guard let flag = value.bool else { throw typeError(parent, key, expected: Expectation.boolean, found: value) }
        return flag
    }

    private func strings(_ parent: Table, _ key: String, expected: String) throws(ConfigurationError) -> [String]? {
        guard let value = parent.table[key] else { return nil }
        guard let array = value.array else { throw typeError(parent, key, expected: expected, found: value) }
        var result: [String] = []
        for (position, element) in array.enumerated() {
            guard let text = element.string else {
                throw error(
                    at: parent.path.appending(key), .wrongType,
                    "expected \(expected); found \(Self.describe(element)) at position \(position + 1)"
                )
            }
            result.append(text)
        }
        return result
    }

    private func duration(_ text: String, at path: ConfigurationKeyPath) throws(ConfigurationError) -> Duration {
        guard let duration = DurationText.parse(text) else {
            throw error(at: path, .invalidValue, "expected \(Expectation.duration); found \(ConfigurationKeyPath.quoted(text))")
        }
        return duration
    }

    private func typeError(_ parent: Table, _ key: String, expected: String, found: TOMLValueConvertible) -> ConfigurationError {
        error(at: parent.path.appending(key), .wrongType, "expected \(expected); found \(Self.describe(found))")
    }

    private func error(at path: ConfigurationKeyPath, _ kind: ConfigurationError.Kind, _ message: String) -> ConfigurationError {
        ConfigurationError(source: source, at: path, kind: kind, message)
    }

    /// A value as an error message shows it: scalars literally, containers by kind.
    static func describe(_ value: TOMLValueConvertible) -> String {
        switch value.type {
        case .string: ConfigurationKeyPath.quoted(value.string ?? "")
        case .int: value.int.map { String($0) } ?? "an integer"
        case .double: value.double.map { "\($0) (a floating-point number)" } ?? "a floating-point number"
        case .bool: value.bool.map { String($0) } ?? "a boolean"
        case .array: "an array"
        case .table: "a table"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date-time"
        }
    }
}

/// Everything `config/spotlite.toml` says: where the store and the index live, how history is shared and
/// cleaned, how the indexer runs, and which entities and fields are indexed.
///
/// Load it with `init(contentsOf:baseDirectory:)` or `init(tomlString:source:baseDirectory:)` (module `SpotliteConfig`), which
/// check everything and throw a ``ConfigurationError`` naming the file, the key and what was expected; or build it
/// in Swift with ``init(storePath:indexPath:history:indexer:entities:)`` and check it with ``validate(source:)``.
///
/// Every key of the file is optional except, for each entity, `key` and a non-empty `fields` table, and, for each
/// field, `type`. An empty file is a valid configuration with no entities (enough for history-only use); callers
/// that index or import check ``entities`` themselves.
public struct SpotliteConfiguration: Sendable, Hashable {
    /// The store used when the file names none.
    public static let defaultStorePath = "Index/store.sqlite"
    /// The index used when the file names none.
    public static let defaultIndexPath = "Index/search"

    /// The SQLite store (created when missing). Loaders make it absolute.
    public var storePath: String
    /// The Xapian index directory (created when missing). Loaders make it absolute.
    public var indexPath: String
    /// The top-level `shards` key: how many Xapian databases the index is split into.
    public var shards: IndexShards = .automatic
    /// The `[remote]` table: connect and operation timeouts for shards on `xapian-tcpsrv` servers.
    public var remote = RemoteConfiguration()
    /// The `[history]` table.
    public var history: HistoryConfiguration
    /// The `[indexer]` table.
    public var indexer: IndexerConfiguration
    /// The `[entities.NAME]` tables, in file order.
    public var entities: [EntityConfiguration]
    /// The `[model]` table: model versions and migration stages (docs/migrations.md); nil when absent.
    public var model: ModelConfiguration?
    /// The `[search]` table: how searches weight and widen queries (default ``RankingOptions/measured``).
    public var ranking: RankingOptions = .measured
    /// The `[search] synonyms` table: each word or phrase also finds these words or phrases (``QuerySynonyms``).
    /// Applied when queries are parsed, so changing it needs no rebuild; empty: none.
    public var synonyms: [String: [String]] = [:]
    /// The `[search] mode` key: how `spotlite search` answers without `--mode`.
    public var searchMode: SearchMode = .keyword
    /// The `[embeddings]` table: the model and vectors of semantic and hybrid search; nil when absent (keyword
    /// search only).
    public var embeddings: EmbeddingsConfiguration?

    /// For each embedded entity (one with ``EntityConfiguration/embed`` fields), those fields; empty without
    /// ``embeddings``.
    public var embeddedFields: [String: [String]] {
        guard embeddings != nil else { return [:] }
        var fields: [String: [String]] = [:]
        for entity in entities where !entity.embed.isEmpty { fields[entity.name] = entity.embed }
        return fields
    }

    /// Creates a configuration in Swift. Paths are kept as given; call ``validate(source:)`` before use.
    public init(
        storePath: String = SpotliteConfiguration.defaultStorePath,
        indexPath: String = SpotliteConfiguration.defaultIndexPath,
        history: HistoryConfiguration = HistoryConfiguration(),
        indexer: IndexerConfiguration = IndexerConfiguration(),
        entities: [EntityConfiguration] = []
    ) {
        self.storePath = storePath
        self.indexPath = indexPath
        self.history = history
        self.indexer = indexer
        self.entities = entities
    }

    /// The entity with this exact name, if any.
    public func entity(named name: String) -> EntityConfiguration? {
        entities.first { $0.name == name }
    }
}

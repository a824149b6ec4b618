import Foundation
import Spotlite

/// What the figures share: the configuration (paths moved into the work directory), the corpus, and artifacts built
/// once on first use: the imported store, Spotlite's index of it, the FTS5 database.
///
/// Used from the suite's one task only.
final class BenchContext {
    let settings: RunSettings
    let configuration: SpotliteConfiguration
    let configurationPath: String
    let entity: EntityConfiguration
    let corpus: Corpus
    let workDirectory: String

    private var openedStore: SpotliteStore?
    private var builtFTS: FTS5Index?
    private var indexReady = false
    /// How long building the FTS5 database took.
    private(set) var ftsBuildSeconds = Double.nan

    init(settings: RunSettings, configuration: SpotliteConfiguration, configurationPath: String, entity: EntityConfiguration,
         corpus: Corpus, workDirectory: String) {
        var configuration = configuration
        configuration.storePath = workDirectory + "/store.sqlite"
        configuration.indexPath = workDirectory + "/index"
        self.settings = settings
        self.configuration = configuration
        self.configurationPath = configurationPath
        self.entity = entity
        self.corpus = corpus
        self.workDirectory = workDirectory
    }

    var storePath: String { configuration.storePath }
    var indexPath: String { configuration.indexPath }

    /// The text fields of the entity, in configuration order.
    var textFields: [String] { entity.fields.filter { $0.type == .text }.map(\.name) }

    /// The first text field that is not the key: where probes and updates write, and known-item queries come from.
    var descriptiveField: String {
        get throws {
            guard let field = entity.fields.first(where: { $0.type == .text && $0.name != entity.key }) else {
                throw BenchError("entity \(entity.name) has no text field besides its key; the incremental, freshness and relevance figures need one")
            }
            return field.name
        }
    }

    /// A stored field (its change makes no terms) and the SQL expression that changes it, appending its one
    /// argument; nil when the entity has none.
    var valueOnlyChange: (field: String, expression: String)? {
        guard let field = entity.fields.first(where: { $0.type == .stored && $0.name != entity.key }) else { return nil }
        return (field.name, "COALESCE(\(field.name.quotedDatabaseIdentifier), '') || ?")
    }

    func path(_ name: String) -> String { workDirectory + "/" + name }

    /// The store holding the corpus, imported on first use.
    func store() throws -> SpotliteStore {
        if let openedStore { return openedStore }
        let store = try StoreFixture.make(corpus: corpus, path: storePath, configuration: configuration,
                                          entity: entity.name)
        openedStore = store
        return store
    }

    func makeIndexer() throws -> SpotliteIndexer {
        try SpotliteIndexer(store: store(), configuration: configuration, indexPath: indexPath)
    }

    /// Makes sure Spotlite's index of the store exists and is up to date.
    func prepareIndex() async throws {
        guard !indexReady else { return }
        try await makeIndexer().update()
        indexReady = true
    }

    /// Records that the index was just built by a figure.
    func markIndexReady() { indexReady = true }

    /// The live generation directory of Spotlite's index (what its size is).
    func liveGenerationPath() throws -> String {
        let stub = indexPath + "/XAPIANDB"
        guard let text = try? String(contentsOfFile: stub, encoding: .utf8),
              let name = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).last
        else { throw BenchError("the index at \(indexPath) has no live generation; the rebuild did not complete") }
        return indexPath + "/" + name
    }

    /// The FTS5 baseline over the same records, built on first use.
    func fts() throws -> FTS5Index {
        if let builtFTS { return builtFTS }
        let (seconds, fts) = try Stopwatch.measure {
            try FTS5Index(records: corpus.records, configuration: configuration, entity: entity.name,
                          path: path("fts5.sqlite"))
        }
        ftsBuildSeconds = seconds
        builtFTS = fts
        return fts
    }
}

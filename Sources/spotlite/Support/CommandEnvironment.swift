import Foundation
import SpotliteSearch
import SpotliteStore

extension SearchError: ProductError {}
extension StoreError: ProductError {}
extension HistoryError: ProductError {}
extension ImportError: ProductError {}
extension ConfigurationError: ProductError {}

/// What a command works with: the configuration (file and overrides), and the store and index it names.
struct CommandEnvironment {
    let options: GlobalOptions
    let configuration: Configuration
    let configurationSource: String?

    init(options: GlobalOptions) throws {
        self.options = options
        let currentDirectory = FileManager.default.currentDirectoryPath
        var configuration: Configuration
        if let path = options.config {
            configuration = try Configuration(contentsOf: path, baseDirectory: currentDirectory)
            configurationSource = path
        } else if FileManager.default.fileExists(atPath: Configuration.defaultPath) {
            configuration = try Configuration(contentsOf: Configuration.defaultPath, baseDirectory: currentDirectory)
            configurationSource = Configuration.defaultPath
        } else {
            configuration = Configuration()
            configurationSource = nil
        }
        if let store = options.store { configuration.storePath = Configuration.resolvePath(store, against: currentDirectory) }
        if let index = options.index { configuration.indexPath = Configuration.resolvePath(index, against: currentDirectory) }
        self.configuration = configuration
    }

    var showsProgress: Bool { options.progress || Terminal.stderrIsTerminal }

    /// Fails unless the configuration describes at least one entity.
    func requireEntities() throws {
        guard configuration.entities.isEmpty else { return }
        let source = configurationSource.map { "the configuration \($0) describes no entities" }
            ?? "there is no configuration (config/spotlite.toml is missing)"
        throw CommandFailure(message: "\(source); add an [entities.NAME] section (see config/examples/) or pass --config PATH")
    }

    /// Opens the store, creating it (and its directory) when `create` is true; otherwise it must exist.
    func openStore(create: Bool) throws -> SpotliteStore {
        let path = configuration.storePath
        if !FileManager.default.fileExists(atPath: path) {
            guard create else {
                throw CommandFailure(message: "no store at \(path); import data first (`spotlite import FILE --entity NAME`) or point --store at an existing store")
            }
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw CommandFailure(message: "cannot create the store \(path): its directory \(directory) cannot be created (\(error.localizedDescription)); choose a writable path with --store")
                }
            }
        }
        return try openModelStore(path: path)
    }

    func makeIndexer(store: SpotliteStore) throws -> SpotliteIndexer {
        try requireEntities()
        return try SpotliteIndexer(store: store, configuration: configuration)
    }
}

import Foundation
import GRDB
import Spotlite

extension SearchError: ProductError {}
extension StoreError: ProductError {}
extension HistoryError: ProductError {}
extension ImportError: ProductError {}
extension ConfigurationError: ProductError {}

/// What a command works with: the configuration (file and overrides), and the store and index it names.
struct CommandEnvironment {
    let options: GlobalOptions
    let configuration: SpotliteConfiguration
    let configurationSource: String?

    init(options: GlobalOptions) throws {
        self.options = options
        let currentDirectory = FileManager.default.currentDirectoryPath
        var configuration: SpotliteConfiguration
        if let path = options.config {
            configuration = try SpotliteConfiguration(contentsOf: path, baseDirectory: currentDirectory)
            configurationSource = path
        } else if FileManager.default.fileExists(atPath: SpotliteConfiguration.defaultPath) {
            configuration = try SpotliteConfiguration(contentsOf: SpotliteConfiguration.defaultPath, baseDirectory: currentDirectory)
            configurationSource = SpotliteConfiguration.defaultPath
        } else {
            configuration = SpotliteConfiguration()
            configurationSource = nil
        }
        if let store = options.store { configuration.storePath = SpotliteConfiguration.resolvePath(store, against: currentDirectory) }
        if let index = options.index { configuration.indexPath = SpotliteConfiguration.resolvePath(index, against: currentDirectory) }
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
        do {
            return try openModelStore(path: path)
        } catch let error as DatabaseError {
            throw CommandFailure(message: "cannot open the store \(path): \(error.message ?? "\(error)") (SQLite error \(error.resultCode.rawValue)); check that it is a SQLite file, not a directory, that you may read and write, and that the disk is not full")
        }
    }

    func makeIndexer(store: SpotliteStore) throws -> SpotliteIndexer {
        try requireEntities()
        return try SpotliteIndexer(store: store, configuration: configuration)
    }
}

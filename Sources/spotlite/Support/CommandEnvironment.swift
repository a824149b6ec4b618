import Foundation
import GRDB
import Spotlite

extension SearchError: ProductError {}
extension SpotliteStoreError: ProductError {}
extension ConfigurationError: ProductError {}
extension ReplicationError: ProductError {}
extension EmbeddingError: ProductError {}
extension HybridSearchError: ProductError {}

/// What a command works with: the configuration (file and overrides), and the store and index it names.
struct CommandEnvironment {
    /// Where the command looks for its configuration without --config, relative to the current directory.
    static let defaultConfigurationPath = "config/spotlite.toml"

    let options: GlobalOptions
    let configuration: SpotliteConfiguration
    let configurationSource: String?

    init(options: GlobalOptions) throws {
        self.options = options
        let currentDirectory = FileManager.default.currentDirectoryPath
        var configuration: SpotliteConfiguration
        // Relative paths in a configuration file are relative to its folder, so a command gives the same answer
        // from any working directory; paths on the command line are relative to the working directory.
        if let path = options.config {
            configuration = try SpotliteConfiguration(contentsOf: path, baseDirectory: Self.folder(of: path, in: currentDirectory))
            configurationSource = path
        } else if FileManager.default.fileExists(atPath: CommandEnvironment.defaultConfigurationPath) {
            configuration = try SpotliteConfiguration(contentsOf: CommandEnvironment.defaultConfigurationPath,
                                              baseDirectory: Self.folder(of: CommandEnvironment.defaultConfigurationPath, in: currentDirectory))
            configurationSource = CommandEnvironment.defaultConfigurationPath
        } else {
            configuration = SpotliteConfiguration()
            configurationSource = nil
        }
        if let store = options.store { configuration.storePath = SpotliteConfiguration.resolvePath(store, against: currentDirectory) }
        if let index = options.index { configuration.indexPath = SpotliteConfiguration.resolvePath(index, against: currentDirectory) }
        self.configuration = configuration
    }

    /// The absolute folder holding the file at `path`.
    static func folder(of path: String, in currentDirectory: String) -> String {
        (SpotliteConfiguration.resolvePath(path, against: currentDirectory) as NSString).deletingLastPathComponent
    }

    var showsProgress: Bool { options.progress || Terminal.stderrIsTerminal }

    /// Fails unless the configuration describes at least one entity.
    func requireEntities() throws {
        guard configuration.entities.isEmpty else { return }
        let source = configurationSource.map { "the configuration \($0) describes no entities" }
            ?? "there is no configuration (config/spotlite.toml is missing here)"
        throw CommandFailure(message: "\(source); write one with `spotlite init --from FILE.jsonl` (or add an [entities.NAME] section), or pass --config PATH", status: ExitStatus.input)
    }

    /// Opens the store, creating it (and its directory) when `create` is true; otherwise it must exist.
    func openStore(create: Bool) throws -> SpotliteStore {
        var ignored = CreatedStore()
        return try openStore(create: create, recording: &ignored)
    }

    /// Opens the store like `openStore(create:)`, and says in `created` what it created (the store file, and the
    /// folders it made for it) so that a failed first import can remove them.
    func openStore(create: Bool, recording created: inout CreatedStore) throws -> SpotliteStore {
        let path = configuration.storePath
        if !FileManager.default.fileExists(atPath: path) {
            guard create else {
                let source = options.store != nil ? " (from --store)" : configurationSource.map { " (from \($0))" } ?? ""
                throw CommandFailure(message: "no store at \(path)\(source); import data first (`spotlite import FILE --entity NAME`) or point --store at an existing store", status: ExitStatus.input)
            }
            created.folders = CreatedStore.missingFolders(above: path)
            created.storePath = path
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw CommandFailure(message: "cannot create the store \(path): its directory \(directory) cannot be created (\(error.localizedDescription)); choose a writable path with --store", status: ExitStatus.input)
                }
            }
        }
        do {
            return try openModelStore(path: path)
        } catch let error as DatabaseError {
            throw CommandFailure(message: "cannot open the store \(path): \(error.message ?? "\(error)") (SQLite error \(error.resultCode.rawValue)); check that it is a SQLite file, not a directory, that you may read and write, and that the disk is not full", status: ExitStatus.failure)
        }
    }

    /// Fails when the index is a read replica: it follows its master, and a replica host has no store to index.
    func refuseReplica() throws {
        let path = configuration.indexPath
        if let source = ReplicaFollower.replicaSource(at: path) {
            throw ReplicationError.replicaIsReadOnly(path: path, source: source)
        }
    }

    /// The model and vectors of `[embeddings]`, or nil when the configuration has none.
    func makeSemanticIndex() throws -> SemanticIndex? {
        guard configuration.embeddings != nil, !configuration.embeddedFields.isEmpty else { return nil }
        return try SemanticIndex(configuration: configuration)
    }

    func makeIndexer(store: SpotliteStore) throws -> SpotliteIndexer {
        try requireEntities()
        return try SpotliteIndexer(store: store, configuration: configuration)
    }
}

/// A store file created by a command (and the folders made for it), removed again when the command fails before
/// committing anything: a failed first import leaves nothing behind.
struct CreatedStore {
    var storePath: String?
    var folders: [String] = []

    /// The folders above `path` that do not exist yet, deepest first.
    static func missingFolders(above path: String) -> [String] {
        var folders: [String] = []
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty, folder != "/", !FileManager.default.fileExists(atPath: folder) {
            folders.append(folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
        return folders
    }

    /// Removes the store (with its -wal and -shm files) and the folders made for it, when they are empty.
    func remove() {
        guard let storePath else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: storePath + suffix)
        }
        for folder in folders where (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}

import ArgumentParser
import Foundation
import Logging
import Spotlite
import SpotliteServer

/// `spotlite-bench child-serve`: `spotlite serve` of the suite's store and index in a process of its own (the
/// server library, with live indexing), so that the serve figure's client and the server are apart as a browser and
/// a server are. Prints `Listening on http://127.0.0.1:PORT` once it listens; stops on SIGTERM.
struct ChildServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-serve", abstract: "Serve an index over HTTP in this process (used by the suite).",
        shouldDisplay: false)

    @Option(help: "The configuration file.") var config: String
    @Option(help: "The store to serve and index live.") var store: String
    @Option(help: "The index directory.") var index: String
    @Option(help: "The port on 127.0.0.1 (0: a free one).") var port = 0
    @Flag(help: "Serve keyword search only, whatever the configuration's [embeddings] says.") var keywordOnly = false

    func run() async throws {
        var configuration = try SpotliteConfiguration(contentsOf: config, baseDirectory: FileManager.default.currentDirectoryPath)
        configuration.storePath = store
        configuration.indexPath = index
        if keywordOnly { configuration.embeddings = nil }
        guard FileManager.default.fileExists(atPath: store) else {
            throw BenchError("no store at \(store); the suite creates it before starting this child")
        }
        let spotliteStore = try SpotliteStore(path: store, model: configuration.storeModel)
        let indexer = try SpotliteIndexer(store: spotliteStore, configuration: configuration, indexPath: index)
        var options = SearchServer.Options()
        options.port = port
        let server = try SearchServer(configuration: configuration, store: spotliteStore, indexer: indexer, options: options)
        var logger = Logger(label: "spotlite.bench.serve")
        logger.logLevel = .warning
        try await server.run(logger: logger) { address in
            FileHandle.standardOutput.write(Data("Listening on \(address)\n".utf8))
        }
    }
}

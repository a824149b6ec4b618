import ArgumentParser
import Foundation
import Logging
import Spotlite
import SpotliteServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the index over HTTP: a JSON API and a search page, kept current while it runs.",
        discussion: """
        GET /search?q=… (or POST /search with a JSON body) answers with the JSON of `spotlite search --json`; \
        /records/ENTITY/KEY, /status, /health, /metrics (Prometheus), /events (Server-Sent Events after each index \
        update) and /openapi.json describe the rest; / is a search page that answers as you type. While it runs it \
        keeps the index current from history, as `spotlite index watch` does (--no-watch only serves). It listens on \
        127.0.0.1 unless given another --host, which needs an API key (--api-key or SPOTLITE_API_KEY) that clients \
        send as Authorization: Bearer KEY. SIGINT or SIGTERM stops it after the requests in progress.

        EXAMPLES
          spotlite serve
          spotlite serve --port 8080 --no-watch
          SPOTLITE_API_KEY=secret spotlite serve --host 0.0.0.0
          curl 'http://127.0.0.1:7700/search?q=clickh&prefix=true&limit=3'
        """)

    @Option(help: ArgumentHelp("The address to listen on; anything but loopback needs an API key.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: ArgumentHelp("The port (0: any free one, printed).", valueName: "port"))
    var port = 7700

    @Option(name: .customLong("api-key"), help: ArgumentHelp("The key clients must send as Authorization: Bearer KEY (default: the environment variable SPOTLITE_API_KEY).", valueName: "key"))
    var apiKey: String?

    @Flag(name: .customLong("no-watch"), help: "Only serve: do not keep the index current from history.")
    var noWatch = false

    @Option(name: .customLong("request-timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds a request's head, and then its body, may take to arrive (1 to 3600); a slower client is disconnected.", valueName: "seconds"))
    var requestTimeout = 10

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds a connection may stay silent between requests (1 to 3600).", valueName: "seconds"))
    var idleTimeout = 30

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        try OptionRange.check(port, in: 0...65535, option: "--port")
        try OptionRange.check(requestTimeout, in: 1...3600, option: "--request-timeout")
        try OptionRange.check(idleTimeout, in: 1...3600, option: "--idle-timeout")
    }

    func run() async throws {
        let environment = try CommandEnvironment(options: options)
        try environment.requireEntities()
        if !noWatch { try environment.refuseReplica() }
        let store = noWatch ? try environment.openStoreForReading(sealingForeignChanges: false)
            : try environment.openStore(create: false)
        let indexer = try environment.makeIndexer(store: store)
        var serverOptions = SearchServer.Options()
        serverOptions.host = host
        serverOptions.port = port
        serverOptions.apiKey = apiKey ?? ProcessInfo.processInfo.environment["SPOTLITE_API_KEY"]
        serverOptions.watches = !noWatch
        serverOptions.headTimeout = Double(requestTimeout)
        serverOptions.bodyTimeout = Double(requestTimeout)
        serverOptions.idleTimeout = Double(idleTimeout)
        let server: SearchServer
        do {
            server = try SearchServer(configuration: environment.configuration, store: store, indexer: indexer,
                                      options: serverOptions)
        } catch let error as SearchServer.StartError {
            throw CommandFailure(message: error.description, status: ExitStatus.usage)
        }
        // As `index watch`: one line when live updates start failing (a shard down, a full disk) and one when they
        // succeed again, so that an index lagging the store is never silent.
        let health = noWatch ? nil : Task { await IndexCommand.reportFailures(of: indexer) }
        defer { health?.cancel() }
        try await server.run(logger: Logger(label: "spotlite.serve")) { address in
            // Unbuffered: whoever started the server waits for this line.
            FileHandle.standardOutput.write(Data("Listening on \(address)\n".utf8))
        }
        health?.cancel()
        await health?.value
    }
}

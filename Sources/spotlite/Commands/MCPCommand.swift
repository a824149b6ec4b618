import ArgumentParser
import Foundation
import Spotlite
import SpotliteServer

struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the index to language-model clients: a Model Context Protocol server on stdin and stdout.",
        discussion: """
        Tools: search (query, entity, filters, limit up to 50, mode), get_record (entity, key) and index_status. A \
        call with bad arguments answers a tool error with the sentence the command line prints; the server runs until \
        the client closes its standard input. It only reads: keep the index current with `spotlite index watch` or \
        `spotlite serve`.

        EXAMPLES
          spotlite mcp --config /srv/catalogue/config/spotlite.toml
          claude mcp add spotlite -- spotlite mcp --config /srv/catalogue/config/spotlite.toml
        """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let environment = try CommandEnvironment(options: options)
        try environment.requireEntities()
        let store = try environment.openStoreForReading(sealingForeignChanges: false)
        let indexer = try environment.makeIndexer(store: store)
        try await SearchToolServer(configuration: environment.configuration, store: store, indexer: indexer,
                                   version: Spotlite.configuration.version).run()
    }
}

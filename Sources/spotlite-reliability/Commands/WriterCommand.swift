import ArgumentParser
import Foundation
import Spotlite

/// A child process of the suites: writes through the library and prints a JSON summary.
struct WriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "writer", abstract: "(used by the suites) Write transactions through the Swift library as one author.")

    @Option(help: "The configuration file.") var config: String
    @Option(help: "The history author.") var author: String
    @Option(help: "The prefix of this writer's own keys.") var namespace: String
    @Option(help: "The seed of the transactions.") var seed: UInt64 = 1
    @Option(help: "How many transactions.") var transactions: Int = 100
    @Option(help: "How many shared keys (s-0000 …) exist.") var sharedKeys: Int = 100
    @Option(help: "Pause between transactions, in milliseconds.") var pauseMs: Int = 0

    func run() throws {
        let configuration = try SpotliteConfiguration(contentsOf: config)
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        let writer = LibraryWriter(store: store, author: author,
                                   script: WriteScript(seed: seed, namespace: namespace, sharedKeys: sharedKeys))
        let summary = writer.run(transactions: transactions, pauseMicroseconds: UInt32(max(0, pauseMs) * 1000))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(summary), as: UTF8.self))
    }
}

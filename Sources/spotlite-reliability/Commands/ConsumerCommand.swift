import ArgumentParser
import Foundation
import Spotlite

/// A child process of the concurrency suite: the slow second history consumer.
struct ConsumerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumer", abstract: "(used by the suites) Read history slowly as one author until told to stop.")

    @Option(help: "The configuration file.") var config: String
    @Option(help: "The consumer's author name (its position in the store).") var author: String
    @Option(help: "Transactions per page.") var page: Int = 10
    @Option(help: "Pause between pages, in milliseconds.") var pauseMs: Int = 20
    @Option(help: "Stop once this file exists and the consumer has caught up.") var stopFile: String

    func run() throws {
        let configuration = try SpotliteConfiguration(contentsOf: config)
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        let consumer = SlowConsumer(store: store, author: author, pageSize: max(1, page),
                                    pauseMicroseconds: UInt32(max(0, pauseMs) * 1000))
        let summary = try consumer.run(stopFile: stopFile)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(summary), as: UTF8.self))
    }
}

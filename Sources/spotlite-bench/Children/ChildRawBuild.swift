import ArgumentParser
import Foundation
import SpotliteSearch

/// `spotlite-bench child-raw-build`: one raw engine build (see ``RawIndexer``) in a process of its own, to profile it
/// (`perf record`, `valgrind --tool=callgrind`) or to measure its memory.
struct ChildRawBuild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-raw-build", abstract: "Build a raw Xapian index from a corpus in this process (for profiling).",
        shouldDisplay: false)

    @Option(help: "The corpus: JSON Lines, optionally .xz-compressed.") var corpus: String
    @Option(help: "The configuration file.") var config = "config/spotlite.toml"
    @Option(help: "The entity the corpus holds (default: the configuration's first).") var entity: String?
    @Option(help: "The index directory to create.") var index: String
    @Option(help: "Use only the first N records.") var limit: Int?
    @Flag(help: "DB_NO_SYNC, then one fsync.") var noSync = false
    @Option(help: "XAPIAN_FLUSH_THRESHOLD.") var flushThreshold: Int?
    @Flag(help: "Build documents on a second thread (implies --no-spelling).") var pipelined = false
    @Flag(help: "Leave out word positions.") var noPositions = false
    @Flag(help: "Leave out spelling data.") var noSpelling = false

    func run() throws {
        let configuration = try SpotliteSearch.Configuration(contentsOf: config, baseDirectory: FileManager.default.currentDirectoryPath)
        guard let description = entity.map({ configuration.entity(named: $0) }) ?? configuration.entities.first else {
            throw BenchError("the configuration \(config) has no entity \(entity ?? "at all")")
        }
        let scratch = index + ".corpus.jsonl"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let records = try Corpus.prepare(source: corpus, limit: limit, key: description.key, destination: scratch).records
        var options = RawIndexer.Options()
        options.noSync = noSync
        options.flushThreshold = flushThreshold
        options.pipelined = pipelined
        options.variations.positions = !noPositions
        options.variations.spelling = !(noSpelling || pipelined)
        let outcome = try RawIndexer.build(records: records, configuration: configuration, entity: description.name,
                                           path: index, options: options)
        print(String(format: "{\"seconds\": %.3f, \"documents\": %d}", outcome.seconds, outcome.documents))
    }
}

import ArgumentParser
import Foundation
import Spotlite
import SpotliteTooling

/// `spotlite-bench child-raw-build`: one raw engine build (see ``RawIndexer``) in a process of its own, so that it
/// is timed in the same conditions as Spotlite's rebuild child, and so that it can be profiled alone
/// (`perf record`, `valgrind --tool=callgrind`).
struct ChildRawBuild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-raw-build", abstract: "Build a raw Xapian index from a corpus in this process.",
        shouldDisplay: false)

    @Option(help: "The corpus: JSON Lines, optionally .xz-compressed.") var corpus: String
    @Option(help: "The configuration file.") var config = "config/spotlite.toml"
    @Option(help: "The entity the corpus holds (default: the configuration's first).") var entity: String?
    @Option(help: "The index directory to create.") var index: String
    @Option(help: "Use only the first N records.") var limit: Int?
    @Flag(help: "DB_NO_SYNC, then one fsync.") var noSync = false
    @Option(help: "XAPIAN_FLUSH_THRESHOLD.") var flushThreshold: Int?
    @Flag(help: "Build documents on a second thread (needs --no-spelling).") var pipelined = false
    @Flag(help: "Leave out word positions.") var noPositions = false
    @Flag(help: "Leave out word positions of the prefixed copies of text fields.") var noPrefixedPositions = false
    @Flag(help: "Leave out spelling data.") var noSpelling = false
    @Option(help: "Take spelling data only from these text fields (comma-separated).") var spellingFields: String?

    struct Report: Codable {
        var seconds: Double
        /// CPU time of the build (user + system, every thread).
        var cpuSeconds: Double
        var documents: Int
        /// The child's own peak resident memory (`VmHWM`), which includes the corpus it parsed.
        var peakResidentBytes: Int
    }

    func run() throws {
        let configuration = try SpotliteConfiguration(contentsOf: config, baseDirectory: FileManager.default.currentDirectoryPath)
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
        options.variations.prefixedPositions = !noPrefixedPositions
        options.variations.spelling = !noSpelling
        options.variations.spellingFields = spellingFields.map { Set($0.split(separator: ",").map(String.init)) }
        let outcome = try RawIndexer.build(records: records, configuration: configuration, entity: description.name,
                                           path: index, options: options)
        let data = try JSONEncoder().encode(Report(
            seconds: outcome.seconds, cpuSeconds: outcome.cpuSeconds, documents: outcome.documents,
            peakResidentBytes: ProcessResources.peakResidentBytes()))
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// The arguments that make a child build with `options`.
    static func arguments(for options: RawIndexer.Options) -> [String] {
        var arguments: [String] = []
        if options.noSync { arguments.append("--no-sync") }
        if let threshold = options.flushThreshold { arguments += ["--flush-threshold", String(threshold)] }
        if options.pipelined { arguments.append("--pipelined") }
        if !options.variations.positions { arguments.append("--no-positions") }
        if !options.variations.prefixedPositions { arguments.append("--no-prefixed-positions") }
        if !options.variations.spelling { arguments.append("--no-spelling") }
        if let fields = options.variations.spellingFields {
            arguments += ["--spelling-fields", fields.sorted().joined(separator: ",")]
        }
        return arguments
    }

    /// Runs a raw build in a child process and returns its report.
    static func run(corpusPath: String, configurationPath: String, entity: String, indexPath: String, limit: Int?,
                    options: RawIndexer.Options) throws -> Report {
        var arguments = ["child-raw-build", "--corpus", corpusPath, "--config", configurationPath, "--entity", entity,
                         "--index", indexPath]
        if let limit { arguments += ["--limit", String(limit)] }
        let outcome = try ChildProcess.run(ChildProcess.currentExecutable, arguments + Self.arguments(for: options))
        guard outcome.status == 0 else {
            throw BenchError("the raw build child process failed with status \(outcome.status) (its error is above)")
        }
        guard let line = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n").last,
              let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8))
        else { throw BenchError("the raw build child process printed no report") }
        return report
    }
}

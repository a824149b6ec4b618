import ArgumentParser
import Foundation
import Spotlite
import SpotliteTooling

/// `spotlite-bench child-update`: brings an index up to date (``SpotliteIndexer/update()``) and prints one JSON line,
/// in a process of its own so that its peak memory is the update's alone.
struct ChildUpdate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-update", abstract: "Update an index in this process and report (used by the suite).",
        shouldDisplay: false)

    @Option(help: "The configuration file.") var config: String
    @Option(help: "The store whose history is applied.") var store: String
    @Option(help: "The index directory.") var index: String
    @Flag(help: "Apply any backlog incrementally, never by a rebuild.") var incremental = false

    struct Report: Codable {
        var seconds: Double
        /// CPU time of the update (user + system, every thread).
        var cpuSeconds: Double
        var changes: Int
        var indexed: Int
        var rebuilt: Bool
        /// The child's own peak resident memory (`VmHWM`), read after the update.
        var peakResidentBytes: Int
    }

    func run() async throws {
        var configuration = try SpotliteConfiguration(contentsOf: config, baseDirectory: FileManager.default.currentDirectoryPath)
        configuration.storePath = store
        configuration.indexPath = index
        guard FileManager.default.fileExists(atPath: store) else {
            throw BenchError("no store at \(store); the suite creates it before starting this child")
        }
        let spotliteStore = try SpotliteStore(path: store, model: configuration.storeModel)
        let indexer = try SpotliteIndexer(store: spotliteStore, configuration: configuration, indexPath: index)
        if incremental { await indexer.setBacklogRebuildShare(nil) }
        let cpuBefore = ProcessResources.cpuSeconds()
        let summary = try await indexer.update()
        let report = Report(seconds: summary.seconds, cpuSeconds: ProcessResources.cpuSeconds() - cpuBefore, changes: summary.changes, indexed: summary.indexed,
                            rebuilt: summary.rebuilt, peakResidentBytes: ProcessResources.peakResidentBytes())
        FileHandle.standardOutput.write(try JSONEncoder().encode(report) + Data("\n".utf8))
    }

    /// Runs an update in a child process and returns its report.
    static func run(configurationPath: String, storePath: String, indexPath: String, incremental: Bool) throws -> Report {
        let outcome = try ChildProcess.run(ChildProcess.currentExecutable, [
            "child-update", "--config", configurationPath, "--store", storePath, "--index", indexPath,
        ] + (incremental ? ["--incremental"] : []))
        guard outcome.status == 0 else {
            throw BenchError("the update child process failed with status \(outcome.status) (its error is above)")
        }
        guard let line = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n").last,
              let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8))
        else { throw BenchError("the update child process printed no report") }
        return report
    }
}

import ArgumentParser
import Foundation
import Spotlite
import SpotliteTooling

/// `spotlite-bench child-rebuild`: rebuilds an index from a store and prints one JSON line, in a process of its
/// own so that its peak memory is the rebuild's alone.
struct ChildRebuild: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-rebuild", abstract: "Rebuild an index in this process and report (used by the suite).",
        shouldDisplay: false)

    @Option(help: "The configuration file.") var config: String
    @Option(help: "The store to index.") var store: String
    @Option(help: "The index directory to build.") var index: String
    @Option(help: "Shards to build (default: the configuration's).") var shards: Int?

    struct Report: Codable {
        var seconds: Double
        /// CPU time of the rebuild (user + system, every thread).
        var cpuSeconds: Double
        var documents: Int
        /// The child's own peak resident memory (`VmHWM`), read after the rebuild.
        var peakResidentBytes: Int
    }

    func run() async throws {
        var configuration = try SpotliteConfiguration(contentsOf: config, baseDirectory: FileManager.default.currentDirectoryPath)
        configuration.storePath = store
        configuration.indexPath = index
        if let shards { configuration.shards = .count(shards) }
        guard FileManager.default.fileExists(atPath: store) else {
            throw BenchError("no store at \(store); the suite creates it before starting this child")
        }
        let spotliteStore = try SpotliteStore(path: store, model: configuration.storeModel)
        let indexer = try SpotliteIndexer(store: spotliteStore, configuration: configuration, indexPath: index)
        let cpuBefore = ProcessResources.cpuSeconds()
        let summary = try await indexer.rebuild(reason: "benchmark")
        let report = Report(seconds: summary.seconds, cpuSeconds: ProcessResources.cpuSeconds() - cpuBefore,
                            documents: summary.indexed, peakResidentBytes: ProcessResources.peakResidentBytes())
        let data = try JSONEncoder().encode(report)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// Runs a rebuild in a child process and returns its report.
    static func run(configurationPath: String, storePath: String, indexPath: String, shards: Int? = nil) throws -> Report {
        let outcome = try ChildProcess.run(ChildProcess.currentExecutable, [
            "child-rebuild", "--config", configurationPath, "--store", storePath, "--index", indexPath,
        ] + (shards.map { ["--shards", String($0)] } ?? []))
        guard outcome.status == 0 else {
            throw BenchError("the rebuild child process failed with status \(outcome.status) (its error is above)")
        }
        guard let line = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n").last,
              let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8))
        else { throw BenchError("the rebuild child process printed no report") }
        return report
    }
}

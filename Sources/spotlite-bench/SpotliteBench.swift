import ArgumentParser
import Foundation
import SpotliteTooling

/// `spotlite-bench`: the benchmark suite. Runs the figures of docs/benchmarks.md over a JSON Lines
/// corpus, prints a table and writes the measurements as JSON.
@main
struct SpotliteBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotlite-bench",
        abstract: "Benchmark Spotlite against the raw Xapian engine and SQLite FTS5.",
        discussion: """
        Build in release mode first (`make bench` does both). The default run takes about ten minutes on two cores; \
        --scale adds a run over 1,000,000 derived records (about thirteen minutes more). \
        `spotlite-bench run --help` lists the options.
        """,
        subcommands: [SuiteCommand.self, RelevanceCommand.self, EmbeddingsCommand.self, DebtagsTopicsCommand.self, ReplicaFreshnessCommand.self, ChildRebuild.self, ChildUpdate.self, ChildWriter.self, ChildRawBuild.self, ChildServe.self],
        defaultSubcommand: SuiteCommand.self
    )

    /// Runs the command; a failure is one line on stderr, `spotlite-bench: <problem>; <what to do>`, and status 1.
    static func main() async {
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch where exitCode(for: error) == .success || error is ExitCode || error is CleanExit {
            // Help and version requests (a parent command with no work of its own runs as a help request).
            exit(withError: error)
        } catch where exitCode(for: error) == .success {
            // --help of a subcommand surfaces here: print it, like the parser does.
            exit(withError: error)
        } catch {
            // A figure whose servers the interruption stopped fails: the clean-up's line and status are the ones.
            HarnessInterruption.holdIfInterrupted()
            FileHandle.standardError.write(Data("spotlite-bench: \(error)\n".utf8))
            Foundation.exit(1)
        }
    }
}

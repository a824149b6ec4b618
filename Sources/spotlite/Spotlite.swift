import ArgumentParser
import Foundation
import GRDB
import Logging
import Spotlite
#if canImport(Glibc)
import Glibc
#endif

@main
struct Spotlite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotlite",
        abstract: "A SQLite store with persistent history, and a search index that follows it.",
        discussion: """
        Every change to the store, from this command, from your app through the Swift library, or from any other \
        program such as the sqlite3 shell, is recorded as history (token, author, context, changed rows). The search \
        index consumes that history: `spotlite index update` applies what changed since it last ran.

        The store, the index and what gets indexed are set in config/spotlite.toml (or --config PATH); \
        `spotlite init` writes one, guessing the fields from a JSON Lines file.

        EXAMPLES
          spotlite init --from packages.jsonl --entity Package
          spotlite import packages.jsonl --entity Package
          spotlite index update
          spotlite search "full text" --facet section

        \(ExitStatus.documentation)
        """,
        version: "0.1.0",
        subcommands: [InitCommand.self, ImportCommand.self, IndexCommand.self, SearchCommand.self, ServeCommand.self, MCPCommand.self, HistoryCommand.self,
                      MigrateCommand.self, DemoCommand.self, ManualCommand.self]
    )

    /// Runs the command; every failure becomes one line on stderr, `spotlite: <problem>; <what to do>`.
    static func main() async {
        // Log lines go to stderr, and only where someone watches (a terminal, or --progress): stdout stays clean for
        // JSON and pipes.
        let showsLogs = isatty(STDERR_FILENO) == 1 || CommandLine.arguments.contains("--progress")
        LoggingSystem.bootstrap { label in
            guard showsLogs else { return SwiftLogNoOpLogHandler() }
            var handler = StreamLogHandler.standardError(label: label)
            // Commands say what they did themselves (a rebuild's reason among it): only problems are logged.
            handler.logLevel = .warning
            return handler
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let mistake = CommandSuggestion.check(arguments, root: Spotlite.self) {
            Terminal.printError(mistake)
            Foundation.exit(ExitStatus.usage)
        }
        var parsed = false
        do {
            var command = try parseAsRoot(arguments)
            parsed = true
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ExitCode {
            exit(withError: error)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch let error as CommandFailure {
            Terminal.printError(error.message)
            Foundation.exit(error.status)
        } catch let error as ProductError {
            Terminal.printError(error.commandLineDescription)
            Foundation.exit(ExitStatus.status(of: error))
        } catch let error as DatabaseError {
            // SQLite failed under a command (a full disk, a file that is not writable): not a usage problem.
            Terminal.printError("the store failed: SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error)"); check that the disk is not full and that the store and its folder are writable, then run the command again")
            Foundation.exit(ExitStatus.failure)
        } catch {
            // Errors from parsing the command line: usage problems.
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }
            let message = Self.message(for: error).trimmingCharacters(in: .whitespacesAndNewlines)
                .replacingOccurrences(of: "Error: ", with: "")
            var line = message.split(separator: "\n").first.map(String.init) ?? message
            // The parser decodes and validates before it looks for unknown options: an option the command does
            // not take comes first, as the other error may only follow from it.
            if !parsed, !line.hasPrefix("Unknown option"), let unknown = UnknownOption.message(arguments, root: Spotlite.self) {
                line = unknown
            }
            line = UnknownOption.withDashHint(line, arguments: arguments, root: Spotlite.self)
            let help = (["spotlite", "help"] + CommandSuggestion.commandPath(arguments, root: Spotlite.self)).joined(separator: " ")
            Terminal.printError(Self.pointing(line, to: help))
            Foundation.exit(ExitStatus.usage)
        }
    }
}

extension Spotlite {
    /// A usage error followed by the help that explains the command: a message ending a sentence (the parser's
    /// "Unknown option '--x'. Did you mean '--y'?") is followed by another sentence, a bare one by `; see`.
    static func pointing(_ message: String, to help: String) -> String {
        if let last = message.last, ".?!".contains(last) { return "\(message) See `\(help)`." }
        return "\(message); see `\(help)`"
    }
}

/// An error of ours (not a usage error of the argument parser).
protocol ProductError: Error, CustomStringConvertible {
    /// The error as the command line prints it, with the command that helps (see CommandAdvice.swift).
    var commandLineDescription: String { get }
}

/// A failure the command itself reports, with its exit status.
struct CommandFailure: Error, ProductError {
    var message: String
    var status: Int32 = ExitStatus.input
    var description: String { message }
}

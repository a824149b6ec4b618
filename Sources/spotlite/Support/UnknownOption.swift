import ArgumentParser
import Foundation

/// Finds an option the command does not take, so that it is reported before any other usage error.
///
/// The argument parser decodes and validates a command before it looks for options left over, so `import --bogus`
/// was told "Missing expected argument '<file>'" (or any `validate()` message), about an argument the user may
/// well have meant to give after fixing the option. The options each command takes come from the parser's own
/// description of the command: the JSON that `--experimental-dump-help` prints, obtained through the public parsing
/// API (the underscored `_dumpHelp()` that returns it directly may change in any release).
enum UnknownOption {
    /// The message for the first unknown option in `arguments` (without the program name), worded as the argument
    /// parser words it ("Unknown option '--bogus'. Did you mean '--jobs'?"); nil when every option is known or
    /// when the command line cannot be read with certainty (a short option group such as `-ab`, an argument that
    /// takes any input).
    static func message(_ arguments: [String], root: ParsableCommand.Type) -> String? {
        let commands = CommandSuggestion.commandTypes(arguments, root: root)
        let described = commands.compactMap(describe)
        guard described.count == commands.count, let leaf = described.last else { return nil }
        let remainders: Set<String> = ["allRemainingInput", "allUnrecognized", "postTerminator"]
        if leaf.contains(where: { $0.kind == "positional" && remainders.contains($0.parsingStrategy) }) { return nil }
        var known: [String: Argument] = [:]
        for argument in described.joined() {
            for name in argument.synopses { known[name] = argument }
        }
        // Options the parser itself answers, whichever command runs.
        let builtIn: Set<String> = ["-h", "--help", "-help", "--version", "--experimental-dump-help", "--generate-completion-script"]

        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            index += 1
            if word == "--" { return nil }
            guard word.hasPrefix("-"), word.count > 1, Double(word) == nil else { continue }
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            if builtIn.contains(name) { continue }
            guard let argument = known[name] else {
                // `-ab` may be two short flags, or a short option with its value: unknown only when none of its
                // letters is a short name the command takes (`-vim`, which the parser passed over in silence).
                if !name.hasPrefix("--"), name.count > 2,
                   name.dropFirst().contains(where: { known["-\($0)"] != nil || builtIn.contains("-\($0)") }) {
                    return nil
                }
                return message(for: name, among: leaf)
            }
            guard argument.kind == "option", !word.contains("=") else { continue }
            // Skip the option's values as the parser takes them.
            switch argument.parsingStrategy {
            case "unconditional":
                index += 1
            case "upToNextOption":
                while index < arguments.endIndex, !arguments[index].hasPrefix("-") { index += 1 }
            case "allRemainingInput", "postTerminator", "allUnrecognized":
                return nil
            default:
                if index < arguments.endIndex, !arguments[index].hasPrefix("-") { index += 1 }
            }
        }
        return nil
    }

    /// `line` (a usage error) with, when it is about an unknown single-dash option of a command that takes
    /// arguments, how to pass that word as an argument: `spotlite search -vim` means the query `-vim` (every record
    /// without vim), which the parser reads as options.
    static func withDashHint(_ line: String, arguments: [String], root: ParsableCommand.Type) -> String {
        let opening = "Unknown option '"
        guard line.hasPrefix(opening), let close = line.dropFirst(opening.count).firstIndex(of: "'") else { return line }
        let name = line[line.index(line.startIndex, offsetBy: opening.count)..<close]
        guard name.hasPrefix("-"), !name.hasPrefix("--"),
              let leaf = CommandSuggestion.commandTypes(arguments, root: root).last.flatMap(describe),
              leaf.contains(where: { $0.kind == "positional" }) else { return line }
        let command = (["spotlite"] + CommandSuggestion.commandPath(arguments, root: root)).joined(separator: " ")
        let sentence = line.hasSuffix(".") || line.hasSuffix("?") ? line : line + "."
        return "\(sentence) An argument starting with - goes after --, as in `\(command) -- \(name)`."
    }

    /// The parser's wording, with its suggestion: the closest long name of the command within three edits.
    private static func message(for name: String, among arguments: [Argument]) -> String {
        let message = "Unknown option '\(name)'"
        guard name.hasPrefix("--") else { return message }
        let candidates = arguments.filter(\.shouldDisplay).flatMap(\.synopses).filter { $0.hasPrefix("--") && $0 != "--help" }
        let scored = candidates.map { ($0, CommandSuggestion.distance(name, $0)) }.filter { $0.1 < 4 }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return message }
        return "\(message). Did you mean '\(best.0)'?"
    }

    /// One argument of a command as the parser describes it.
    struct Argument: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        var kind: String
        var shouldDisplay: Bool
        var parsingStrategy: String
        var names: [Name]?

        /// The names as written on the command line: `--long`, `-s`, `-longWithSingleDash`.
        var synopses: [String] {
            (names ?? []).map { $0.kind == "long" ? "--\($0.name)" : "-\($0.name)" }
        }
    }

    private struct Tool: Decodable {
        struct Command: Decodable {
            var arguments: [Argument]?
        }
        var command: Command
    }

    /// The arguments `command` takes (its option groups among them), or nil when its description cannot be read.
    private static func describe(_ command: ParsableCommand.Type) -> [Argument]? {
        // The parser answers `--experimental-dump-help` before reading any other argument, with an error whose
        // message is the description.
        let description: String
        do {
            _ = try command.parseAsRoot(["--experimental-dump-help"])
            return nil
        } catch {
            description = command.fullMessage(for: error)
        }
        guard let tool = try? JSONDecoder().decode(Tool.self, from: Data(description.utf8)) else { return nil }
        return tool.command.arguments ?? []
    }
}

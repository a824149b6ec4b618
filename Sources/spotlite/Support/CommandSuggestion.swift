import ArgumentParser

/// Catches a mistyped subcommand before the argument parser does: `spotlite serch x` would otherwise read as two
/// unexpected arguments, and `spotlite help serch` would print the root help and succeed.
enum CommandSuggestion {
    /// The error message for `arguments` (without the program name) when they name a subcommand that does not
    /// exist, with the closest existing name; nil when the command path is fine.
    static func check(_ arguments: [String], root: ParsableCommand.Type) -> String? {
        var words = arguments[...]
        var isHelp = false
        if words.first == "help" {
            isHelp = true
            words = words.dropFirst()
        }
        var command = root
        var path = [root._commandName]
        for word in words {
            if word.hasPrefix("-") { break }
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { break }
            if let next = subcommands.first(where: { names(of: $0).contains(word) }) {
                command = next
                path.append(next._commandName)
                continue
            }
            // `help` is also a subcommand word at the root, handled above; elsewhere it is not one.
            let candidates = subcommands.flatMap(names(of:)) + (path.count == 1 ? ["help"] : [])
            let context = path.joined(separator: " ")
            var message = "unknown command \"\(word)\" for `\(context)`"
            if let suggestion = closest(to: word, among: candidates) {
                let corrected = (isHelp ? ["help"] : []) + path.dropFirst() + [suggestion]
                message += "; did you mean `spotlite \(corrected.joined(separator: " "))`?"
            } else {
                message += "; the commands are \(candidates.joined(separator: ", ")) (see `\(isHelp ? "spotlite help" : context + " --help")`)"
            }
            return message
        }
        return nil
    }

    /// The subcommand words that `arguments` name, e.g. `["history", "mark"]`, for pointing at their help.
    static func commandPath(_ arguments: [String], root: ParsableCommand.Type) -> [String] {
        commandTypes(arguments, root: root).dropFirst().map { $0._commandName }
    }

    /// The commands that `arguments` name, from `root` to the one that runs.
    static func commandTypes(_ arguments: [String], root: ParsableCommand.Type) -> [ParsableCommand.Type] {
        var commands = [root]
        for word in arguments.drop(while: { $0 == "help" }) {
            guard !word.hasPrefix("-"),
                  let next = commands[commands.count - 1].configuration.subcommands
                      .first(where: { names(of: $0).contains(word) }) else { break }
            commands.append(next)
        }
        return commands
    }

    private static func names(of command: ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }

    /// The candidate within a small edit distance of `word` (or which it starts), when there is one best.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0)) }
        let prefixed = candidates.filter { $0.hasPrefix(word.lowercased()) && word.count >= 2 }
        if prefixed.count == 1 { return prefixed[0] }
        let threshold = max(1, min(3, word.count / 3 + 1))
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= threshold else { return nil }
        return best.0
    }

    /// Damerau-Levenshtein distance (optimal string alignment): a swap of two letters counts as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}

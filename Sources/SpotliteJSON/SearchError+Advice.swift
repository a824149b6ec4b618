import SpotliteSearch
#if canImport(Glibc)
import Glibc
#endif

extension RecoveryVocabulary {
    /// The command line's: the `spotlite` commands that do it.
    package static let commandLine = RecoveryVocabulary(
        update: "run `spotlite index update`", rebuild: "run `spotlite index rebuild`",
        deleteAgain: "run `spotlite index delete` again", stoppedLiveIndexer: "a stopped `index watch`",
        historyMaximumDuration: "[history] maximum_duration", liveIndexing: "`spotlite index watch`")
}

extension SearchError {
    /// The error as the command line prints it and the server's problem details say it: the library's problem, in
    /// the user's words where the engine's name the index's internals, and the way out as a command.
    package var commandLineDescription: String {
        if case let .invalidQuery(query, reason) = self, EngineText.isInternal(reason.description) {
            return "cannot search for \"\(query)\": \(EngineText.readable(reason.description))"
        }
        let problem = self.problem
        let shown = EngineText.isInternal(problem) ? EngineText.readable(problem) : problem
        return recovery.map { "\(shown); \($0.text(.commandLine))" } ?? shown
    }
}

/// Xapian's messages name the index's internals: term prefixes (`XTNAME:lib*`), a remote server's `REMOTE:` type
/// prefix and its `(context: remote:tcp(…))`. The command line shows what the user wrote instead.
package enum EngineText {
    /// Whether `message` carries any of those internals.
    package static func isInternal(_ message: String) -> Bool {
        message.contains("REMOTE:") || message.contains("(context: ") || message.range(of: #"\bX[A-Z]+[:A-Za-z0-9_]*\S*\*"#, options: .regularExpression) != nil
    }

    /// `message` without the internals: a wildcard over its limit is said in the user's words.
    package static func readable(_ message: String) -> String {
        var text = message.replacingOccurrences(of: "REMOTE:", with: "")
        if let context = text.range(of: #" \(context: [^)]*\)+"#, options: .regularExpression) {
            text.removeSubrange(context)
        }
        // "Wildcard XTNAME:lib* expands to more than 1000 terms" (a field's prefix, upper case, before the word).
        if let match = text.range(of: #"Wildcard (\S+) expands to more than (\d+) terms"#, options: .regularExpression) {
            let words = text[match].split(separator: " ")
            let pattern = Self.userWord(String(words[1]))
            let limit = words.count > 5 ? String(words[5]) : "the limit of"
            text.replaceSubrange(match, with: "the wildcard \(pattern) matches more than \(limit) words; make it longer (more letters before the *) or add a filter")
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// The word of a prefixed term (`XTNAME:lib*` → `lib*`, `XSsection:ed*` → `ed*`); the word itself otherwise.
    package static func userWord(_ term: String) -> String {
        guard let first = term.first, first.isUppercase else { return term }
        if let colon = term.lastIndex(of: ":") { return String(term[term.index(after: colon)...]) }
        return String(term.drop { $0.isUppercase })
    }
}


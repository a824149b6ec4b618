import SpotliteSearch
#if canImport(Glibc)
import Glibc
#endif

extension SearchError {
    /// The error as the command line prints it and the server's problem details say it: the library's words, with
    /// the command that helps where there is one.
    package var commandLineDescription: String {
        switch self {
        case let .indexLocked(path, pid) where pid == nil || pid != getpid():
            let who = pid.map { " (pid \($0))" } ?? ""
            return "the index at \(path) is being updated by another process\(who); wait for it to finish or stop it (a stopped `index watch` releases it)"
        case let .indexMissing(path):
            return "no index at \(path); run `spotlite index update` to build it"
        case let .indexCorrupt(path, reason):
            return "the index at \(path) cannot be read (\(reason)); run `spotlite index rebuild` to build it again from the store"
        case let .invalidQuery(query, reason) where EngineText.isInternal(reason):
            return "cannot search for \"\(query)\": \(EngineText.readable(reason))"
        case let .engine(error, outcome):
            let what = "search engine error (\(error.type)): \(EngineText.readable(error.message))" + (outcome.map { " (\($0))" } ?? "")
            switch error.code {
            case .network, .networkTimeout:
                return what + "; check that the shard's server is running and reachable"
            case let code where code.isDamage:
                return what + "; run `spotlite index rebuild` to build the index again from the store"
            default:
                return what + "; check that the disk is not full and the index directory is writable, and run `spotlite index rebuild` if the index is damaged"
            }
        case let .shardUnavailable(shard, reason) where EngineText.isInternal(reason):
            return SearchError.shardUnavailable(shard: shard, reason: EngineText.readable(reason)).description
        case let .shardIdentityChanged(shard, expected, found):
            return "shard \(shard) serves another database (UUID \(found), the index's shard map records \(expected)); point its server at the shard's database, or run `spotlite index rebuild` to index the store into it again"
        case let .indexPartlyDeleted(shard, error):
            return "\(Self.emptyingFailure(shard: shard, error: error)); the shard map stays until every shard is emptied: \(Self.emptyingRetry(error)) run `spotlite index delete` again"
        default:
            return description
        }
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


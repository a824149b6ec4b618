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
        case let .engine(error, outcome):
            let what = "search engine error (\(error.type)): \(error.message)" + (outcome.map { " (\($0))" } ?? "")
            switch error.code {
            case .network, .networkTimeout:
                return what + "; check that the shard's server is running and reachable"
            case let code where code.isDamage:
                return what + "; run `spotlite index rebuild` to build the index again from the store"
            default:
                return what + "; check that the disk is not full and the index directory is writable, and run `spotlite index rebuild` if the index is damaged"
            }
        case let .shardIdentityChanged(shard, expected, found):
            return "shard \(shard) serves another database (UUID \(found), the index's shard map records \(expected)); point its server at the shard's database, or run `spotlite index rebuild` to index the store into it again"
        case let .indexPartlyDeleted(shard, error):
            return "\(Self.emptyingFailure(shard: shard, error: error)); the shard map stays until every shard is emptied: \(Self.emptyingRetry(error)) run `spotlite index delete` again"
        default:
            return description
        }
    }
}

import Foundation
import SpotliteStore
#if canImport(Glibc)
import Glibc
#endif

/// Errors of the indexer and the query API. Each description names the problem and the way out.
public enum SearchError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Another indexer (in this process or another) is updating the index.
    case indexLocked(path: String, holderPID: Int32?)
    /// A file or directory could not be created or written.
    case cannotWrite(path: String, reason: String)
    /// An update gave up because the store's history kept being deleted (last through `purgedThrough`) before the
    /// index could read what followed a rebuild (`rebuilds`: how many the update made): history cleanup outpaces
    /// rebuilding. Nothing is wrong with the disk; the index holds its last rebuild, and the next update goes on.
    case historyDeletedWhileRebuilding(path: String, purgedThrough: HistoryToken, rebuilds: Int)
    /// There is no index at the path (search before the first `index update`).
    case indexMissing(path: String)
    /// The index exists but cannot be read (truncated or damaged files).
    case indexCorrupt(path: String, reason: String)
    /// The query could not be parsed, or cannot be searched as written: `reason` says whether the engine's parser
    /// could not read it or Spotlite refuses it, saying what to write instead.
    case invalidQuery(query: String, reason: QueryProblem)
    /// The search asked for more than a search may cost: `exceeded` names the part of the budget (hits, depth,
    /// bytes, words, time) with its figures.
    case overBudget(query: String, exceeded: SearchBudgetItem)
    /// An entity that the configuration does not describe.
    case unknownEntity(String, known: [String])
    /// A field that the entity does not index, or does not index in the way asked.
    case unknownField(String, reason: FieldProblem)
    /// A keyword filter that is not `FIELD:VALUE` (``SearchFilter/init(parsing:)``): the text as given, and what
    /// part of it is missing.
    case invalidFilter(String, reason: FilterProblem)
    /// The Xapian engine failed in a way no case above describes. Decide by the error's
    /// ``XapianError/code`` (or ``engineCode``: for example ``XapianError/Code/network`` for a remote shard);
    /// `outcome`, when given, says what the failure left behind (such as ``EngineFailureOutcome/rebuildDiscarded``:
    /// the index in use is unchanged). The engine's wrappers throw every failure of the engine as this case, with
    /// no outcome.
    case engine(XapianError, outcome: EngineFailureOutcome? = nil)
    /// `deleteIndex()` while live indexing runs.
    case indexingRunning
    /// A relevance query set (`key<TAB>query` lines) that cannot be read.
    case invalidQuerySet(source: String, line: Int, reason: QuerySetProblem)
    /// Ranking options (BM25 parameters, proximity, expansion) out of their range.
    case invalidRanking(reason: RankingProblem)
    /// A shard at a configured location (`HOST:PORT` of a `xapian-tcpsrv`, or a path) cannot be reached or stopped
    /// answering within its timeout.
    case shardUnavailable(shard: String, reason: String)
    /// A shard answers with another database than the one the index's shard map records (by UUID).
    case shardIdentityChanged(shard: String, expected: String, found: String)
    /// Deleting the index failed on a placed shard after the shards before it were emptied: the shard map stays, so
    /// deleting the index again (once the shard answers) finishes the job.
    case indexPartlyDeleted(shard: String, error: XapianError)

    /// The problem and the way out, in one line, the way out in the library's terms (``RecoveryVocabulary/library``).
    public var description: String { description(using: .library) }

    /// The problem and the way out, in one line, the way out's actions named by `vocabulary`.
    public func description(using vocabulary: RecoveryVocabulary) -> String {
        recovery.map { "\(problem); \($0.text(vocabulary))" } ?? problem
    }

    /// What went wrong, without the way out.
    public var problem: String {
        switch self {
        case let .indexLocked(path, pid):
            if let pid, pid == getpid() {
                return "the index at \(path) is being updated by another indexer in this process (pid \(pid))"
            }
            return "the index at \(path) is being updated by another process\(pid.map { " (pid \($0))" } ?? "")"
        case let .cannotWrite(path, reason):
            return "cannot write \(path): \(reason)"
        case let .historyDeletedWhileRebuilding(path, purgedThrough, rebuilds):
            return "the store's history is deleted faster than the index at \(path) is rebuilt (deleted through token \(purgedThrough) before the index could read what followed its rebuild; \(rebuilds) rebuilds in this update)"
        case let .indexMissing(path):
            return "no index at \(path)"
        case let .indexCorrupt(path, reason):
            return "the index at \(path) cannot be read (\(reason))"
        case let .invalidQuery(query, reason):
            return "cannot parse the query \"\(Self.shown(query))\": \(reason)"
        case let .overBudget(query, exceeded):
            return "the query \"\(Self.shown(query))\" is over its budget: \(exceeded)"
        case let .unknownEntity(name, known):
            return "unknown entity \"\(name)\"; the configuration describes: \(known.isEmpty ? "no entities" : known.joined(separator: ", "))"
        case let .unknownField(name, reason):
            return "unknown field \"\(name)\": \(reason)"
        case let .invalidFilter(text, reason):
            return "the filter \"\(text)\" \(reason); a filter is FIELD:VALUE, a keyword field and one of its values, e.g. section:utils"
        case let .engine(error, outcome):
            return "search engine error (\(error.type)): \(error.message)" + (outcome.map { " (\($0))" } ?? "")
        case .indexingRunning:
            return "the indexer is running"
        case let .invalidQuerySet(source, line, reason):
            return "\(source), line \(line): \(reason); each line is KEY<TAB>QUERY (blank lines and lines starting with # are skipped)"
        case let .invalidRanking(reason):
            return "invalid ranking options: \(reason); give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"
        case let .shardUnavailable(shard, reason):
            return "shard \(shard) is unavailable (\(reason))"
        case let .shardIdentityChanged(shard, expected, found):
            return "shard \(shard) serves another database (UUID \(found), the index's shard map records \(expected))"
        case let .indexPartlyDeleted(shard, error):
            return "\(Self.emptyingFailure(shard: shard, error: error)); the shard map stays until every shard is emptied"
        }
    }

    /// What to do about it; nil when the problem's own words say what to write instead (a filter, a field, a
    /// query whose reason names the fix).
    public var recovery: SearchRecovery? {
        switch self {
        case let .indexLocked(_, pid):
            return pid.map { $0 == getpid() } == true ? .stopIndexerInProcess : .waitForOtherIndexer
        case .cannotWrite: return .checkWritable
        case .historyDeletedWhileRebuilding: return .keepHistoryThroughRebuilds
        case .indexMissing: return .buildIndex
        case .indexCorrupt: return .rebuildIndex
        case .invalidQuery(_, .syntax):
            return .checkQuerySyntax
        case .invalidQuery(_, .refused):
            // The explanation says what to write instead (a range's bound, a date): it is the way out.
            return nil
        case .overBudget, .unknownEntity, .unknownField, .invalidFilter, .invalidQuerySet, .invalidRanking:
            return nil
        case let .engine(error, _):
            switch error.code {
            case .network, .networkTimeout: return .checkShardServer
            case let code where code.isDamage: return .rebuildIndex
            default: return .checkDiskOrRebuild
            }
        case .indexingRunning: return .stopIndexing
        case .shardUnavailable: return .startShardServer
        case .shardIdentityChanged: return .repointShardOrRebuild
        case let .indexPartlyDeleted(_, error):
            return .deleteIndexAgain(startServerFirst: error.code == .network || error.code == .networkTimeout)
        }
    }

    /// A query as errors quote it: its first 80 characters.
    private static func shown(_ query: String) -> String {
        query.count > 80 ? String(query.prefix(80)) + "…" : query
    }

    /// The first half of ``indexPartlyDeleted(shard:error:)``'s description, shared with the command line's.
    package static func emptyingFailure(shard: String, error: XapianError) -> String {
        "search engine error (\(error.type)) while emptying shard \(shard) of the index: \(error.message)"
    }

    /// The engine's failure behind ``engine(_:outcome:)`` and ``indexPartlyDeleted(shard:error:)``, by its code (a
    /// remote shard's ``XapianError/Code/network``, damage, …); nil for every other case.
    public var engineCode: XapianError.Code? {
        switch self {
        case let .engine(error, _), let .indexPartlyDeleted(_, error): return error.code
        default: return nil
        }
    }

    /// The same as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// A Xapian failure met while reading the index: damage or a database that cannot be opened makes the index
    /// unreadable (``indexCorrupt(path:reason:)``); a remote shard's failure and anything else stay typed
    /// (``engine(_:outcome:)``), since rebuilding would not help.
    static func reading(_ error: XapianError, path: String) -> SearchError {
        switch error.code {
        case .databaseCorrupt, .database, .databaseOpening, .databaseNotFound, .databaseVersion, .databaseClosed, .documentNotFound, .serialisation:
            return .indexCorrupt(path: path, reason: error.description)
        case .databaseLock:
            return .indexLocked(path: path, holderPID: nil)
        default:
            return .engine(error)
        }
    }
}

/// The way out of a ``SearchError``: what to do, said once, so that each front end (the library's description, the
/// command line, the server's problem details) names the action in its own terms (``RecoveryVocabulary``).
public enum SearchRecovery: Sendable, Hashable {
    /// Build the index from the store (there is none yet).
    case buildIndex
    /// Build the index again from the store (it cannot be read).
    case rebuildIndex
    /// The disk may be full or the index damaged: check the one, rebuild for the other.
    case checkDiskOrRebuild
    /// Another process updates the index: wait for it or stop it.
    case waitForOtherIndexer
    /// Another indexer of this process updates the index: stop it or let it finish first.
    case stopIndexerInProcess
    /// Stop the live indexer before deleting the index.
    case stopIndexing
    /// A path cannot be written: check the directory, its permissions and the disk.
    case checkWritable
    /// A placed shard cannot be reached: start its server or fix the configured locations.
    case startShardServer
    /// A shard's server failed during a request: check that it runs and can be reached.
    case checkShardServer
    /// A shard's server serves another database: point it at the right one, or rebuild the index into it.
    case repointShardOrRebuild
    /// Deleting the index stopped at a shard: bring the shard back (its server, when `startServerFirst`), then
    /// delete the index again.
    case deleteIndexAgain(startServerFirst: Bool)
    /// The query's syntax: quotes, brackets and operators.
    case checkQuerySyntax
    /// History is deleted before the index can read what follows a rebuild: keep history longer than a rebuild
    /// takes, or keep the index up to date so that it never needs one.
    case keepHistoryThroughRebuilds

    /// The way out in words, with the actions named as `vocabulary` names them.
    public func text(_ vocabulary: RecoveryVocabulary) -> String {
        switch self {
        case .buildIndex:
            return "\(vocabulary.update) to build it"
        case .rebuildIndex:
            return "\(vocabulary.rebuild) to build it again from the store"
        case .checkDiskOrRebuild:
            return "check that the disk is not full and the index directory is writable, and \(vocabulary.rebuild) if the index is damaged"
        case .waitForOtherIndexer:
            return "wait for it to finish or stop it (\(vocabulary.stoppedLiveIndexer) releases it)"
        case .stopIndexerInProcess:
            return "stop it (or let its update finish) before updating the index from here"
        case .stopIndexing:
            return "call stop() before deleting the index"
        case .checkWritable:
            return "check that the directory exists, is writable and the disk is not full"
        case .startShardServer:
            return "start its xapian-tcpsrv or fix `shards` in the configuration (the index keeps what every shard committed; the next update catches up)"
        case .checkShardServer:
            return "check that the shard's server is running and reachable"
        case .repointShardOrRebuild:
            return "point its server at the shard's database, or \(vocabulary.rebuild) to index the store into it again"
        case .deleteIndexAgain(let startServerFirst):
            return "\(startServerFirst ? "start the shard's server" : "fix the shard"), then \(vocabulary.deleteAgain)"
        case .checkQuerySyntax:
            return "check quotes, brackets and operators (AND, OR, NOT need words on both sides)"
        case .keepHistoryThroughRebuilds:
            return "raise \(vocabulary.historyMaximumDuration) so that it outlasts a rebuild, or keep the index up to date with \(vocabulary.liveIndexing)"
        }
    }
}

/// How a front end names the actions of a ``SearchRecovery``: an app calls methods, the command line runs commands.
public struct RecoveryVocabulary: Sendable, Hashable {
    /// Building the index from the store, e.g. "update the index (SpotliteIndexer.update())".
    public var update: String
    /// Rebuilding it, e.g. "rebuild the index (SpotliteIndexer.rebuild())".
    public var rebuild: String
    /// Deleting it again, e.g. "delete the index again (SpotliteIndexer.deleteIndex())".
    public var deleteAgain: String
    /// What releases the index when stopped, e.g. "a stopped live indexer".
    public var stoppedLiveIndexer: String
    /// The setting deciding how long history is kept, e.g. "the history's maximum duration
    /// (HistoryDeletionPolicy.maximumDuration)".
    public var historyMaximumDuration: String
    /// Keeping the index up to date as commits happen, e.g. "live indexing (SpotliteIndexer.start())".
    public var liveIndexing: String

    /// A vocabulary naming these actions; `historyMaximumDuration` and `liveIndexing` default to the library's words.
    public init(update: String, rebuild: String, deleteAgain: String, stoppedLiveIndexer: String,
                historyMaximumDuration: String = RecoveryVocabulary.library.historyMaximumDuration,
                liveIndexing: String = RecoveryVocabulary.library.liveIndexing) {
        self.update = update
        self.rebuild = rebuild
        self.deleteAgain = deleteAgain
        self.stoppedLiveIndexer = stoppedLiveIndexer
        self.historyMaximumDuration = historyMaximumDuration
        self.liveIndexing = liveIndexing
    }

    /// The library's: the methods of ``SpotliteIndexer``. ``SearchError/description`` uses it.
    public static let library = RecoveryVocabulary(
        update: "update the index (SpotliteIndexer.update())", rebuild: "rebuild the index (SpotliteIndexer.rebuild())",
        deleteAgain: "delete the index again (SpotliteIndexer.deleteIndex())", stoppedLiveIndexer: "a stopped live indexer",
        historyMaximumDuration: "the history's maximum duration (HistoryDeletionPolicy.maximumDuration)",
        liveIndexing: "live indexing (SpotliteIndexer.start())")
}

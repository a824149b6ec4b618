import SpotliteStore

// The names SpotliteSearch used before version 0.1.0, kept for one minor version so that an app written against
// them still builds, with a warning naming the new one (CHANGELOG.md, "Renamed"). They go in 0.2.0.
//
// `Configuration` (now `SpotliteConfiguration`) has no alias: GRDB, which SpotliteStore re-exports, has a
// `Configuration` of its own, and a second one would make every app's use of GRDB's ambiguous.

/// The old name of `RecordID`: the store's record identity, byte for byte, is the one the indexer uses from history
/// to document.
@available(*, deprecated, renamed: "RecordID")
public typealias IndexRecordID = RecordID

/// The old name of `HistoryDeletionSchedule`, the configuration's `[history] clean`.
@available(*, deprecated, renamed: "HistoryDeletionSchedule")
public typealias CleanPolicy = HistoryDeletionSchedule

extension HistoryConfiguration {
    /// The old name of ``deletionSchedule``.
    @available(*, deprecated, renamed: "deletionSchedule")
    public var clean: HistoryDeletionSchedule {
        get { deletionSchedule }
        set { deletionSchedule = newValue }
    }

    /// The old form of the initialiser, with `clean` (now `deletionSchedule`).
    @available(*, deprecated, renamed: "init(authors:batchAuthors:mirrorAuthors:deliversUnattributedTransactions:maximumDuration:deletionSchedule:)")
    public init(authors: [String] = [], batchAuthors: [String] = [], mirrorAuthors: [String] = [],
                deliversUnattributedTransactions: Bool = true,
                maximumDuration: Duration? = HistoryConfiguration.defaultMaximumDuration, clean: HistoryDeletionSchedule) {
        self.init(authors: authors, batchAuthors: batchAuthors, mirrorAuthors: mirrorAuthors,
                  deliversUnattributedTransactions: deliversUnattributedTransactions, maximumDuration: maximumDuration,
                  deletionSchedule: clean)
    }
}

extension RankingOptions {
    /// The old name of ``knownItemFitted``.
    @available(*, deprecated, renamed: "knownItemFitted")
    public static var tuned: RankingOptions { knownItemFitted }
}

extension SpotliteConfiguration {
    /// Where the `spotlite` command looks for its configuration when given none. The library reads the path it
    /// is given; this default belongs to the command line.
    @available(*, deprecated, message: "the spotlite command's default, not the library's: pass the configuration's path")
    public static var defaultPath: String { "config/spotlite.toml" }
}

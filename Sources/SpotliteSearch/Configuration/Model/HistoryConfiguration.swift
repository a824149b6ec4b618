import SpotliteStore

/// The `[history]` table: which authors take part in shared history cleanup, and how often it runs.
public struct HistoryConfiguration: Sendable, Hashable {
    /// Authors taking part in shared cleanup (Core Data trackers' `allAuthors`).
    public var authors: [String]
    /// Write-only authors, a subset of `authors`: cleanup does not wait for their position.
    public var batchAuthors: [String]
    /// Authors of a sync engine's imports, merged only when a tracker asks for them.
    public var mirrorAuthors: [String]
    /// Whether trackers built from the configuration deliver unattributed transactions: writes by programs that do
    /// not use Spotlite, such as the `sqlite3` shell (`deliver_unattributed`, true by default). When false, their
    /// position passes over them, and they log it.
    public var deliversUnattributedTransactions: Bool
    /// History older than this may be purged even if a required author lags (that author then resynchronises);
    /// 7 days by default, as in Core Data's history tracking kits. `nil` (`"none"` in the file) never purges history
    /// that a required author has not consumed.
    public var maximumDuration: Duration?
    /// Seven days.
    public static let defaultMaximumDuration: Duration = .seconds(7 * 86_400)
    /// When consumed history is deleted on its own (`clean`: `"none"`, `{ every = "4h" }` or
    /// `{ notifications = 50 }`).
    public var deletionSchedule: HistoryDeletionSchedule

    /// Creates the history settings; the defaults are those of an absent `[history]` table.
    public init(
        authors: [String] = [],
        batchAuthors: [String] = [],
        mirrorAuthors: [String] = [],
        deliversUnattributedTransactions: Bool = true,
        maximumDuration: Duration? = HistoryConfiguration.defaultMaximumDuration,
        deletionSchedule: HistoryDeletionSchedule = .none
    ) {
        self.authors = authors
        self.batchAuthors = batchAuthors
        self.mirrorAuthors = mirrorAuthors
        self.deliversUnattributedTransactions = deliversUnattributedTransactions
        self.maximumDuration = maximumDuration
        self.deletionSchedule = deletionSchedule
    }

    /// The authors whose positions bound cleanup: `authors` without `batchAuthors`, in file order.
    public var requiredAuthors: [String] {
        authors.filter { !batchAuthors.contains($0) }
    }
}

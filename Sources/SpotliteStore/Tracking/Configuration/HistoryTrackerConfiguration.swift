import Foundation
import Logging

/// How a ``HistoryTracker`` reads, delivers and cleans history, configured like PersistentHistoryTrackingKit.
///
/// ```swift
/// var configuration = HistoryTrackerConfiguration(
///     currentAuthor: "app", allAuthors: ["app", "widget", "importer"], batchAuthors: ["importer"])
/// configuration.deletionSchedule = .notifications(50)
/// configuration.consumers = ["spotlite.indexer"]
/// ```
public struct HistoryTrackerConfiguration: Sendable {
    /// The author this process writes as: its transactions are not delivered back to it, and its position is
    /// saved under ``positionKey``.
    public var currentAuthor: String
    /// Every author taking part in this store's shared history, the current one included (the kit's `allAuthors`):
    /// cleanup waits for their positions (batch authors excepted) and deletes their transactions. Delivery does not
    /// depend on it: other authors' transactions are delivered whether listed or not (see ``passOverReason(for:)``).
    public var allAuthors: [String]
    /// Write-only members of ``allAuthors`` (batch importers, extensions): delivered to readers, but cleanup does
    /// not wait for a position of theirs.
    public var batchAuthors: [String]
    /// Authors of a sync engine's imports (the kit's CloudKit mirroring author). Delivered only when
    /// ``includesMirrorAuthors`` is set.
    public var mirrorAuthors: [String]
    /// Also deliver the ``mirrorAuthors``' transactions (the kit's `includingCloudKitMirroring`).
    public var includesMirrorAuthors: Bool
    /// Context names under which the current author runs batch operations. Those bypass the app's in-memory
    /// state, so the current author's transactions from these contexts are delivered to it too.
    public var batchContextNames: Set<String>
    /// Deliver unattributed transactions: writes by programs that do not use Spotlite (the `sqlite3` shell). On by
    /// default, since they change the rows like any other write; turned off, the position passes over them (logged).
    public var includesUnattributedTransactions: Bool
    /// Position names of other consumers of this store's history (the search indexer's author, for one); cleanup
    /// waits for each of them as for a required author. See ``HistoryPositionHolder``; registered consumers (``SpotliteStore/registerConsumer(_:position:)``) are waited for without being listed.
    public var consumers: [String]
    /// When the tracker cleans on its own.
    public var deletionSchedule: HistoryDeletionSchedule
    /// History older than this is deleted by cleanup even when a required author has not consumed it, and a
    /// required author without any position stops holding history back once it has been absent this long.
    /// That author then gets ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` and must resynchronise.
    /// Nil keeps history for laggards forever.
    public var maximumDuration: Duration?
    /// Also delete unattributed transactions and those of unlisted authors below the watermark. Off by
    /// default: only the listed authors' transactions are deleted (older than ``maximumDuration``, all are).
    public var deletesUnlistedAuthors: Bool
    /// Prefix of the position names this tracker saves and reads in the store (the kit's `uniqueString`). Empty by
    /// default, so positions are the author names that `spotlite history clean` and the configuration file use.
    public var positionKeyPrefix: String
    /// Where the tracker logs.
    public var logger: Logger
    /// How much it logs.
    public var logLevel: TrackerLogLevel
    /// Start tracking as soon as the tracker is created.
    public var autoStart: Bool
    /// The most transactions fetched and delivered at once; more are delivered in several rounds, each advancing
    /// the position.
    public var fetchBatchSize: Int

    /// A configuration with the kit's defaults: no automatic cleanup, a maximum duration of seven days, detailed
    /// logging off, started on creation; unattributed writes delivered.
    public init(
        currentAuthor: String,
        allAuthors: [String],
        batchAuthors: [String] = [],
        mirrorAuthors: [String] = [],
        includesMirrorAuthors: Bool = false,
        batchContextNames: Set<String> = [],
        includesUnattributedTransactions: Bool = true,
        consumers: [String] = [],
        deletionSchedule: HistoryDeletionSchedule = .none,
        maximumDuration: Duration? = .seconds(7 * 86_400),
        deletesUnlistedAuthors: Bool = false,
        positionKeyPrefix: String = "",
        logger: Logger = Logger(label: "spotlite.tracker"),
        logLevel: TrackerLogLevel = .important,
        autoStart: Bool = true,
        fetchBatchSize: Int = 500
    ) {
        self.currentAuthor = currentAuthor
        self.allAuthors = allAuthors
        self.batchAuthors = batchAuthors
        self.mirrorAuthors = mirrorAuthors
        self.includesMirrorAuthors = includesMirrorAuthors
        self.batchContextNames = batchContextNames
        self.includesUnattributedTransactions = includesUnattributedTransactions
        self.consumers = consumers
        self.deletionSchedule = deletionSchedule
        self.maximumDuration = maximumDuration
        self.deletesUnlistedAuthors = deletesUnlistedAuthors
        self.positionKeyPrefix = positionKeyPrefix
        self.logger = logger
        self.logLevel = logLevel
        self.autoStart = autoStart
        self.fetchBatchSize = fetchBatchSize
    }

    /// The name under which `author`'s position is saved in the store.
    public func positionKey(for author: String) -> String {
        positionKeyPrefix + author
    }

    /// The name under which the current author's position is saved in the store.
    public var positionKey: String { positionKey(for: currentAuthor) }

    /// Why a transaction is not delivered to the current author, or nil when it is. Every transaction is delivered
    /// (whatever its author: unlisted ones such as `spotlite.migration` and `spotlite.import` too) except the
    /// current author's own outside its batch contexts, and those a setting of this configuration leaves out:
    /// mirror authors without ``includesMirrorAuthors``, unattributed writes without
    /// ``includesUnattributedTransactions``. The tracker's position passes over those, and it logs how many.
    public func passOverReason(for transaction: HistoryTransaction) -> TrackerPassOverReason? {
        guard let author = transaction.author else {
            return includesUnattributedTransactions ? nil : .unattributed
        }
        if author == currentAuthor {
            guard let context = transaction.contextName, batchContextNames.contains(context) else { return .ownWrite }
            return nil
        }
        if !includesMirrorAuthors, mirrorAuthors.contains(author), !allAuthors.contains(author) { return .mirrorAuthor }
        return nil
    }

    /// Who cleanup waits for and whose transactions it deletes: the positions of all authors but the batch
    /// authors, plus every consumer's.
    public var deletionPolicy: HistoryDeletionPolicy {
        let readers = allAuthors.filter { !batchAuthors.contains($0) }.map(positionKey(for:))
        return HistoryDeletionPolicy(
            requiredAuthors: readers + consumers.filter { !readers.contains($0) }, listedAuthors: allAuthors,
            deletesUnlistedAuthors: deletesUnlistedAuthors, maximumDuration: maximumDuration?.timeInterval)
    }

    /// Throws the first problem that would keep the tracker from working as configured.
    public func validate() throws(SpotliteStoreError) {
        try Self.validateName(currentAuthor, role: .currentAuthor)
        for author in allAuthors { try Self.validateName(author, role: .listedAuthor) }
        for author in mirrorAuthors { try Self.validateName(author, role: .mirrorAuthor) }
        for consumer in consumers { try Self.validateName(consumer, role: .consumer) }
        guard allAuthors.contains(currentAuthor) else { throw .currentAuthorNotListed(currentAuthor) }
        for author in batchAuthors {
            guard allAuthors.contains(author) else { throw .batchAuthorNotListed(author) }
        }
        if batchAuthors.contains(currentAuthor) { throw .currentAuthorIsBatchAuthor(currentAuthor) }
        switch deletionSchedule {
        case .none:
            break
        case .every(let interval):
            guard interval > .zero else { throw .invalidDuration(interval, role: .deletionInterval) }
        case .notifications(let times):
            guard times >= 1 else { throw .invalidNotificationCount(times) }
        }
        if let maximumDuration, maximumDuration <= .zero {
            throw .invalidDuration(maximumDuration, role: .maximumDuration)
        }
        guard fetchBatchSize >= 1 else { throw .invalidBatchSize(fetchBatchSize, of: .trackerFetch) }
    }

    private static func validateName(_ name: String, role: SpotliteStoreError.AuthorRole) throws(SpotliteStoreError) {
        guard let first = name.first, let last = name.last, !first.isWhitespace, !last.isWhitespace else {
            throw .invalidAuthorName(name, role: role)
        }
    }
}

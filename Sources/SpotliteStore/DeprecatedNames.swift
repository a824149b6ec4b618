import Foundation
import Logging

// The names SpotliteStore used before version 0.1.0, kept for one minor version so that an app written against
// them still builds, with a warning naming the new one (CHANGELOG.md, "Renamed"). They go in 0.2.0.

/// The old name of ``HistoryDeleter``.
@available(*, deprecated, renamed: "HistoryDeleter")
public typealias HistoryCleaner = HistoryDeleter

/// The old name of ``HistoryDeletionPolicy``.
@available(*, deprecated, renamed: "HistoryDeletionPolicy")
public typealias CleanupPolicy = HistoryDeletionPolicy

/// The old name of ``HistoryDeletionResult``.
@available(*, deprecated, renamed: "HistoryDeletionResult")
public typealias CleanupResult = HistoryDeletionResult

/// The old name of ``HistoryDeletionSchedule``, the tracker's clean strategy.
@available(*, deprecated, renamed: "HistoryDeletionSchedule")
public typealias CleanStrategy = HistoryDeletionSchedule

extension HistoryDeletionSchedule {
    /// The old name of ``every(_:)``. A `switch` must name the new case.
    @available(*, deprecated, renamed: "every(_:)")
    public static func byDuration(_ interval: Duration) -> Self { .every(interval) }

    /// The old name of ``notifications(_:)``. A `switch` must name the new case.
    @available(*, deprecated, renamed: "notifications(_:)")
    public static func byNotification(times: Int) -> Self { .notifications(times) }
}

extension HistoryDeleter {
    /// The old name of ``deleteConsumedHistory(dryRun:now:)``.
    ///
    /// - Throws: the errors of ``deleteConsumedHistory(dryRun:now:)``.
    @available(*, deprecated, renamed: "deleteConsumedHistory(dryRun:now:)")
    public func clean(dryRun: Bool = false, now: Date = Date()) throws -> HistoryDeletionResult {
        try deleteConsumedHistory(dryRun: dryRun, now: now)
    }
}

extension HistoryDeletionPolicy {
    /// The old name of ``deletesUnlistedAuthors``.
    @available(*, deprecated, renamed: "deletesUnlistedAuthors")
    public var purgesUnlistedAuthors: Bool {
        get { deletesUnlistedAuthors }
        set { deletesUnlistedAuthors = newValue }
    }

    /// The old form of ``init(requiredAuthors:listedAuthors:deletesUnlistedAuthors:maximumDuration:)``.
    @available(*, deprecated, renamed: "init(requiredAuthors:listedAuthors:deletesUnlistedAuthors:maximumDuration:)")
    public init(requiredAuthors: [String], listedAuthors: [String]? = nil, purgesUnlistedAuthors: Bool,
                maximumDuration: TimeInterval? = 7 * 86_400) {
        self.init(requiredAuthors: requiredAuthors, listedAuthors: listedAuthors,
                  deletesUnlistedAuthors: purgesUnlistedAuthors, maximumDuration: maximumDuration)
    }
}

extension HistoryTrackerConfiguration {
    /// The old name of ``deletionSchedule``.
    @available(*, deprecated, renamed: "deletionSchedule")
    public var cleanStrategy: HistoryDeletionSchedule {
        get { deletionSchedule }
        set { deletionSchedule = newValue }
    }

    /// The old name of ``deletesUnlistedAuthors``.
    @available(*, deprecated, renamed: "deletesUnlistedAuthors")
    public var purgesUnlistedAuthors: Bool {
        get { deletesUnlistedAuthors }
        set { deletesUnlistedAuthors = newValue }
    }

    /// The old name of ``deletionPolicy``.
    @available(*, deprecated, renamed: "deletionPolicy")
    public var cleanupPolicy: HistoryDeletionPolicy { deletionPolicy }

    /// The old form of the initialiser, with `cleanStrategy` (now `deletionSchedule`) and `purgesUnlistedAuthors`
    /// (now `deletesUnlistedAuthors`).
    @available(*, deprecated, message: "use init(currentAuthor:allAuthors:…:deletionSchedule:maximumDuration:deletesUnlistedAuthors:…)")
    public init(
        currentAuthor: String, allAuthors: [String], batchAuthors: [String] = [], mirrorAuthors: [String] = [],
        includesMirrorAuthors: Bool = false, batchContextNames: Set<String> = [],
        includesUnattributedTransactions: Bool = true, consumers: [String] = [], cleanStrategy: HistoryDeletionSchedule,
        maximumDuration: Duration? = .seconds(7 * 86_400), purgesUnlistedAuthors: Bool = false,
        positionKeyPrefix: String = "", logger: Logger = Logger(label: "spotlite.tracker"),
        logLevel: TrackerLogLevel = .important, autoStart: Bool = true, fetchBatchSize: Int = 500
    ) {
        self.init(currentAuthor: currentAuthor, allAuthors: allAuthors, batchAuthors: batchAuthors,
                  mirrorAuthors: mirrorAuthors, includesMirrorAuthors: includesMirrorAuthors,
                  batchContextNames: batchContextNames,
                  includesUnattributedTransactions: includesUnattributedTransactions, consumers: consumers,
                  deletionSchedule: cleanStrategy, maximumDuration: maximumDuration,
                  deletesUnlistedAuthors: purgesUnlistedAuthors, positionKeyPrefix: positionKeyPrefix, logger: logger,
                  logLevel: logLevel, autoStart: autoStart, fetchBatchSize: fetchBatchSize)
    }

    /// The old form of the initialiser with `purgesUnlistedAuthors` (now `deletesUnlistedAuthors`).
    @available(*, deprecated, message: "use init(currentAuthor:allAuthors:…:deletesUnlistedAuthors:…)")
    public init(
        currentAuthor: String, allAuthors: [String], batchAuthors: [String] = [], mirrorAuthors: [String] = [],
        includesMirrorAuthors: Bool = false, batchContextNames: Set<String> = [],
        includesUnattributedTransactions: Bool = true, consumers: [String] = [],
        maximumDuration: Duration? = .seconds(7 * 86_400), purgesUnlistedAuthors: Bool,
        positionKeyPrefix: String = "", logger: Logger = Logger(label: "spotlite.tracker"),
        logLevel: TrackerLogLevel = .important, autoStart: Bool = true, fetchBatchSize: Int = 500
    ) {
        self.init(currentAuthor: currentAuthor, allAuthors: allAuthors, batchAuthors: batchAuthors,
                  mirrorAuthors: mirrorAuthors, includesMirrorAuthors: includesMirrorAuthors,
                  batchContextNames: batchContextNames,
                  includesUnattributedTransactions: includesUnattributedTransactions, consumers: consumers,
                  deletionSchedule: .none, maximumDuration: maximumDuration,
                  deletesUnlistedAuthors: purgesUnlistedAuthors, positionKeyPrefix: positionKeyPrefix, logger: logger,
                  logLevel: logLevel, autoStart: autoStart, fetchBatchSize: fetchBatchSize)
    }
}

extension HistoryTracker {
    /// The old name of ``deleter()``.
    @available(*, deprecated, renamed: "deleter()")
    public func cleaner() -> HistoryDeleter { deleter() }

    /// The old name of ``deletionPolicy``.
    @available(*, deprecated, renamed: "deletionPolicy")
    public var cleanupPolicy: HistoryDeletionPolicy { deletionPolicy }
}

extension TrackerPassSummary {
    /// The old name of ``deletion``.
    @available(*, deprecated, renamed: "deletion")
    public var cleanup: HistoryDeletionResult? {
        get { deletion }
        set { deletion = newValue }
    }

    /// The old form of ``init(deliveredTransactions:position:deletion:)``.
    @available(*, deprecated, renamed: "init(deliveredTransactions:position:deletion:)")
    public init(deliveredTransactions: Int = 0, position: HistoryToken? = nil, cleanup: HistoryDeletionResult?) {
        self.init(deliveredTransactions: deliveredTransactions, position: position, deletion: cleanup)
    }
}

extension HistoryTrackerEvent {
    /// The old name of ``deletedHistory(_:)``, for making the event; a `switch` must name the new case.
    @available(*, deprecated, renamed: "deletedHistory(_:)")
    public static func cleaned(_ result: HistoryDeletionResult) -> Self { .deletedHistory(result) }
}

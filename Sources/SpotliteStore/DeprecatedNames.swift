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

// SpotliteStore's five error types became one, ``SpotliteStoreError``, in 0.2.0 (CHANGELOG.md, "One error type").
// Their names stay as aliases so that an app's `catch HistoryError.expiredToken(…)` still compiles and matches exactly
// what it matched. They carry a message rather than `renamed:`: a fix-it turning `catch is HistoryError` into
// `catch is SpotliteStoreError` would silently widen it to every error of the library. For the same reason the one
// type has a new name: had it kept `StoreError`'s, an app's `catch is StoreError` would widen without a word.

/// The former type of errors opening and writing a store, now cases of ``SpotliteStoreError`` (its
/// ``SpotliteStoreError/area`` is `.store`).
@available(*, deprecated, message: "StoreError's cases are SpotliteStoreError's now, beside those of HistoryError, MigrationError, TrackerError and ImportError. Matching a case (catch StoreError.readOnlyStore) means what it did, but `catch is StoreError` or `as? StoreError` now matches every error of SpotliteStore: write `catch let error as SpotliteStoreError where error.area == .store`")
public typealias StoreError = SpotliteStoreError

/// The former type of history request errors, now cases of ``SpotliteStoreError`` (its ``SpotliteStoreError/area`` is
/// `.history`).
@available(*, deprecated, message: "HistoryError's cases are SpotliteStoreError's now. Matching a case (catch HistoryError.expiredToken) means what it did, but `catch is HistoryError` or `as? HistoryError` now matches every error of SpotliteStore: write `catch let error as SpotliteStoreError where error.area == .history`")
public typealias HistoryError = SpotliteStoreError

/// The former type of migration errors, now cases of ``SpotliteStoreError`` (its ``SpotliteStoreError/area`` is
/// `.migration`).
@available(*, deprecated, message: "MigrationError's cases are SpotliteStoreError's now. Matching a case (catch MigrationError.stageFailed) means what it did, but `catch is MigrationError` or `as? MigrationError` now matches every error of SpotliteStore: write `catch let error as SpotliteStoreError where error.area == .migration`")
public typealias MigrationError = SpotliteStoreError

/// The former type of tracker configuration errors, now cases of ``SpotliteStoreError`` (its
/// ``SpotliteStoreError/area`` is `.tracking`).
@available(*, deprecated, message: "TrackerError's cases are SpotliteStoreError's now (invalidBatchSize(_:) is invalidBatchSize(_:of: .trackerFetch)). `catch is TrackerError` or `as? TrackerError` now matches every error of SpotliteStore: write `catch let error as SpotliteStoreError where error.area == .tracking`")
public typealias TrackerError = SpotliteStoreError

/// The former type of import errors, now cases of ``SpotliteStoreError`` (its ``SpotliteStoreError/area`` is
/// `.importing`).
@available(*, deprecated, message: "ImportError's cases are SpotliteStoreError's now (invalidBatchSize(_:) is invalidBatchSize(_:of: .importLines)). `catch is ImportError` or `as? ImportError` now matches every error of SpotliteStore: write `catch let error as SpotliteStoreError where error.area == .importing`")
public typealias ImportError = SpotliteStoreError

extension SpotliteStoreError {
    /// The former name of ``MigrationPhase`` (`MigrationError.Phase`).
    @available(*, deprecated, renamed: "MigrationPhase")
    public typealias Phase = MigrationPhase
}

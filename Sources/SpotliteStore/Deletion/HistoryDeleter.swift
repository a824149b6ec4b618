import Foundation
import GRDB

/// Deletes the history before the watermark that every required author and every registered consumer
/// (``SpotliteStore/registerConsumer(_:position:)``) has consumed, safely across processes: Core Data's "delete
/// history before", with the point computed from the consumers' positions (what `spotlite history clean` runs).
///
/// Reading the positions and deleting happen in one immediate SQLite transaction, so two processes deleting at once
/// cannot race, and a consumer advancing its position meanwhile is serialised before or after. If a required author
/// has no position yet, nothing is deleted on the watermark's account (it may not have started reading) until it
/// has been absent for longer than ``HistoryDeletionPolicy/maximumDuration`` (counted from the first deletion that saw it
/// missing, in any process); history older than the maximum duration is deleted regardless. That bounds how long
/// a lagging or absent author can hold history back; it then gets an expired-token error and resynchronises.
public struct HistoryDeleter: Sendable {
    /// The store whose history is deleted.
    public let store: SpotliteStore
    /// Whose positions deletion waits for and whose transactions it deletes.
    public var policy: HistoryDeletionPolicy

    /// A deleter of `store`'s consumed history following `policy`.
    public init(store: SpotliteStore, policy: HistoryDeletionPolicy) {
        self.store = store
        self.policy = policy
    }

    /// Deletes the consumed history now (or, with `dryRun`, only counts what it would delete).
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store (unless `dryRun`); SQLite's errors.
    @discardableResult
    public func deleteConsumedHistory(dryRun: Bool = false, now: Date = Date()) throws -> HistoryDeletionResult {
        guard dryRun || !store.options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .cleanHistory) }
        let policy = self.policy
        let work = { (db: Database) throws -> HistoryDeletionResult in
            try Self.deleteConsumedHistory(policy: policy, dryRun: dryRun, now: now, in: db)
        }
        if dryRun { return try store.databasePool.read(work) }
        _ = try store.sealPendingChanges()
        return try store.databasePool.writeWithoutTransaction { db in
            var result: HistoryDeletionResult?
            try db.inTransaction(.immediate) {
                result = try work(db)
                return .commit
            }
            return result!
        }
    }

    static func deleteConsumedHistory(policy: HistoryDeletionPolicy, dryRun: Bool, now: Date, in db: Database) throws -> HistoryDeletionResult {
        var missing: [String] = []
        var abandoned: [String] = []
        var watermark: HistoryToken?
        var laggard: String?
        // Registered consumers (the indexer, consumer drivers) are required in every process, whatever its policy.
        for author in Set(try policy.requiredAuthors + ConsumerRegistry.names(in: db)).sorted() {
            guard let position = try PositionTable.position(of: author, in: db) else {
                let absentSince = try AuthorAbsence.start(of: author, now: now, recording: !dryRun, in: db)
                if let maximumDuration = policy.maximumDuration, now.timeIntervalSince(absentSince) > maximumDuration {
                    abandoned.append(author)
                } else {
                    missing.append(author)
                }
                continue
            }
            if !dryRun { try AuthorAbsence.end(of: author, in: db) }
            if watermark == nil || position.token < watermark! {
                watermark = position.token
                laggard = author
            }
        }
        if !missing.isEmpty { watermark = nil }
        // What the watermark covers, and what only the duration bound covers, as SQL over spotlite_transaction.
        var consumed = "0"
        var arguments: [any DatabaseValueConvertible] = []
        if let watermark {
            consumed = "token <= ?"
            arguments.append(watermark)
            if !policy.deletesUnlistedAuthors {
                let listed = Array(Set(policy.listedAuthors)).sorted()
                consumed += listed.isEmpty ? " AND 0" : " AND author IN (\(Array(repeating: "?", count: listed.count).joined(separator: ",")))"
                arguments += listed
            }
        }
        let cutoff = policy.maximumDuration.map { now.addingTimeInterval(-$0).timeIntervalSince1970 }
        let consumedCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_transaction WHERE \(consumed)",
                                             arguments: StatementArguments(arguments)) ?? 0
        var expiredCount = 0
        if let cutoff {
            expiredCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_transaction WHERE timestamp < ? AND NOT (\(consumed))",
                                            arguments: StatementArguments([cutoff] + arguments)) ?? 0
        }
        if !dryRun {
            if let watermark {
                var request = HistoryDeleteRequest.through(watermark)
                if !policy.deletesUnlistedAuthors { request = request.onlyAuthors(Set(policy.listedAuthors.map(Optional.some))) }
                _ = try HistoryPurger.delete(request, dryRun: false, in: db)
            }
            if let cutoff {
                _ = try HistoryPurger.delete(.before(Date(timeIntervalSince1970: cutoff)), dryRun: false, in: db)
            }
        }
        var reasons: [String] = []
        if let watermark {
            reasons.append("every required author has consumed history through token \(watermark) (the lowest position is \(laggard!)'s)")
        } else if policy.requiredAuthors.isEmpty {
            reasons.append("no required authors are configured, so no history is known to be consumed")
        } else if missing.isEmpty {
            reasons.append("no required author has a position, so no history is known to be consumed")
        } else {
            reasons.append("nothing is known to be consumed until \(missing.joined(separator: ", ")) \(missing.count == 1 ? "records a position" : "record positions")")
        }
        if !abandoned.isEmpty {
            reasons.append("cleanup no longer waits for \(abandoned.joined(separator: ", ")), absent for longer than the maximum duration (\(abandoned.count == 1 ? "it" : "they") will have to resynchronise)")
        }
        if expiredCount > 0 {
            reasons.append("\(expiredCount) transactions were older than the maximum duration")
        }
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_transaction") ?? 0
        let deleted = consumedCount + expiredCount
        return HistoryDeletionResult(watermark: watermark, deletedTransactions: deleted,
                             keptTransactions: dryRun ? total - deleted : total, reason: reasons.joined(separator: "; "),
                             absentAuthors: missing, abandonedAuthors: abandoned)
    }
}

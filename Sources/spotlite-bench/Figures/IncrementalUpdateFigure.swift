import SpotliteTooling
import Foundation
import GRDB
import Spotlite

/// Figure 3: applying history to an up-to-date index, as `spotlite index update` does (``SpotliteIndexer/update()``):
/// after 1,000 single-row transactions, and after one transaction updating 10,000 rows. Each update changes the
/// descriptive text field, so every change reindexes its record. Then one transaction updating 10,000 rows' stored
/// field alone, which changes no terms. Only the update is timed, not the writes; except for the peer comparison:
/// the same 10,000-row UPDATE on an SQLite FTS5 table kept in sync by triggers (its whole cost is inside the
/// writer's transaction) against Spotlite's whole history path (the writer's transaction with capture, then the
/// index update), per change.
enum IncrementalUpdateFigure {
    struct Case: Codable, Sendable {
        var transactions: Int
        var changes: Int
        var seconds: Double
        var perChange: Double
        var samples: [Double]
    }

    struct Result: FigureResult {
        var runs: Int
        var singleRows: Case
        var batch: Case
        /// The same number of rows with only a stored field changed, and which field; nil when the entity has no
        /// stored field.
        var valuesOnly: Case?
        var valuesOnlyField: String?
        /// One update per single-row transaction, as live mode does after each commit: the floor of freshness.
        var perCommitUpdate: LatencySummary
        /// The batch's UPDATE run by the writer with capture, then applied by the index update, per change.
        var historyPathPerChange: Double
        /// The same UPDATE on an FTS5 table kept in sync by triggers, per change (the writer's transaction alone).
        var fts5TriggerPerChange: Double

        /// Spotlite's history path over FTS5's triggers, per change (target ≤ 4.5×).
        var historyPathOverFTS5: Double { historyPathPerChange / max(fts5TriggerPerChange, .leastNonzeroMagnitude) }

        var rows: [TableRow] {
            var rows = [
                TableRow("3 incremental", "\(singleRows.transactions) single-row transactions (median of \(runs))",
                         "\(Format.seconds(singleRows.seconds)), \(Format.seconds(singleRows.perChange)) per change"),
                TableRow("3 incremental", "one \(batch.changes)-row transaction",
                         "\(Format.seconds(batch.seconds)), \(Format.seconds(batch.perChange)) per change"),
            ]
            if let valuesOnly, let valuesOnlyField {
                rows.append(TableRow("3 incremental", "one \(valuesOnly.changes)-row transaction changing \(valuesOnlyField) alone (no terms)",
                                     "\(Format.seconds(valuesOnly.seconds)), \(Format.seconds(valuesOnly.perChange)) per change"))
            }
            rows.append(TableRow("3 incremental", "update after each single-row commit (\(perCommitUpdate.count)×): p50 / p99",
                                 "\(Format.milliseconds(perCommitUpdate.p50)) / \(Format.milliseconds(perCommitUpdate.p99))"))
            rows.append(TableRow("3 incremental", "the \(batch.changes)-row UPDATE, write with capture + index update / FTS5 kept by triggers, per change",
                                 "\(Format.seconds(historyPathPerChange)) / \(Format.seconds(fts5TriggerPerChange)) = \(String(format: "%.2f×", historyPathOverFTS5))",
                                 target: "≤ 4.5×", met: historyPathOverFTS5 <= 4.5))
            return rows
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        let store = try context.store()
        let indexer = try context.makeIndexer()
        let field = try context.descriptiveField
        let keys = context.corpus.records.compactMap { $0[context.entity.key] }
        let singleCount = min(context.settings.singleRowTransactions, keys.count)
        let batchCount = min(context.settings.batchRows, keys.count)
        let table = context.entity.name.quotedDatabaseIdentifier
        let update = "UPDATE \(table) SET \(field.quotedDatabaseIdentifier) = COALESCE(\(field.quotedDatabaseIdentifier), '') || ? WHERE \(context.entity.key.quotedDatabaseIdentifier) = ?"
        var generator = SeededGenerator(seed: 0x1_0C4E)
        var single: [Double] = []
        var batch: [Double] = []
        var valuesOnly: [Double] = []
        var singleChanges = 0
        var batchChanges = 0
        var valuesOnlyChanges = 0
        var historyPath: [Double] = []
        var fts5Trigger: [Double] = []
        let fts = try context.fts()
        let ftsUpdate = "UPDATE \(FTS5Index.contentTable) SET \(field.quotedDatabaseIdentifier) = COALESCE(\(field.quotedDatabaseIdentifier), '') || ? WHERE \(context.entity.key.quotedDatabaseIdentifier) = ?"
        let valueChange = context.valueOnlyChange
        let valueUpdate = valueChange.map {
            "UPDATE \(table) SET \($0.field.quotedDatabaseIdentifier) = \($0.expression) WHERE \(context.entity.key.quotedDatabaseIdentifier) = ?"
        }
        for run in 0..<context.settings.slowRuns {
            let marker = " incremental\(run)"
            for key in keys.shuffled(using: &generator).prefix(singleCount) {
                try store.write(author: "app", context: "bench") { db in
                    try db.execute(sql: update, arguments: [marker + "s", key])
                }
            }
            let singleSummary = try await measure(indexer, expecting: singleCount)
            single.append(singleSummary.seconds)
            singleChanges = singleSummary.changes

            /// One transaction running `sql` on `batchCount` random rows (timed apart), then the timed update.
            func applyBatch(_ sql: String, marker: String) async throws -> (seconds: Double, changes: Int, writeSeconds: Double, keys: [String]) {
                let chosen = Array(keys.shuffled(using: &generator).prefix(batchCount))
                let writeSeconds = try Stopwatch.seconds {
                    try store.write(author: "app", context: "bench") { db in
                        let statement = try db.makeStatement(sql: sql)
                        for key in chosen { try statement.execute(arguments: [marker, key]) }
                    }
                }
                let applied = try await measure(indexer, expecting: batchCount)
                return (applied.seconds, applied.changes, writeSeconds, chosen)
            }
            let batchSummary = try await applyBatch(update, marker: marker + "b")
            batch.append(batchSummary.seconds)
            batchChanges = batchSummary.changes
            historyPath.append((batchSummary.writeSeconds + batchSummary.seconds) / Double(max(batchSummary.changes, 1)))
            let ftsSeconds = try Stopwatch.seconds {
                try fts.database.write { db in
                    let statement = try db.makeStatement(sql: ftsUpdate)
                    for key in batchSummary.keys { try statement.execute(arguments: [marker + "b", key]) }
                }
            }
            fts5Trigger.append(ftsSeconds / Double(max(batchSummary.keys.count, 1)))
            if let valueUpdate {
                let summary = try await applyBatch(valueUpdate, marker: marker + "v")
                valuesOnly.append(summary.seconds)
                valuesOnlyChanges = summary.changes
            }
            Progress.note(String(format: "incremental run %d/%d: %d single-row transactions applied in %.3f s; %d-row batch in %.3f s",
                                 run + 1, context.settings.slowRuns, singleCount, singleSummary.seconds, batchCount,
                                 batchSummary.seconds))
        }
        var perCommit: [Double] = []
        for (index, key) in keys.shuffled(using: &generator).prefix(min(50, keys.count)).enumerated() {
            try store.write(author: "app", context: "bench") { db in
                try db.execute(sql: update, arguments: [" percommit\(index)", key])
            }
            perCommit.append(try await measure(indexer, expecting: 1).seconds)
        }
        let singleSeconds = Statistics.median(single)
        let batchSeconds = Statistics.median(batch)
        return Result(
            runs: single.count,
            singleRows: Case(transactions: singleCount, changes: singleChanges, seconds: singleSeconds,
                             perChange: singleSeconds / Double(max(singleChanges, 1)), samples: single),
            batch: Case(transactions: 1, changes: batchChanges, seconds: batchSeconds,
                        perChange: batchSeconds / Double(max(batchChanges, 1)), samples: batch),
            valuesOnly: valuesOnly.isEmpty ? nil : Case(
                transactions: 1, changes: valuesOnlyChanges, seconds: Statistics.median(valuesOnly),
                perChange: Statistics.median(valuesOnly) / Double(max(valuesOnlyChanges, 1)), samples: valuesOnly),
            valuesOnlyField: valueChange?.field,
            perCommitUpdate: LatencySummary(samples: perCommit),
            historyPathPerChange: Statistics.median(historyPath),
            fts5TriggerPerChange: Statistics.median(fts5Trigger))
    }

    /// Times one update and checks it applied what was written.
    private static func measure(_ indexer: SpotliteIndexer, expecting changes: Int) async throws -> (seconds: Double, changes: Int) {
        var summary = IndexUpdateSummary()
        let seconds = try await Stopwatch.seconds { summary = try await indexer.update() }
        guard !summary.rebuilt, summary.changes == changes, summary.indexed == changes else {
            throw BenchError("the update applied \(summary.changes) changes and indexed \(summary.indexed) documents (rebuilt: \(summary.rebuilt)), expected \(changes) of each")
        }
        return (seconds, summary.changes)
    }
}

import Foundation
import GRDB
import Spotlite

/// Figure 3 (large updates): one `UPDATE` of every row of the corpus in one transaction, brought into the index by
/// `update()` as `spotlite index update` does (a backlog touching most documents is applied by a rebuild), beside a
/// rebuild and beside the same `UPDATE` applied change by change (the rule switched off), all three in child
/// processes in one run. The incremental cost against the rebuild's gives the share of the documents past which
/// rebuilding is the faster way (``SpotliteIndexer``'s rule rebuilds past 75%).
enum LargeUpdateFigure {
    struct Run: Codable, Sendable {
        var seconds: Double
        var changes: Int
        var rebuilt: Bool
        var peakResidentBytes: Int
    }

    struct Result: FigureResult {
        var records: Int
        var rebuild: Run
        var update: Run
        var incremental: Run

        /// `index update` after the UPDATE, against the rebuild.
        var updateRatio: Double { update.seconds / rebuild.seconds }
        /// The UPDATE applied change by change, against the rebuild.
        var incrementalRatio: Double { incremental.seconds / rebuild.seconds }
        /// The share of the documents whose changes cost as much to apply as a rebuild.
        var breakEvenShare: Double { rebuild.seconds / incremental.seconds }

        var rows: [TableRow] {
            [
                TableRow("3 large update", "rebuild of \(records) docs (child process, 1 run)",
                         "\(Format.seconds(rebuild.seconds)), peak RSS \(Format.bytes(rebuild.peakResidentBytes))"),
                TableRow("3 large update", "one UPDATE of all \(records) rows, then `index update`\(update.rebuilt ? " (rebuilt: past 75% of the documents)" : "")",
                         "\(Format.seconds(update.seconds)) = \(Format.ratio(updateRatio)) the rebuild",
                         target: "≤ 1.00× the rebuild", met: updateRatio <= 1.0),
                TableRow("3 large update", "the same UPDATE applied change by change (rule off)",
                         "\(Format.seconds(incremental.seconds)) = \(Format.ratio(incrementalRatio)) the rebuild, \(Format.seconds(incremental.seconds / Double(max(incremental.changes, 1)))) per change, peak RSS \(Format.bytes(incremental.peakResidentBytes))"),
                TableRow("3 large update", "share of the documents where applying costs a rebuild",
                         String(format: "%.0f%% (the indexer rebuilds past %.0f%%)", breakEvenShare * 100, SpotliteIndexer.rebuildShare * 100)),
            ]
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        let store = try context.store()
        let field = try context.descriptiveField.quotedDatabaseIdentifier
        let table = context.entity.name.quotedDatabaseIdentifier
        let rows = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
        func updateEveryRow(_ marker: String) throws {
            try store.write(author: "app", context: "bench") { db in
                try db.execute(sql: "UPDATE \(table) SET \(field) = COALESCE(\(field), '') || ?", arguments: [marker])
            }
        }
        let rebuild = try ChildRebuild.run(configurationPath: context.configurationPath, storePath: context.storePath,
                                           indexPath: context.indexPath)
        Progress.note(String(format: "large update: rebuild of %d docs in %.2f s", rebuild.documents, rebuild.seconds))

        try updateEveryRow(" largeupdate")
        let update = try ChildUpdate.run(configurationPath: context.configurationPath, storePath: context.storePath,
                                         indexPath: context.indexPath, incremental: false)
        Progress.note(String(format: "large update: index update after an UPDATE of %d rows in %.2f s (rebuilt: %@)",
                             rows, update.seconds, update.rebuilt ? "yes" : "no"))

        try updateEveryRow(" largeincremental")
        let incremental = try ChildUpdate.run(configurationPath: context.configurationPath, storePath: context.storePath,
                                              indexPath: context.indexPath, incremental: true)
        guard !incremental.rebuilt, incremental.changes == rows else {
            throw BenchError("the incremental update applied \(incremental.changes) changes (rebuilt: \(incremental.rebuilt)), expected \(rows)")
        }
        Progress.note(String(format: "large update: the same UPDATE applied change by change in %.2f s", incremental.seconds))
        return Result(
            records: rows,
            rebuild: Run(seconds: rebuild.seconds, changes: 0, rebuilt: true, peakResidentBytes: rebuild.peakResidentBytes),
            update: Run(seconds: update.seconds, changes: update.changes, rebuilt: update.rebuilt,
                        peakResidentBytes: update.peakResidentBytes),
            incremental: Run(seconds: incremental.seconds, changes: incremental.changes, rebuilt: false,
                             peakResidentBytes: incremental.peakResidentBytes))
    }
}

import Foundation
import GRDB
import Spotlite

/// Figure 3 (large updates): one `UPDATE` of every row of the corpus in one transaction, brought into the index by
/// `update()` as `spotlite index update` does (a backlog with more changes than documents is applied by a rebuild), between two
/// rebuilds and beside the same `UPDATE` applied change by change (the rule switched off), all in child
/// processes in one run. The incremental cost against the rebuild's gives the share of the documents past which
/// rebuilding is the faster way (``SpotliteIndexer``'s rule rebuilds past `rebuildShare` of the documents).
enum LargeUpdateFigure {
    struct Run: Codable, Sendable {
        var seconds: Double
        var cpuSeconds: Double
        var changes: Int
        var rebuilt: Bool
        var peakResidentBytes: Int
    }

    struct Result: FigureResult {
        var records: Int
        /// Rebuilds before and after the two updates: the reference is their mean, so that a load that changes
        /// during the figure weighs on both sides.
        var rebuilds: [Run]
        var update: Run
        var incremental: Run

        var rebuildSeconds: Double { rebuilds.map(\.seconds).reduce(0, +) / Double(max(rebuilds.count, 1)) }
        var rebuildCPUSeconds: Double { rebuilds.map(\.cpuSeconds).reduce(0, +) / Double(max(rebuilds.count, 1)) }
        /// `index update` after the UPDATE, against the rebuild.
        var updateRatio: Double { update.seconds / rebuildSeconds }
        /// The UPDATE applied change by change, against the rebuild.
        var incrementalRatio: Double { incremental.seconds / rebuildSeconds }
        /// The share of the documents whose changes cost as much to apply as a rebuild (wall time, then CPU time).
        var breakEvenShare: Double { rebuildSeconds / incremental.seconds }
        var cpuBreakEvenShare: Double { rebuildCPUSeconds / incremental.cpuSeconds }

        var rows: [TableRow] {
            [
                TableRow("3 large update", "rebuild of \(records) docs (child process, before and after the updates)",
                         "\(rebuilds.map { Format.seconds($0.seconds) }.joined(separator: ", ")) (CPU \(Format.seconds(rebuildCPUSeconds))), peak RSS \(Format.bytes(rebuilds.map(\.peakResidentBytes).max() ?? 0))"),
                TableRow("3 large update", "one UPDATE of all \(records) rows, then `index update`\(update.rebuilt ? String(format: " (rebuilt: past %.0f%% of the documents)", SpotliteIndexer.rebuildShare * 100) : " (applied)")",
                         "\(Format.seconds(update.seconds)) = \(Format.ratio(updateRatio)) the rebuild (CPU \(Format.ratio(update.cpuSeconds / rebuildCPUSeconds)))",
                         target: "≤ 1.00× the rebuild", met: updateRatio <= 1.0),
                TableRow("3 large update", "the same UPDATE applied change by change (rule off)",
                         "\(Format.seconds(incremental.seconds)) = \(Format.ratio(incrementalRatio)) the rebuild (CPU \(Format.ratio(incremental.cpuSeconds / rebuildCPUSeconds))), \(Format.seconds(incremental.seconds / Double(max(incremental.changes, 1)))) per change, peak RSS \(Format.bytes(incremental.peakResidentBytes))"),
                TableRow("3 large update", "share of the documents where applying costs a rebuild",
                         String(format: "%.0f%% (CPU %.0f%%; the indexer rebuilds past %.0f%%)", breakEvenShare * 100,
                                cpuBreakEvenShare * 100, SpotliteIndexer.rebuildShare * 100)),
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
        func rebuild() throws -> Run {
            let report = try ChildRebuild.run(configurationPath: context.configurationPath, storePath: context.storePath,
                                              indexPath: context.indexPath)
            Progress.note(String(format: "large update: rebuild of %d docs in %.2f s", report.documents, report.seconds))
            return Run(seconds: report.seconds, cpuSeconds: report.cpuSeconds, changes: 0, rebuilt: true,
                       peakResidentBytes: report.peakResidentBytes)
        }
        func update(incremental: Bool) throws -> Run {
            let report = try ChildUpdate.run(configurationPath: context.configurationPath, storePath: context.storePath,
                                             indexPath: context.indexPath, incremental: incremental)
            return Run(seconds: report.seconds, cpuSeconds: report.cpuSeconds, changes: report.changes,
                       rebuilt: report.rebuilt, peakResidentBytes: report.peakResidentBytes)
        }
        let first = try rebuild()

        try updateEveryRow(" largeupdate")
        let switched = try update(incremental: false)
        Progress.note(String(format: "large update: index update after an UPDATE of %d rows in %.2f s (rebuilt: %@)",
                             rows, switched.seconds, switched.rebuilt ? "yes" : "no"))

        try updateEveryRow(" largeincremental")
        let incremental = try update(incremental: true)
        guard !incremental.rebuilt, incremental.changes == rows else {
            throw BenchError("the incremental update applied \(incremental.changes) changes (rebuilt: \(incremental.rebuilt)), expected \(rows)")
        }
        Progress.note(String(format: "large update: the same UPDATE applied change by change in %.2f s", incremental.seconds))
        let last = try rebuild()
        return Result(records: rows, rebuilds: [first, last], update: switched, incremental: incremental)
    }
}

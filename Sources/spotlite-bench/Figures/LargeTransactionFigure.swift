import Foundation
import GRDB
import Spotlite

/// Figure 3 (one huge transaction), behind `--scale`: `largeTransactionRows` records derived from the corpus (see
/// ``ScaleDerivation``) inserted in one transaction into a store whose index is up to date, then applied by
/// `update()` in a child process: its time and its peak memory, which must not grow with the transaction (history
/// is read and applied a batch of changes at a time).
enum LargeTransactionFigure {
    struct Result: FigureResult {
        var changes: Int
        var seconds: Double
        var peakResidentBytes: Int

        static let limit = 256 << 20

        var rows: [TableRow] {
            [
                TableRow("3 large transaction", "apply one \(changes)-row transaction (child process, 1 run)",
                         "\(Format.seconds(seconds)), \(Format.seconds(seconds / Double(max(changes, 1)))) per change"),
                TableRow("3 large transaction", "peak RSS while applying it", Format.bytes(peakResidentBytes),
                         target: "< 256 MiB", met: peakResidentBytes < Self.limit),
            ]
        }
    }

    static func run(_ context: BenchContext) throws -> Result {
        let total = context.settings.largeTransactionRows
        let storePath = context.path("transaction-store.sqlite")
        let stagingPath = context.path("transaction-staging.sqlite")
        let indexPath = context.path("transaction-index")
        defer {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: storePath + suffix)
                try? FileManager.default.removeItem(atPath: stagingPath + suffix)
            }
            try? FileManager.default.removeItem(atPath: indexPath)
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
        // An empty store and its (empty) index.
        _ = try SpotliteStore(path: storePath, model: context.configuration.storeModel)
        _ = try ChildUpdate.run(configurationPath: context.configurationPath, storePath: storePath, indexPath: indexPath,
                                incremental: true)

        // The records go to a staging file first (no history there), then into the store in one statement, as
        // another program would write them: one history transaction of `total` changes.
        Progress.note("large transaction: staging \(total) derived records")
        let table = context.entity.name.quotedDatabaseIdentifier
        let descriptive = try context.descriptiveField
        let mixed = context.textFields.filter { $0 != context.entity.key && $0 != descriptive }
        let derivation = ScaleDerivation(records: context.corpus.records, key: context.entity.key, mixedFields: mixed)
        let database = try DatabaseQueue(path: storePath)
        try database.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS staging", arguments: [stagingPath])
            try db.execute(sql: "CREATE TABLE staging.rows AS SELECT * FROM main.\(table) WHERE 0")
            let columns = try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(table))").map { $0["name"] as String }
            let insert = try db.makeStatement(sql: "INSERT INTO staging.rows (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))")
            var index = 0
            while index < total {
                try db.inTransaction {
                    for number in index..<min(total, index + 10_000) {
                        let record = derivation.record(number)
                        try insert.execute(arguments: StatementArguments(columns.map { record[$0]?.databaseValue ?? .null }))
                    }
                    return .commit
                }
                index += 10_000
            }
            Progress.note("large transaction: inserting them into the store in one transaction")
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO main.\(table) SELECT * FROM staging.rows")
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE staging")
        }
        try database.close()
        Progress.note("large transaction: applying it in a child process")
        let report = try ChildUpdate.run(configurationPath: context.configurationPath, storePath: storePath,
                                         indexPath: indexPath, incremental: true)
        guard !report.rebuilt, report.changes == total else {
            throw BenchError("the update applied \(report.changes) changes (rebuilt: \(report.rebuilt)), expected \(total)")
        }
        Progress.note(String(format: "large transaction: %d changes applied in %.1f s, peak RSS %@", report.changes,
                             report.seconds, Format.bytes(report.peakResidentBytes)))
        return Result(changes: report.changes, seconds: report.seconds, peakResidentBytes: report.peakResidentBytes)
    }
}

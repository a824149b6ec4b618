import SpotliteStore
import SpotliteSearch
import Foundation
import GRDB

/// Measures what history capture costs: the same batched upserts into a plain WAL database and into a
/// ``SpotliteStore`` (triggers recording every row), in temporary files that are removed afterwards.
package enum CaptureBenchmark {
    /// The timings of one benchmark run.
    package struct Result: Sendable, Hashable, CustomStringConvertible {
        /// Rows upserted per run.
        package var rows: Int
        /// Write transactions per run.
        package var batches: Int
        /// Best time over the rounds, without capture.
        package var plainSeconds: Double
        /// Best time over the rounds, through ``SpotliteStore/write(author:context:_:)`` with capture.
        package var capturedSeconds: Double
        /// Changes recorded by the captured run (one per row).
        package var recordedChanges: Int

        /// `capturedSeconds / plainSeconds`; the target is at most 1.3.
        package var ratio: Double { plainSeconds > 0 ? capturedSeconds / plainSeconds : .infinity }

        package var description: String {
            String(
                format: "%d rows in %d batches: %.3f s plain, %.3f s with capture (%.2fx), %d changes recorded",
                rows, batches, plainSeconds, capturedSeconds, ratio, recordedChanges)
        }
    }

    /// A corpus that cannot be used.
    package enum Failure: Error, CustomStringConvertible {
        case unreadableCorpus(path: String, reason: String)
        case malformedLine(path: String, line: Int)
        case emptyCorpus(path: String)

        package var description: String {
            switch self {
            case .unreadableCorpus(let path, let reason):
                "cannot read the corpus \(path): \(reason); give a JSON Lines file (optionally .xz-compressed)"
            case .malformedLine(let path, let line):
                "line \(line) of \(path) is not a JSON object with a text \"name\"; fix or remove that line"
            case .emptyCorpus(let path):
                "the corpus \(path) holds no rows; give a file with at least one JSON object per line"
            }
        }
    }

    /// Loads `corpus` (JSON Lines, one object with a text `name` per line; `.xz` files are decompressed with
    /// `xz`), then times upserting all rows in batches of `batchSize`, without and with capture, keeping the
    /// best of `rounds` runs of each.
    package static func run(corpus: String, batchSize: Int = 1000, rounds: Int = 2) throws -> Result {
        let rows = try loadRows(corpus)
        guard let first = rows.first else { throw Failure.emptyCorpus(path: corpus) }
        let columns = ["name"] + first.keys.filter { $0 != "name" }.sorted()
        let entity = EntityDescription(
            name: "Package", key: "name", attributes: columns.dropFirst().map { AttributeDescription(name: $0) },
            preserveOnDelete: ["name"])
        let batches = stride(from: 0, to: rows.count, by: max(1, batchSize)).map {
            Array(rows[$0..<min($0 + max(1, batchSize), rows.count)])
        }
        let upsert = upsertSQL(columns)

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-capture-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var plainBest = Double.infinity
        var capturedBest = Double.infinity
        var recorded = 0
        for round in 0..<max(1, rounds) {
            let plainPool = try DatabasePool(path: directory.appendingPathComponent("plain-\(round).sqlite").path)
            try plainPool.write { db in try db.execute(sql: EntitySchema.createTableSQL(entity)) }
            plainBest = min(plainBest, try time {
                for batch in batches {
                    try plainPool.write { db in try insert(batch, columns: columns, sql: upsert, db: db) }
                }
            })

            let store = try SpotliteStore(
                path: directory.appendingPathComponent("captured-\(round).sqlite").path,
                model: StoreModel(entities: [entity]))
            capturedBest = min(capturedBest, try time {
                for batch in batches {
                    try store.write(author: "benchmark", context: "import") { db in
                        try insert(batch, columns: columns, sql: upsert, db: db)
                    }
                }
            })
            recorded = try store.countChanges(.after(nil))
        }
        return Result(
            rows: rows.count, batches: batches.count, plainSeconds: plainBest, capturedSeconds: capturedBest,
            recordedChanges: recorded)
    }

    private static func upsertSQL(_ columns: [String]) -> String {
        let names = columns.map(Identifier.quoted).joined(separator: ", ")
        let updates = columns.dropFirst().map { "\(Identifier.quoted($0)) = excluded.\(Identifier.quoted($0))" }
        return "INSERT INTO \"Package\" (\(names)) VALUES (\(AuthorFilter.placeholders(columns.count))) "
            + "ON CONFLICT(\"name\") DO UPDATE SET \(updates.joined(separator: ", "))"
    }

    private static func insert(_ batch: [[String: String]], columns: [String], sql: String, db: Database) throws {
        let statement = try db.cachedStatement(sql: sql)
        for row in batch {
            let values: [(any DatabaseValueConvertible)?] = columns.map { row[$0] }
            try statement.execute(arguments: StatementArguments(values))
        }
    }

    private static func time(_ work: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try work()
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    /// Rows as text fields; other JSON values are kept as their JSON text.
    static func loadRows(_ path: String) throws -> [[String: String]] {
        let data = try readCorpus(path)
        var rows: [[String: String]] = []
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                object["name"] is String
            else { throw Failure.malformedLine(path: path, line: lineNumber) }
            var row: [String: String] = [:]
            for (key, value) in object where Identifier.isValid(key) {
                switch value {
                case let text as String: row[key] = text
                case is NSNull: break
                default:
                    if let json = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
                        row[key] = String(decoding: json, as: UTF8.self)
                    }
                }
            }
            rows.append(row)
        }
        return rows
    }

    private static func readCorpus(_ path: String) throws -> Data {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw Failure.unreadableCorpus(path: path, reason: "no readable file there")
        }
        guard path.hasSuffix(".xz") else {
            do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw Failure.unreadableCorpus(path: path, reason: "\(error)")
            }
        }
        let outcome: ChildProcess.Outcome
        do { outcome = try ChildProcess.run("/usr/bin/xz", ["-dc", path], error: .discard) } catch {
            throw Failure.unreadableCorpus(path: path, reason: "cannot run /usr/bin/xz (\(error)); install xz-utils")
        }
        guard outcome.status == 0 else {
            throw Failure.unreadableCorpus(path: path, reason: "xz exited with status \(outcome.status)")
        }
        return outcome.standardOutput
    }
}

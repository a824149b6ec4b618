import SpotliteTooling
import Foundation
import GRDB
import Spotlite

/// Resource bounds: a 10 MB text field, one batch transaction of many rows (inserted, updated, deleted), and tens of
/// thousands of distinct keyword values (facets and filters over them). Each step runs as a child process, timed, with
/// its peak memory. Sizes come in pairs (n and 10 n) so that a quadratic step shows as a per-row time
/// ten times larger; the check allows five times (a noisy machine), the figures say how it went.
struct ResourcesSuite {
    struct Settings {
        var textMegabytes: Int
        var batchRows: [Int]
        var keywordCounts: [Int]

        static func forMode(long: Bool) -> Settings {
            long ? Settings(textMegabytes: 10, batchRows: [100_000, 1_000_000], keywordCounts: [10_000, 100_000])
                : Settings(textMegabytes: 2, batchRows: [2_000, 20_000], keywordCounts: [1_000, 10_000])
        }
    }

    /// A step's cost.
    struct Measure {
        var seconds: Double
        var kilobytes: Int

        var text: String { "\(Format.seconds(seconds)), \(Format.megabytes(kilobytes: kilobytes))" }
    }

    /// Per-item time may grow this much from n to 10 n before the step counts as superlinear.
    static let slowdownAllowance = 5.0
    /// Peak memory an update may add per row of the one transaction it applies (a million rows: at most 2 GB).
    static let memoryPerRowAllowance = 2048.0

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    private var random: SeededGenerator

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        random = SeededGenerator(seed: seed)
    }

    mutating func run() throws {
        try hugeTextField()
        try batchTransactions()
        try distinctKeywords()
    }

    // MARK: - Helpers

    /// A fresh store and index under `name`, with the suites' configuration; returns the configuration path.
    private func prepareDirectory(_ name: String) throws -> (path: String, configuration: SpotliteConfiguration) {
        let directory = workspace.path(name)
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/spotlite.toml"
        try workspace.write(ItemModel.configuration(storePath: directory + "/store.sqlite", indexPath: directory + "/search",
                                                    batchSize: 1000, bodyStored: false), to: name + "/spotlite.toml")
        return (path, try SpotliteConfiguration(contentsOf: path))
    }

    /// Runs `spotlite arguments…` with the configuration at `configuration`, and measures it.
    private func measure(_ arguments: [String], configuration: String, problems: inout [String]) throws -> (Measure, Workspace.Run) {
        let run = try workspace.runSpotlite(arguments, configuration: configuration, timeout: 3600)
        if !run.succeeded { problems.append("spotlite \(arguments.prefix(2).joined(separator: " ")): \(run.termination): \(run.errorLine.prefix(300))") }
        return (Measure(seconds: run.termination.seconds, kilobytes: run.termination.maximumResidentKilobytes), run)
    }

    private func measureSQL(_ script: String, database: String, problems: inout [String]) throws -> Measure {
        let run = try workspace.sqlite(script, database: database, timeout: 3600)
        if !run.succeeded { problems.append("sqlite3: \(run.errorLine.prefix(300))") }
        return Measure(seconds: run.termination.seconds, kilobytes: run.termination.maximumResidentKilobytes)
    }

    /// The invariant for a directory made by ``prepareDirectory(_:)``.
    private func invariant(_ configuration: SpotliteConfiguration) -> [String] {
        do {
            return try InvariantChecker(configuration: configuration)
                .check(InvariantChecker.Options(expectCaughtUp: true, ledger: false, keyLookups: 200)).problems
        } catch {
            return ["the invariant check could not run: \(error)"]
        }
    }

    /// A problem when the per-item time at the larger size exceeds the allowance over the smaller one.
    private func scaling(_ name: String, small: (count: Int, seconds: Double), large: (count: Int, seconds: Double)) -> (String, String?) {
        // Below 50 ms a step is mostly process start-up: compare against that floor so noise cannot fail it.
        let smallPerItem = max(small.seconds, 0.05) / Double(small.count)
        let largePerItem = large.seconds / Double(large.count)
        let ratio = largePerItem / smallPerItem
        let text = String(format: "%@ per item ×%.2f from %@ to %@", name, ratio, Format.number(small.count), Format.number(large.count))
        return (text, ratio > Self.slowdownAllowance ? "\(text): superlinear (allowed ×\(Self.slowdownAllowance))" : nil)
    }

    // MARK: - A 10 MB text field

    private mutating func hugeTextField() throws {
        var problems: [String] = []
        let (configurationPath, configuration) = try prepareDirectory("huge-text")
        var records = RecordGenerator(random: random.split())
        let bytes = settings.textMegabytes * 1_000_000
        var body = "zyzzyvastart "
        body.reserveCapacity(bytes + 64)
        while body.utf8.count < bytes { body += records.word() + " " + String(records.int(in: 0...99_999)) + " " }
        body += "zyzzyvaend"
        let line: [String: Any] = ["id": "huge", "title": "a record with a huge body", "body": body, "tag": "huge", "n": 1, "rev": 0]
        try workspace.write(Data(try JSONSerialization.data(withJSONObject: line)) + Data("\n".utf8), to: "huge-text/huge.jsonl")
        let (importing, _) = try measure(["import", workspace.path("huge-text/huge.jsonl"), "--entity", "Item"],
                                         configuration: configurationPath, problems: &problems)
        let (indexing, _) = try measure(["index", "update"], configuration: configurationPath, problems: &problems)
        var searches: [Measure] = []
        for word in ["zyzzyvastart", "zyzzyvaend"] {
            let (searching, run) = try measure(["search", "--json", word], configuration: configurationPath, problems: &problems)
            searches.append(searching)
            let keys = (run.jsonObject?["hits"] as? [[String: Any]])?.compactMap { $0["key"] as? String } ?? []
            if keys != ["huge"] { problems.append("searching \(word) found \(keys)") }
        }
        // Update the huge field once: the replaced document must not leave its old terms behind.
        let edit = try workspace.sqlite("UPDATE Item SET body = 'now short' || substr(body, 1, 100), rev = rev + 1 WHERE id = 'huge';",
                                        database: configuration.storePath)
        if !edit.succeeded { problems.append("shortening the body: \(edit.errorLine)") }
        let (reindexing, _) = try measure(["index", "update"], configuration: configurationPath, problems: &problems)
        let (gone, goneRun) = try measure(["search", "--json", "zyzzyvaend"], configuration: configurationPath, problems: &problems)
        if ((goneRun.jsonObject?["hits"] as? [Any])?.count ?? -1) != 0 { problems.append("the old end of the body is still found after the update") }
        problems += invariant(configuration)
        // Bounded: no step may hold more than 40 times the field in memory (a copy per layer is expected, not more).
        let limit = 40 * bytes / 1024 + 200 * 1024
        for (name, step) in [("import", importing), ("index update", indexing), ("search", searches.max { $0.kilobytes < $1.kilobytes }!)]
        where step.kilobytes > limit {
            problems.append("\(name) peaked at \(Format.megabytes(kilobytes: step.kilobytes)), over \(Format.megabytes(kilobytes: limit))")
        }
        report.record("a \(settings.textMegabytes) MB text field: imported, indexed, found by its first and last words, updated", problems: problems)
        report.figure("\(settings.textMegabytes) MB field", "import \(importing.text); index \(indexing.text); search \(searches.map(\.text).joined(separator: " / ")); reindex \(reindexing.text); search after \(gone.text)")
    }

    // MARK: - One batch transaction of many rows

    private mutating func batchTransactions() throws {
        var perSize: [(rows: Int, capture: Measure, insert: Measure, update: Measure, delete: Measure)] = []
        var problems: [String] = []
        for rows in settings.batchRows {
            let (configurationPath, configuration) = try prepareDirectory("batch-\(rows)")
            // An index must exist first, so that the batch reaches it through history, not through a rebuild.
            let seed = try workspace.sqlite("CREATE TABLE IF NOT EXISTS Item (id TEXT PRIMARY KEY NOT NULL, title TEXT, body TEXT, tag TEXT, n, rev);",
                                            database: configuration.storePath)
            if !seed.succeeded { problems.append("creating the table: \(seed.errorLine)") }
            _ = try measure(["import", "/dev/null", "--entity", "Item"], configuration: configurationPath, problems: &problems)
            _ = try measure(["index", "update"], configuration: configurationPath, problems: &problems)
            let capture = try measureSQL("""
                BEGIN;
                INSERT INTO Item (id, title, body, tag, n, rev)
                  WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM k WHERE x < \(rows))
                  SELECT printf('b-%08d', x), 'batch row ' || x, 'row number ' || x || ' of a single transaction',
                         'tag-' || (x % 50), x, 0 FROM k;
                COMMIT;
                """, database: configuration.storePath, problems: &problems)
            let (insert, insertRun) = try measure(["index", "update", "--json"], configuration: configurationPath, problems: &problems)
            if insertRun.jsonObject?["indexed"] as? Int != rows { problems.append("\(rows) rows: the update indexed \(insertRun.stdout)") }
            if rows <= 100_000 { problems += invariant(configuration).map { "\(rows) rows inserted: \($0)" } }
            _ = try measureSQL("UPDATE Item SET title = 'updated ' || n, rev = rev + 1;", database: configuration.storePath, problems: &problems)
            let (update, _) = try measure(["index", "update"], configuration: configurationPath, problems: &problems)
            problems += invariant(configuration).map { "\(rows) rows updated: \($0)" }
            // A quarter: deleting most of the rows is applied by a rebuild of the rest (the backlog line), and this
            // measures the deletes themselves.
            _ = try measureSQL("DELETE FROM Item WHERE n % 4 = 0;", database: configuration.storePath, problems: &problems)
            let (delete, deleteRun) = try measure(["index", "update", "--json"], configuration: configurationPath, problems: &problems)
            if deleteRun.jsonObject?["deleted"] as? Int != rows / 4 || deleteRun.jsonObject?["rebuilt"] as? Bool != false {
                problems.append("\(rows) rows: the update deleting a quarter of them answered \(deleteRun.stdout)")
            }
            problems += invariant(configuration).map { "\(rows) rows deleted: \($0)" }
            perSize.append((rows, capture, insert, update, delete))
            report.figure("batch of \(Format.number(rows))", "capture \(capture.text); index the inserts \(insert.text), the updates \(update.text), the deletes of a quarter \(delete.text)")
            try? FileManager.default.removeItem(atPath: workspace.path("batch-\(rows)"))
        }
        if perSize.count == 2 {
            let small = perSize[0], large = perSize[1]
            for (name, smallStep, largeStep) in [("capture", small.capture, large.capture),
                                                 ("index inserts", small.insert, large.insert),
                                                 ("index updates", small.update, large.update),
                                                 ("index deletes", small.delete, large.delete)] {
                let (text, problem) = scaling(name, small: (small.rows, smallStep.seconds), large: (large.rows, largeStep.seconds))
                report.figure("scaling: \(name)", text)
                if let problem { problems.append(problem) }
            }
            // The indexer reads a whole transaction's changes at once, so its memory follows the largest transaction.
            let growth = Double(large.insert.kilobytes - small.insert.kilobytes) * 1024 / Double(large.rows - small.rows)
            report.figure("update memory per row", String(format: "%.0f bytes of peak memory per row of the transaction (%@ → %@)", growth,
                                                          Format.megabytes(kilobytes: small.insert.kilobytes),
                                                          Format.megabytes(kilobytes: large.insert.kilobytes)))
            if growth > Self.memoryPerRowAllowance {
                problems.append(String(format: "the update's memory grows by %.0f bytes per row of the transaction (allowed %.0f)", growth, Self.memoryPerRowAllowance))
            }
        }
        report.record("one batch transaction of \(settings.batchRows.map(Format.number).joined(separator: " and ")) rows: captured, indexed, updated, deleted", problems: problems)
    }

    // MARK: - Distinct keywords

    private mutating func distinctKeywords() throws {
        var problems: [String] = []
        var perSize: [(count: Int, index: Measure, facet: Measure)] = []
        for count in settings.keywordCounts {
            let (configurationPath, configuration) = try prepareDirectory("keywords-\(count)")
            var records = RecordGenerator(random: random.split())
            let lines = (0..<count).map { index -> String in
                var item = records.item(id: "k-\(index)")
                item.tag = "kw-" + String(format: "%06d", index)
                return item.jsonLine
            }
            try workspace.write(lines.joined(separator: "\n") + "\n", to: "keywords-\(count)/items.jsonl")
            _ = try measure(["import", workspace.path("keywords-\(count)/items.jsonl"), "--entity", "Item", "--batch", "5000"],
                            configuration: configurationPath, problems: &problems)
            let (index, _) = try measure(["index", "update"], configuration: configurationPath, problems: &problems)
            let (facet, facetRun) = try measure(["search", "--json", "--entity", "Item", "--facet", "tag", "--limit", "0"],
                                                configuration: configurationPath, problems: &problems)
            let values = ((facetRun.jsonObject?["facets"] as? [String: Any])?["tag"] as? [String: Int]) ?? [:]
            if values.count != count || values.values.contains(where: { $0 != 1 }) {
                problems.append("\(count) keywords: the facet counted \(values.count) values")
            }
            let middle = "kw-" + String(format: "%06d", count / 2)
            let (_, filterRun) = try measure(["search", "--json", "--filter", "tag:\(middle)"], configuration: configurationPath, problems: &problems)
            let keys = (filterRun.jsonObject?["hits"] as? [[String: Any]])?.compactMap { $0["key"] as? String } ?? []
            if keys != ["k-\(count / 2)"] { problems.append("filtering on \(middle) found \(keys)") }
            problems += invariant(configuration).map { "\(count) keywords: \($0)" }
            perSize.append((count, index, facet))
            report.figure("\(Format.number(count)) keywords", "index \(index.text); facet over all \(facet.text)")
            try? FileManager.default.removeItem(atPath: workspace.path("keywords-\(count)"))
        }
        if perSize.count == 2 {
            for (name, small, large) in [("keyword indexing", perSize[0].index, perSize[1].index),
                                         ("keyword facet", perSize[0].facet, perSize[1].facet)] {
                let (text, problem) = scaling(name, small: (perSize[0].count, small.seconds), large: (perSize[1].count, large.seconds))
                report.figure("scaling: \(name)", text)
                if let problem { problems.append(problem) }
            }
        }
        report.record("\(settings.keywordCounts.map(Format.number).joined(separator: " and ")) distinct keywords: indexed, counted as facets, filterable", problems: problems)
    }
}

import SpotliteTooling
import Foundation
import GRDB
import Spotlite

/// No silent wrong answers: seeded trials of every class of input that once gave a wrong answer without an error
/// (issue 13). Each trial does one thing another program or a careless user could do, expects the right answer or a
/// clear one-line error, and then runs `index update` and the differential check: the index's keys and stored
/// fields equal the store's rows, byte for byte (``InvariantChecker``; keys and values compared as bytes, so NFC and
/// NFD forms, or a blob and a text with the same bytes, are different).
struct CorrectnessSuite {
    struct Settings {
        /// Trials per class.
        var rounds: Int
        /// Rows of the backlog `index watch` is stopped in.
        var backlogRows: Int

        static func forMode(long: Bool) -> Settings {
            long ? Settings(rounds: 10, backlogRows: 50_000) : Settings(rounds: 1, backlogRows: 20_000)
        }
    }

    /// The classes tried, in the order of each round.
    enum Case: String, CaseIterable {
        case emptyParse = "queries that parse to nothing"
        case exactKeys = "keys differing only in Unicode normalisation"
        case blobKey = "a blob key with a text key's bytes"
        case hugeInteger = "integers beyond 64 bits"
        case rebuiltTable = "a table rebuilt by another program"
        case droppedTrigger = "a trigger dropped by another program"
        case poisonedCurrent = "a poisoned spotlite_current"
        case damagedDocument = "a damaged stored document"
        case watchStop = "SIGINT to index watch during a backlog"
        case numericOptions = "numeric options out of range"
        case longLine = "a line longer than the import accepts"
        case nul = "NUL in a query and in a configured path"
        case symlink = "symbolic links in the index directory"
        case budget = "queries over budget"
        case authors = "empty and reserved authors, a directory as input"
    }

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    var random: SeededGenerator
    var records: RecordGenerator
    let configuration: SpotliteConfiguration
    private var nextKey = 0
    private var rowsChecked = 0
    private var trials: [Case: Int] = [:]
    private var stopSeconds: [Double] = []

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        random = SeededGenerator(seed: seed)
        records = RecordGenerator(random: random.split())
        try workspace.write(ItemModel.configuration(storePath: workspace.storePath, indexPath: workspace.indexPath,
                                                    batchSize: 100), to: "spotlite.toml")
        configuration = try workspace.loadConfiguration()
    }

    mutating func run() throws {
        let lines = (0..<200).map { records.item(id: "r-\($0)").jsonLine }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: "initial.jsonl")
        let imported = try workspace.runSpotlite(["import", workspace.path("initial.jsonl"), "--entity", "Item"])
        guard imported.succeeded else { throw HarnessError("the initial import failed: \(imported.errorLine)") }
        let built = try workspace.runSpotlite(["index", "update"])
        guard built.succeeded else { throw HarnessError("the first index build failed: \(built.errorLine)") }
        for round in 0..<settings.rounds {
            for kind in Case.allCases {
                let problems = try trial(kind) + afterTrial()
                trials[kind, default: 0] += 1
                report.record("round \(round + 1): \(kind.rawValue)", problems: problems)
            }
        }
        report.figure("classes", "\(Case.allCases.count) classes × \(settings.rounds) rounds = \(trials.values.reduce(0, +)) trials")
        report.figure("differential check", "\(Format.number(rowsChecked)) rows compared with their documents byte for byte, after every trial")
        if !stopSeconds.isEmpty {
            let sorted = stopSeconds.sorted()
            report.figure("watch stop", "SIGINT to exit: median \(Format.seconds(sorted[sorted.count / 2])), max \(Format.seconds(sorted.last!)) (backlog of \(Format.number(settings.backlogRows)) rows)")
        }
    }

    // MARK: - The check after every trial

    /// `index update`, then the index must equal the store, byte for byte.
    private mutating func afterTrial() throws -> [String] {
        let update = try workspace.runSpotlite(["index", "update"])
        guard update.succeeded else { return ["index update after the trial failed: \(update.errorLine)"] }
        let outcome = try InvariantChecker(configuration: configuration).check(.init(expectCaughtUp: true, ledger: false))
        rowsChecked += outcome.rows
        return outcome.problems.map { "differential check: \($0)" }
    }

    private mutating func freshKey() -> String {
        nextKey += 1
        return "k-\(nextKey)"
    }

    /// Nil when `run` failed with one clear line mentioning every word of `words`.
    private static func clearError(_ run: Workspace.Run, mentioning words: [String], _ what: String) -> [String] {
        if let problem = BadInputSuite.unclearFailure(run) { return ["\(what): \(problem)"] }
        let missing = words.filter { !run.stderr.contains($0) }
        return missing.isEmpty ? [] : ["\(what): the error does not mention \(missing.joined(separator: ", ")): \(run.errorLine)"]
    }

    // MARK: - Trials

    private mutating func trial(_ kind: Case) throws -> [String] {
        switch kind {
        case .emptyParse: return try emptyParse()
        case .exactKeys: return try exactKeys()
        case .blobKey: return try blobKey()
        case .hugeInteger: return try hugeInteger()
        case .rebuiltTable: return try rebuiltTable()
        case .droppedTrigger: return try droppedTrigger()
        case .poisonedCurrent: return try poisonedCurrent()
        case .damagedDocument: return try damagedDocument()
        case .watchStop: return try watchStop()
        case .numericOptions: return try numericOptions()
        case .longLine: return try longLine()
        case .nul: return try nul()
        case .symlink: return try symlink()
        case .budget: return try budget()
        case .authors: return try authors()
        }
    }

    private mutating func emptyParse() throws -> [String] {
        let high = random.int(in: 2...1000), low = random.int(in: 0...(high - 1))
        let word = records.word()
        let query = random.pick(["n:\(high)..\(low)", "\(word) n:\(high)..\(low)", "\"", "(", ")", "-", "( )", "\"\"",
                                 "\(word) AND n:\(high)..\(low)"])
        let run = try workspace.runSpotlite(["search", "--json", "--limit", "10", "--", query])
        // Like grep, a search that finds nothing exits with status 1 (and prints its JSON).
        guard run.succeeded || (run.termination.exitStatus == 1 && run.stderr.isEmpty) else {
            return BadInputSuite.unclearFailure(run).map { ["\(query): \($0)"] } ?? ["\(query): \(run.errorLine)"]
        }
        let total = run.jsonObject?["total"] as? Int
        let hits = (run.jsonObject?["hits"] as? [Any])?.count
        return total == 0 && hits == 0 ? [] : ["\(query) matched \(total.map(String.init) ?? "?") documents; it must match none"]
    }

    private mutating func exactKeys() throws -> [String] {
        let base = records.word() + "-\(nextKey)"
        nextKey += 1
        // e + U+0301 against é; a + U+030A against å: equal as Swift strings, two rows for SQLite.
        let (composed, decomposed) = random.chance(0.5) ? (base + "\u{E9}", base + "e\u{301}") : (base + "\u{E5}", base + "a\u{30A}")
        var script = ""
        for (key, title) in [(composed, "composed"), (decomposed, "decomposed")] {
            script += "INSERT INTO Item (id, title, rev) VALUES (\(SQLText.literal(key)), '\(title)', 0);\n"
        }
        if random.chance(0.5) { script += "DELETE FROM Item WHERE id = \(SQLText.literal(random.chance(0.5) ? composed : decomposed));\n" }
        let run = try workspace.sqlite(script)
        return run.succeeded ? [] : ["sqlite3 failed: \(run.errorLine)"]
    }

    private mutating func blobKey() throws -> [String] {
        let key = freshKey()
        let first = try workspace.sqlite("INSERT INTO Item (id, title, rev) VALUES (\(SQLText.literal(key)), 'text row', 0);")
        guard first.succeeded else { return ["sqlite3 failed: \(first.errorLine)"] }
        let update = try workspace.runSpotlite(["index", "update"])
        guard update.succeeded else { return ["index update failed: \(update.errorLine)"] }
        var script = "INSERT INTO Item (id, title, rev) VALUES (CAST(\(SQLText.literal(key)) AS BLOB), 'blob row', 0);\n"
        if random.chance(0.5) { script += "DELETE FROM Item WHERE typeof(id) = 'blob';\n" }
        let second = try workspace.sqlite(script)
        return second.succeeded ? [] : ["sqlite3 failed: \(second.errorLine)"]
    }

    private mutating func hugeInteger() throws -> [String] {
        let digits = (0..<random.int(in: 20...40)).map { _ in String(random.int(in: 0...9)) }.joined()
        let literal = (random.chance(0.5) ? "-" : "") + String(random.int(in: 1...9)) + digits
        let key = freshKey()
        try workspace.write("{\"id\": \"\(key)\", \"title\": \"fine\", \"rev\": 0}\n{\"id\": \"\(freshKey())\", \"n\": \(literal), \"rev\": 0}\n",
                            to: "huge.jsonl")
        let run = try workspace.runSpotlite(["import", workspace.path("huge.jsonl"), "--entity", "Item", "--batch", "1"])
        return Self.clearError(run, mentioning: ["line 2", literal], "an integer of \(literal.count) digits")
    }

    private mutating func rebuiltTable() throws -> [String] {
        let suffix = SQLText.literal(" " + records.word())
        let run = try workspace.sqlite("""
            DROP TABLE IF EXISTS spare;
            CREATE TABLE spare AS SELECT * FROM Item;
            DROP TABLE Item;
            CREATE TABLE Item (id TEXT PRIMARY KEY NOT NULL, title TEXT, body TEXT, tag TEXT, n INTEGER, rev INTEGER);
            INSERT INTO Item SELECT id, title || \(suffix), body, tag, n, rev FROM spare WHERE rowid % 7 <> 3;
            DROP TABLE spare;
            """)
        guard run.succeeded else { return ["sqlite3 failed: \(run.errorLine)"] }
        let update = try workspace.runSpotlite(["index", "update"])
        guard update.succeeded else { return ["index update failed: \(update.errorLine)"] }
        return update.stdout.contains("Rebuilt") && update.stdout.contains("triggers") ? []
            : ["the update did not rebuild, or did not say why: \(update.stdout.prefix(300))"]
    }

    private mutating func droppedTrigger() throws -> [String] {
        let trigger = random.pick(["insert", "update", "delete", "rekey"])
        let key = freshKey()
        let run = try workspace.sqlite("""
            DROP TRIGGER spotlite_Item_\(trigger);
            INSERT INTO Item (id, title, rev) VALUES (\(SQLText.literal(key)), 'unrecorded', 0);
            UPDATE Item SET title = title || ' unrecorded', rev = rev + 1 WHERE rowid % 11 = \(random.int(in: 0...10));
            DELETE FROM Item WHERE rowid % 13 = \(random.int(in: 0...12));
            """)
        return run.succeeded ? [] : ["sqlite3 failed: \(run.errorLine)"]
    }

    private mutating func poisonedCurrent() throws -> [String] {
        let store = try workspace.sqlite("SELECT max(token) FROM spotlite_transaction;")
        let newest = Int(store.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
        let token = random.int(in: 1...max(1, newest + 2))
        let key = freshKey()
        let run = try workspace.sqlite("""
            UPDATE spotlite_current SET token = \(token);
            INSERT INTO Item (id, title, rev) VALUES (\(SQLText.literal(key)), 'after poisoning', 0);
            UPDATE Item SET title = 'poisoned', rev = rev + 1 WHERE rowid % 9 = \(random.int(in: 0...8));
            """)
        return run.succeeded ? [] : ["sqlite3 failed: \(run.errorLine)"]
    }

    private mutating func damagedDocument() throws -> [String] {
        guard let generation = IndexLayout(path: workspace.indexPath).liveGenerationPath else { return ["no live index"] }
        let rows = try workspace.sqlite("SELECT id FROM Item WHERE typeof(id) = 'text' AND id NOT LIKE '%''%' ORDER BY id LIMIT 50;")
        let keys = rows.stdout.split(separator: "\n").map(String.init).filter { $0.allSatisfy(\.isASCII) && !$0.hasPrefix("#") }
        guard !keys.isEmpty else { return ["no key to damage"] }
        let key = random.pick(keys)
        do {
            let writer = try XapianWritableDatabase(path: generation, action: .open)
            let document = try XapianDocument()
            let idTerm = "QItem:" + key
            try document.addBooleanTerm(idTerm)
            try document.addBooleanTerm("XE:Item")
            try document.setData(random.pick(["{\"entity\":", "garbage", "", "{\"entity\":\"Item\",\"key\":1,\"fields\":[}"]))
            _ = try writer.replaceDocument(uniqueTerm: idTerm, document: document)
            try writer.commit()
            try writer.close()
        }
        let search = try workspace.runSpotlite(["search", "--json", "--limit", "10000", "--entity", "Item"])
        var problems = Self.clearError(search, mentioning: ["spotlite index rebuild"], "searching the damaged document")
        let rebuild = try workspace.runSpotlite(["index", "rebuild"])
        if !rebuild.succeeded { problems.append("index rebuild failed: \(rebuild.errorLine)") }
        return problems
    }

    private mutating func watchStop() throws -> [String] {
        let start = nextKey
        nextKey += settings.backlogRows
        let run = try workspace.sqlite("""
            WITH RECURSIVE k(i) AS (SELECT \(start) UNION ALL SELECT i + 1 FROM k WHERE i < \(start + settings.backlogRows - 1))
            INSERT INTO Item (id, title, body, rev) SELECT 'bulk-' || i, 'bulk ' || i, \(SQLText.literal(records.text(words: 6))), 0 FROM k;
            """)
        guard run.succeeded else { return ["sqlite3 failed: \(run.errorLine)"] }
        let watch = try workspace.startSpotlite(["index", "watch", "--json"])
        // Stop once the first batch is applied (the watcher prints one JSON line per batch).
        let deadline = ContinuousClock.now + .seconds(120)
        while watch.stdout.isEmpty, watch.poll() == nil, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let signalled = ContinuousClock.now
        watch.kill(SIGINT)
        let ended = workspace.finish(watch, timeout: 60)
        stopSeconds.append((ContinuousClock.now - signalled).seconds)
        var problems: [String] = []
        if !ended.succeeded { problems.append("index watch did not exit cleanly after SIGINT: \(ended.termination) \(ended.errorLine)") }
        if let seconds = stopSeconds.last, seconds > 5 { problems.append("index watch took \(Format.seconds(seconds)) to stop after SIGINT") }
        let delete = try workspace.sqlite("DELETE FROM Item WHERE id LIKE 'bulk-%';")
        if !delete.succeeded { problems.append("sqlite3 failed: \(delete.errorLine)") }
        return problems
    }

    private mutating func numericOptions() throws -> [String] {
        let cases: [([String], [String])] = [
            (["import", workspace.path("initial.jsonl"), "--entity", "Item", "--batch", random.pick(["0", "-1", "100001", "99999999999999"])], ["--batch"]),
            (["search", "--limit", random.pick(["-1", "10001", "-99"]), "--", records.word()], ["--limit"]),
            (["search", "--offset", random.pick(["-1", "1000001"]), "--", records.word()], ["--offset"]),
            (["history", "list", "--limit", random.pick(["0", "-1"])], ["--limit"]),
            (["history", "list", "--after", "-\(random.int(in: 1...100))"], ["--after"]),
        ]
        var problems: [String] = []
        for (arguments, words) in cases {
            problems += Self.clearError(try workspace.runSpotlite(arguments), mentioning: words + ["must be"],
                                        arguments.joined(separator: " "))
        }
        return problems
    }

    private mutating func longLine() throws -> [String] {
        let path = workspace.path("long.jsonl")
        try Data("{\"id\": \"\(freshKey())\", \"rev\": 0}\n".utf8).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        let chunk = Data(repeating: UInt8(ascii: random.pick(["x", " ", "{"])), count: 1 << 20)
        for _ in 0..<65 { try handle.write(contentsOf: chunk) }
        try handle.close()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try workspace.runSpotlite(["import", path, "--entity", "Item", "--batch", "1"])
        return Self.clearError(run, mentioning: ["line 2", "MiB"], "a 65 MiB line")
    }

    private mutating func nul() throws -> [String] {
        try workspace.write("\(records.word())\n\(records.word())\u{0}\(records.word())\n", to: "queries.txt")
        var problems = Self.clearError(try workspace.runSpotlite(["search", "--queries", workspace.path("queries.txt")]),
                                       mentioning: ["line 2", "NUL"], "a query with a NUL")
        let text = try String(contentsOfFile: workspace.configurationPath, encoding: .utf8)
        try workspace.write(text.replacingOccurrences(of: "store.sqlite\"", with: "store.sqlite\\u0000.bak\""), to: "nul.toml")
        problems += Self.clearError(try workspace.runSpotlite(["index", "status"], configuration: workspace.path("nul.toml")),
                                    mentioning: ["nul.toml", "NUL"], "a configured path with a NUL")
        return problems
    }

    private mutating func symlink() throws -> [String] {
        try workspace.write("precious\n", to: "victim.txt")
        let name = random.pick(["writer.lock", "XAPIANDB.tmp"])
        let link = workspace.indexPath + "/" + name
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: workspace.path("victim.txt"))
        var problems: [String] = []
        let run = try workspace.runSpotlite(["index", "rebuild"])
        if name == "writer.lock" {
            problems += Self.clearError(run, mentioning: ["symbolic link"], "a writer.lock link")
            try? FileManager.default.removeItem(atPath: link)
        } else if !run.succeeded {
            problems.append("a rebuild with a stub link in the way failed: \(run.errorLine)")
        }
        if (try? String(contentsOfFile: workspace.path("victim.txt"), encoding: .utf8)) != "precious\n" {
            problems.append("the target of \(name) was written through the link")
        }
        return problems
    }

    private mutating func budget() throws -> [String] {
        let words = (0...SearchRequest.maximumWords).map { _ in records.word() }.joined(separator: " ")
        var problems = Self.clearError(try workspace.runSpotlite(["search", "--", words]), mentioning: ["budget", "words"],
                                       "a query of \(SearchRequest.maximumWords + 1) words")
        let all = try workspace.runSpotlite(["search", "--json", "--limit", String(SearchRequest.maximumLimit), "--", "*"])
        if !all.succeeded { problems.append("`*` with the largest limit failed: \(all.errorLine)") }
        return problems
    }

    private mutating func authors() throws -> [String] {
        let author = random.pick(["", "spotlite.indexer", "spotlite.migration", "spotlite.\(records.word())"])
        var problems = Self.clearError(try workspace.runSpotlite(["import", workspace.path("initial.jsonl"), "--entity", "Item",
                                                                  "--author", author]),
                                       mentioning: ["author"], "the author \"\(author)\"")
        try FileManager.default.createDirectory(atPath: workspace.path("a-directory"), withIntermediateDirectories: true)
        problems += Self.clearError(try workspace.runSpotlite(["import", workspace.path("a-directory"), "--entity", "Item"]),
                                    mentioning: ["is a directory"], "a directory as input")
        return problems
    }
}

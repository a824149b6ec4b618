import SpotliteTooling
import Foundation
import GRDB
import Spotlite

/// Bad input: a query fuzzer (through the Swift API and through `spotlite search`), malformed configuration files,
/// malformed JSON Lines, names and values that could inject SQL, a corrupt index, missing and read-only directories,
/// and a full disk. Nothing may crash or hang; every failure must be one clear line naming the problem and the way out,
/// and whatever was there before must stay usable.
struct BadInputSuite {
    struct Settings {
        var queries: Int
        var commandQueries: Int
        var records: Int

        static func forMode(long: Bool) -> Settings {
            long ? Settings(queries: 20_000, commandQueries: 300, records: 2000)
                : Settings(queries: 400, commandQueries: 25, records: 300)
        }
    }

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    var random: SeededGenerator
    let configuration: SpotliteConfiguration

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        random = SeededGenerator(seed: seed)
        try workspace.write(ItemModel.configuration(storePath: workspace.storePath, indexPath: workspace.indexPath),
                            to: "spotlite.toml")
        configuration = try workspace.loadConfiguration()
    }

    mutating func run() throws {
        try prepare()
        try fuzzQueries()
        try fuzzQueriesThroughTheCommand()
        try malformedConfigurations()
        try malformedImports()
        try injection()
        try corruptIndex()
        try missingAndReadOnlyDirectories()
        try fullDisk()
    }

    private mutating func prepare() throws {
        var records = RecordGenerator(random: random.split())
        let lines = (0..<settings.records).map { records.item(id: "r-\($0)").jsonLine }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: "initial.jsonl")
        let imported = try workspace.runSpotlite(["import", workspace.path("initial.jsonl"), "--entity", "Item"])
        guard imported.succeeded else { throw HarnessError("the initial import failed: \(imported.errorLine)") }
        let built = try workspace.runSpotlite(["index", "update"])
        guard built.succeeded else { throw HarnessError("the first index build failed: \(built.errorLine)") }
    }

    // MARK: - Checks shared by the cases

    /// Nil when a command failed the way the command line promises: exit status 1, one line on stderr starting with
    /// `spotlite: ` and giving a way out, no crash, no stack trace. Otherwise what is wrong.
    static func unclearFailure(_ run: Workspace.Run) -> String? {
        if run.termination.timedOut { return "it hung (\(run.termination))" }
        if let signal = run.termination.signal { return "it crashed (signal \(signal)): \(run.stderr.prefix(300))" }
        if run.termination.exitStatus == 0 { return "it succeeded; expected an error" }
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.count == 1, let line = lines.first else {
            return "expected one error line, got \(lines.count): \(run.stderr.prefix(300))"
        }
        guard line.hasPrefix("spotlite: ") else { return "the error does not start with `spotlite: `: \(line.prefix(200))" }
        // The way out follows a semicolon, or is an example; a syntax error's way out is its line and column.
        let givesWayOut = line.contains("; ") || line.contains("e.g. ")
            || line.range(of: #"line [0-9]+, column [0-9]+"#, options: .regularExpression) != nil
        guard givesWayOut else { return "the error gives no way out (no `; …`): \(line.prefix(200))" }
        if line.contains("Fatal error") || line.contains("Stack dump") { return "a crash report: \(line.prefix(200))" }
        return nil
    }

    /// Nil when the run either succeeded or failed clearly.
    static func answeredOrClear(_ run: Workspace.Run) -> String? {
        run.succeeded ? nil : unclearFailure(run)
    }

    /// Files and directories under `path`, relative, sorted.
    static func contents(of path: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).sorted()
    }

    /// The invariant, as a list of problems (empty when it holds).
    func invariantProblems(ledger: Bool = false) -> [String] {
        do {
            return try InvariantChecker(configuration: configuration)
                .check(InvariantChecker.Options(expectCaughtUp: true, ledger: ledger)).problems
        } catch {
            return ["the invariant check could not run: \(error)"]
        }
    }

    // MARK: - Queries

    private mutating func fuzzQueries() throws {
        let searcher = try IndexSearcher(configuration: configuration)
        var generator = QueryGenerator(random: random.split())
        let fuzzer = QueryFuzzer(searcher: searcher, lastQueryPath: workspace.path("last-query.txt"))
        let outcome = fuzzer.run(count: settings.queries, generator: &generator)
        // Some must be answered, or the searches never reached the index and the check proved nothing.
        report.record("\(outcome.queries) fuzzed searches through the Swift API: answered or a clear SearchError",
                      problems: outcome.unclear + (outcome.answered > 0 ? [] : ["no search was answered"]))
        report.figure("API fuzzing", "\(Format.number(outcome.queries)) searches: \(Format.number(outcome.answered)) answered, \(Format.number(outcome.rejected)) clear errors, \(outcome.unclear.count) unclear, in \(Format.seconds(outcome.seconds)); slowest \(Format.seconds(outcome.slowest))")
        report.figure("API errors by kind", outcome.errorKinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        report.figure("fuzzer peak memory", Format.megabytes(kilobytes: usage.ru_maxrss))
    }

    private mutating func fuzzQueriesThroughTheCommand() throws {
        var generator = QueryGenerator(random: random.split())
        var problems: [String] = []
        var answered = 0, rejected = 0
        for _ in 0..<settings.commandQueries {
            // argv cannot hold NUL: the command line never sees one there.
            var query = generator.query().replacingOccurrences(of: "\u{0}", with: " ")
            if query.utf8.count > 100_000 { query = String(query.prefix(20_000)) }
            let run = try workspace.runSpotlite(["search", "--json", "--limit", "5", "--", query], timeout: 120)
            if run.succeeded {
                if run.jsonObject == nil { problems.append("query \(QueryFuzzer.escaped(String(query.prefix(60)))): not one JSON document") }
                answered += 1
            } else if let problem = Self.unclearFailure(run) {
                problems.append("query \(QueryFuzzer.escaped(String(query.prefix(60)))): \(problem)")
            } else {
                rejected += 1
            }
        }
        if answered == 0 { problems.append("no generated query was answered: the searches never reached the index") }
        // Invalid UTF-8 in an argument (through the shell's printf) and in a --queries file.
        for bytes in [#"\377\376 search"#, #"caf\303"#, #"\300\200 index \355\240\200"#, #"title:\377"#, #"\"\377"#] {
            let run = try workspace.run("/bin/sh", ["-c", #"exec "$0" search --json --config "$1" -- "$(printf "$2")""#,
                                                    workspace.spotlite, workspace.configurationPath, bytes],
                                        label: "search-invalid-utf8", timeout: 120)
            if let problem = Self.answeredOrClear(run) { problems.append("invalid UTF-8 argument \(bytes): \(problem)") }
            else if run.succeeded { answered += 1 } else { rejected += 1 }
        }
        try workspace.write(Data("search\n".utf8) + Data([0xFF, 0xFE, 0x0A]) + Data("index\n".utf8), to: "queries-invalid.txt")
        let invalidFile = try workspace.runSpotlite(["search", "--json", "--queries", workspace.path("queries-invalid.txt")])
        if let problem = Self.unclearFailure(invalidFile) { problems.append("--queries with invalid UTF-8: \(problem)") }
        else if !invalidFile.stderr.contains("UTF-8") { problems.append("--queries with invalid UTF-8: the error does not say UTF-8: \(invalidFile.errorLine)") }
        try workspace.write(Data("search\n\u{0}\u{0}\nindex AND\n\"unbalanced\nxapian\n".utf8), to: "queries-odd.txt")
        let oddFile = try workspace.runSpotlite(["search", "--json", "--queries", workspace.path("queries-odd.txt")])
        if let problem = Self.answeredOrClear(oddFile) { problems.append("--queries with NUL bytes and bad syntax: \(problem)") }
        report.record("fuzzed searches through `spotlite search`: answered or one clear error line", problems: problems)
        report.figure("command fuzzing", "\(answered + rejected) searches: \(answered) answered, \(rejected) clear errors")
    }
}

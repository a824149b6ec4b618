import Foundation
import GRDB
import Spotlite
import SpotliteTooling
#if canImport(Glibc)
import Glibc
#endif

/// Remote shards under failure: an index whose 3 shards are served by `xapian-tcpsrv --writable` on 127.0.0.1, with
/// shard servers killed (SIGKILL to their session) in the middle of `index update`, right after a seeded shard commit
/// or at a seeded moment, and the indexer killed in the middle of a rebuild in place while searches run.
///
/// After each kill: the failed update said so in one line naming the server's `HOST:PORT`; searches fail naming it,
/// or answer partially when allowed; `index status` names it; no position moved past what every shard committed;
/// after the server restarts, the next `index update` catches up without rebuilding, the invariant holds, and every
/// query answers exactly as a local index built from the same store (same hits, same weights). A killed rebuild
/// never stops searches from answering (every document once, old or new), and the next run finishes it.
struct RemoteSuite {
    struct Settings {
        var trials: Int
        var records: Int
        var sharedKeys: Int
        /// Transactions of the `sqlite3` writer run before each trial.
        var writerTransactions: Int
        /// Queries compared with the local index after each trial.
        var queries: Int

        static func forMode(long: Bool) -> Settings {
            long ? Settings(trials: 60, records: 2000, sharedKeys: 300, writerTransactions: 40, queries: 60)
                : Settings(trials: 3, records: 200, sharedKeys: 50, writerTransactions: 12, queries: 20)
        }
    }

    enum Kind: String, CaseIterable {
        case serverKilledAfterCommit = "shard server killed after a shard commit"
        case serverKilledDuringUpdate = "shard server killed during index update"
        case indexerKilledDuringRebuild = "indexer killed during a rebuild in place"
    }

    static let shards = 3
    static let batchSize = 25

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    private let seed: UInt64
    private var random: SeededGenerator
    private var trialRandom: SeededGenerator
    private var servers: [XapianTcpServer] = []
    private var configuration: SpotliteConfiguration
    private var referenceConfiguration: SpotliteConfiguration
    private var updateSeconds = 0.5
    private var rebuildSeconds = 1.0
    private var killedMidRun: [Kind: Int] = [:]
    private var finishedFirst: [Kind: Int] = [:]
    private var errorLinesChecked = 0
    private var searchesDuringRebuilds = 0
    private var recoverySeconds: [Double] = []
    private var comparedQueries = 0
    private var checkedRows = 0

    private var referencePath: String { workspace.path("reference.toml") }

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64, long: Bool) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        self.seed = seed
        random = SeededGenerator(seed: seed)
        trialRandom = CrashSuite.trialGenerator(seed: seed, trial: 0)
        // Bounded lifetimes: a server never outlives a crashed harness by more than this.
        let lifetime: Duration = long ? .seconds(4 * 3600) : .seconds(900)
        for shard in 0..<Self.shards {
            let directory = workspace.path("servers")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            servers.append(try XapianTcpServer(databasePath: directory + "/shard-\(shard)", lifetime: lifetime))
        }
        // Where the sessions are, for whoever watches the run (the interruption test stops the harness here).
        report.log("shard servers started: " + servers.map { server in
            "\(server.hostAndPort) (session \(server.pid.map { String($0) } ?? "-"))"
        }.joined(separator: ", "))
        try workspace.write(ItemModel.configuration(storePath: workspace.storePath, indexPath: workspace.indexPath,
                                                    batchSize: Self.batchSize, shardLocations: servers.map(\.location)),
                            to: "spotlite.toml")
        try workspace.write(ItemModel.configuration(storePath: workspace.storePath, indexPath: workspace.path("reference-index"),
                                                    batchSize: 500, shards: 1, indexerAuthor: "reference.indexer"),
                            to: "reference.toml")
        configuration = try workspace.loadConfiguration()
        referenceConfiguration = try SpotliteConfiguration(contentsOf: workspace.path("reference.toml"), baseDirectory: workspace.root)
    }

    /// Stops every server (by its session id).
    func stopServers() {
        for server in servers { server.stop() }
    }

    mutating func run() throws {
        defer { stopServers() }
        try prepare()
        var cycle: [Kind] = []
        for trial in 1...settings.trials {
            if cycle.isEmpty { cycle = Kind.allCases.shuffled(using: &random) }
            try runTrial(trial, kind: cycle.removeLast())
        }
        report.figure("trials", settings.trials)
        report.figure("servers", "\(Self.shards) xapian-tcpsrv --writable on 127.0.0.1 (ports \(servers.map { String($0.port) }.joined(separator: ", ")))")
        report.figure("kills by kind", Kind.allCases.map {
            "\($0.rawValue) \(killedMidRun[$0, default: 0])/\(killedMidRun[$0, default: 0] + finishedFirst[$0, default: 0])"
        }.joined(separator: ", "))
        report.figure("error lines", "\(Format.number(errorLinesChecked)) one-line errors naming HOST:PORT checked (update, search, status)")
        report.figure("searches in rebuilds", Format.number(searchesDuringRebuilds) + " answered while a rebuild in place ran or had been killed")
        report.figure("recovery update", recoverySeconds.isEmpty ? "-" : "median \(Format.seconds(recoverySeconds.sorted()[recoverySeconds.count / 2])), max \(Format.seconds(recoverySeconds.max()!))")
        report.figure("local comparison", "\(Format.number(comparedQueries)) queries answered as the local index (hits and weights), \(Format.number(checkedRows)) rows checked")
    }

    // MARK: - Set-up

    private mutating func prepare() throws {
        var records = RecordGenerator(random: random.split())
        var lines = (0..<settings.sharedKeys).map { records.item(id: WriteScript.sharedKey($0)).jsonLine }
        lines += (0..<settings.records).map { records.item(id: "r-\($0)").jsonLine }
        try workspace.write(lines.joined(separator: "\n") + "\n", to: "initial.jsonl")
        let imported = try workspace.runSpotlite(["import", workspace.path("initial.jsonl"), "--entity", "Item", "--batch", "200"])
        guard imported.succeeded else { throw HarnessError("the initial import failed: \(imported.errorLine)") }
        let built = try workspace.runSpotlite(["index", "rebuild", "--json"])
        guard built.succeeded else { throw HarnessError("the first build over the shard servers failed: \(built.errorLine)") }
        rebuildSeconds = built.termination.seconds
        try mutate(trial: 0)
        let update = try workspace.runSpotlite(["index", "update", "--json"])
        guard update.succeeded else { throw HarnessError("the calibration update failed: \(update.errorLine)") }
        updateSeconds = max(update.termination.seconds, 0.05)
        var problems = try InvariantChecker(configuration: configuration).check().problems
        problems += try compareWithReference()
        report.record("set-up: import, build over \(Self.shards) shard servers, update, same answers as a local index", problems: problems)
    }

    /// Writes a little with the `sqlite3` shell (inserts, updates, deletes over own and shared keys), so that the next
    /// update has history to apply.
    private mutating func mutate(trial: Int) throws {
        let script = WriteScript(seed: trialRandom.next(), namespace: "m\(trial)", sharedKeys: settings.sharedKeys)
        let written = try workspace.sqlite(script.shellScript(0..<settings.writerTransactions))
        guard written.succeeded else { throw HarnessError("the writer of trial \(trial) failed: \(written.errorLine)") }
    }

    // MARK: - Trials

    private mutating func runTrial(_ trial: Int, kind: Kind) throws {
        trialRandom = CrashSuite.trialGenerator(seed: seed ^ 0x5EED, trial: trial)
        var problems: [String] = []
        let description: String
        switch kind {
        case .serverKilledAfterCommit, .serverKilledDuringUpdate:
            try mutate(trial: trial)
            let victim = trialRandom.int(below: Self.shards)
            let server = servers[victim]
            let failure: String?
            if kind == .serverKilledAfterCommit {
                let commits = 1 + trialRandom.int(below: Self.shards * 2)
                description = "trial \(trial): kill shard server \(victim) right after shard commit \(commits) of an update"
                let output = workspace.outputPaths("server-kill-\(trial)")
                let child = try ChildProcess(
                    executable: Binaries.reliability,
                    arguments: ["update-killed-between-shard-commits", "--config", workspace.configurationPath,
                                "--after-commits", String(commits), "--kill-process-group", String(server.pid ?? 0)],
                    directory: workspace.root, stdoutPath: output.stdout, stderrPath: output.stderr)
                let ended = child.wait(timeout: 300)
                server.stop()  // reaps the session the child killed (or kills it, when the update ended first)
                let object = (try? JSONSerialization.jsonObject(with: Data(child.stdout.utf8))) as? [String: Any]
                if ended.succeeded {
                    failure = nil
                } else if let message = object?["error"] as? String {
                    failure = message
                } else {
                    // Recorded, and the trial goes on: the server must still be restarted below.
                    problems.append("the update child failed without its error (\(ended)): \(child.stderr.prefix(300))")
                    failure = nil
                }
                workspace.discardOutput(of: child)
            } else {
                let fraction = trialRandom.unit() * 1.1
                let delay = fraction * updateSeconds + 0.002
                description = "trial \(trial): kill shard server \(victim) at \(Int(fraction * 100))% of an update's usual run"
                let child = try workspace.startSpotlite(["index", "update", "--json"])
                usleep(UInt32(delay * 1_000_000))
                server.stop()
                let run = workspace.finish(child, timeout: 300)
                if run.termination.succeeded {
                    failure = nil
                } else {
                    failure = run.stderr
                    let lines = run.stderr.split(separator: "\n")
                    if lines.count != 1 || !run.stderr.hasPrefix("spotlite: ") {
                        problems.append("`spotlite index update` did not fail with one `spotlite:` line: \(run.stderr.prefix(500))")
                    }
                }
            }
            if let failure {
                killedMidRun[kind, default: 0] += 1
                errorLinesChecked += 1
                if !failure.contains("shard \(server.hostAndPort) is unavailable") {
                    problems.append("the failed update does not name \(server.hostAndPort) as unavailable: \(failure.prefix(400))")
                }
            } else {
                finishedFirst[kind, default: 0] += 1
            }
            problems += try checkWithServerDown(server)
            try server.start()
            problems += try checkPositions()
        case .indexerKilledDuringRebuild:
            let (rebuildProblems, text) = try killRebuild(trial: trial)
            problems += rebuildProblems
            description = text
        }
        problems += try recover(rebuildAfterwards: kind == .indexerKilledDuringRebuild && trial % 2 == 0)
        report.record(description, problems: problems)
    }

    /// With `server` down: a search fails in one line naming it, a search allowing partial results answers from the
    /// others and says which is missing, and `index status` shows every shard with the one that cannot be reached.
    private mutating func checkWithServerDown(_ server: XapianTcpServer) throws -> [String] {
        var problems: [String] = []
        let word = RecordGenerator.words[trialRandom.int(below: RecordGenerator.words.count)]
        let failed = try workspace.runSpotlite(["search", "--json", "--", word], timeout: 120)
        if failed.termination.succeeded || failed.termination.exitStatus == 1 {
            problems.append("a search with \(server.hostAndPort) down did not fail (\(failed.termination))")
        } else if failed.stderr.split(separator: "\n").count != 1
                    || !failed.stderr.hasPrefix("spotlite: shard \(server.hostAndPort) is unavailable") {
            problems.append("a search with \(server.hostAndPort) down did not fail in one line naming it: \(failed.stderr.prefix(400))")
        } else {
            errorLinesChecked += 1
        }
        let partial = try workspace.runSpotlite(["search", "--json", "--allow-partial", "--", word], timeout: 120)
        // Exit status 1 is an answer with no hits (like grep), here with the partial-results warning on stderr.
        let answered = partial.termination.exitStatus == 0 || partial.termination.exitStatus == 1
        if !answered || partial.jsonObject?["partial"] as? Bool != true
            || partial.jsonObject?["unavailable_shards"] as? [String] != [server.hostAndPort] {
            problems.append("a search allowing partial results with \(server.hostAndPort) down: \(partial.termination), \(partial.stdout.prefix(200)) \(partial.stderr.prefix(300))")
        }
        let status = try workspace.runSpotlite(["index", "status", "--json"], timeout: 120)
        let shards = status.jsonObject?["shards"] as? [[String: Any]] ?? []
        let down = shards.filter { $0["available"] as? Bool == false }.compactMap { $0["name"] as? String }
        if status.termination.exitStatus != 4 || shards.count != Self.shards || down != [server.hostAndPort]
            || !status.stderr.hasPrefix("spotlite: shard \(server.hostAndPort) is unavailable") {
            problems.append("`index status` with \(server.hostAndPort) down: \(status.termination), shards \(shards.count), unavailable \(down), \(status.stderr.prefix(300))")
        } else {
            errorLinesChecked += 1
        }
        return problems
    }

    /// No position moved past what every shard committed: the indexer's position in the store is at most the
    /// smallest shard token, read from every shard (all reachable again).
    private func checkPositions() throws -> [String] {
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        let status = try IndexStatus(store: store, configuration: configuration)
        guard status.unavailableShards.isEmpty, status.shards.count == Self.shards else {
            return ["after the server restarted, `index status` still misses shards: \(status.unavailableShards)"]
        }
        let smallest = status.shards.map { $0.token?.rawValue ?? 0 }.min() ?? 0
        let position = status.checkpoints.first { $0.author == configuration.indexer.author }?.token.rawValue ?? 0
        var problems: [String] = []
        if position > smallest {
            problems.append("the indexer's position \(position) moved past what every shard committed (shard tokens \(status.shards.map { $0.token?.rawValue ?? 0 }))")
        }
        if let store = status.storeToken?.rawValue, let largest = status.shards.compactMap({ $0.token?.rawValue }).max(), largest > store {
            problems.append("a shard's token \(largest) is ahead of the store's \(store)")
        }
        return problems
    }

    /// Kills `spotlite index rebuild` over the shard servers at a seeded moment, searching all the while.
    private mutating func killRebuild(trial: Int) throws -> ([String], String) {
        var problems: [String] = []
        let caughtUp = try workspace.runSpotlite(["index", "update", "--json"])
        guard caughtUp.succeeded else { return (["the update before the rebuild failed: \(caughtUp.errorLine)"], "trial \(trial): rebuild") }
        let idsBefore = try storeKeys()
        if trialRandom.chance(0.5) { try mutate(trial: trial) }
        let idsAfter = try storeKeys()
        let fewest = min(idsBefore.count, idsAfter.count), most = idsBefore.union(idsAfter).count
        let fraction = trialRandom.unit() * 1.1
        let delay = fraction * rebuildSeconds + 0.002
        let description = "trial \(trial): kill index rebuild at \(Int(fraction * 100))% of its usual run, searching meanwhile"
        let searcher = try IndexSearcher(configuration: configuration)
        let child = try workspace.startSpotlite(["index", "rebuild", "--json"])
        let started = ContinuousClock.now
        var search = 0
        repeat {
            problems += searchDuringRebuild(searcher, number: search, fewest: fewest, most: most)
            search += 1
        } while (ContinuousClock.now - started).seconds < delay && child.poll() == nil && problems.isEmpty
        if child.poll() == nil {
            child.kill(SIGKILL)
            let ended = child.wait()
            if ended.signal == SIGKILL { killedMidRun[.indexerKilledDuringRebuild, default: 0] += 1 } else { finishedFirst[.indexerKilledDuringRebuild, default: 0] += 1 }
        } else {
            finishedFirst[.indexerKilledDuringRebuild, default: 0] += 1
            if let ended = child.termination {
                if !ended.succeeded { problems.append("the rebuild failed before the kill (\(ended)): \(child.stderr.prefix(300))") }
                rebuildSeconds = max(0.05, ended.seconds)
            }
        }
        workspace.discardOutput(of: child)
        // Killed or not, searches still answer.
        problems += searchDuringRebuild(searcher, number: search, fewest: fewest, most: most)
        return (problems, description)
    }

    private mutating func searchDuringRebuild(_ searcher: IndexSearcher, number: Int, fewest: Int, most: Int) -> [String] {
        searchesDuringRebuilds += 1
        let word = RecordGenerator.words[(number * 7 + 3) % RecordGenerator.words.count]
        do {
            let results = try searcher.search(SearchRequest(word, limit: 10, correctsSpelling: false))
            if results.isPartial { return ["search \(number) during the rebuild was partial: \(results.unavailableShards)"] }
            let count = try searcher.documentCount()
            if !(fewest...most).contains(count) {
                return ["search \(number) during the rebuild saw \(count) documents, not between \(fewest) and \(most) (every document once, old or new)"]
            }
            return []
        } catch {
            return ["search \(number) during the rebuild failed: \(error)"]
        }
    }

    private func storeKeys() throws -> Set<String> {
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        return Set(try store.read { db in try String.fetchAll(db, sql: "SELECT id FROM Item") })
    }

    // MARK: - Recovery

    /// The next run after the kill (an update, or a rebuild after some killed rebuilds) completes, the invariant holds
    /// and every query answers as the local index of the same store.
    private mutating func recover(rebuildAfterwards: Bool) throws -> [String] {
        var problems: [String] = []
        let run = try workspace.runSpotlite(["index", rebuildAfterwards ? "rebuild" : "update", "--json"], timeout: 600)
        guard run.succeeded, let summary = run.jsonObject else {
            return ["the \(rebuildAfterwards ? "rebuild" : "update") after the kill failed (\(run.termination)): \(run.errorLine)"]
        }
        recoverySeconds.append(run.termination.seconds)
        if !rebuildAfterwards, summary["rebuilt"] as? Bool == true {
            problems.append("the update after the kill had to rebuild: \(summary["reason"] as? String ?? "no reason given")")
        }
        let outcome = try InvariantChecker(configuration: configuration).check()
        checkedRows += outcome.rows
        problems += outcome.problems
        problems += try compareWithReference()
        return problems
    }

    /// Brings the local reference index up to date and compares seeded queries: same totals, same hits, same weights.
    private mutating func compareWithReference() throws -> [String] {
        let update = try workspace.runSpotlite(["index", "update", "--json"], configuration: referencePath)
        guard update.succeeded else { return ["the local reference index could not be updated: \(update.errorLine)"] }
        let remote = try IndexSearcher(configuration: configuration)
        let local = try IndexSearcher(configuration: referenceConfiguration)
        var problems: [String] = []
        let (remoteCount, localCount) = (try remote.documentCount(), try local.documentCount())
        if remoteCount != localCount {
            problems.append("the shards hold \(remoteCount) documents, the local index \(localCount)")
        }
        var words = RecordGenerator.words
        words.shuffle(using: &trialRandom)
        for number in 0..<settings.queries {
            let query = number % 3 == 0 ? words[number % words.count] + " " + words[(number + 1) % words.count] : words[number % words.count]
            let filters = number % 4 == 1 ? [SearchFilter(field: "tag", value: RecordGenerator.tags[number % RecordGenerator.tags.count])] : []
            let request = SearchRequest(query, filters: filters, limit: 10_000, correctsSpelling: false)
            let expected = try local.search(request), got = try remote.search(request)
            comparedQueries += 1
            if got.total != expected.total || got.hits.count != expected.hits.count {
                problems.append("\"\(query)\": \(got.total) hits over the shards, \(expected.total) in the local index")
                continue
            }
            let weights = Dictionary(expected.hits.map { ("\($0.entity)/\($0.key)", $0.score) }, uniquingKeysWith: { $1 })
            for hit in got.hits {
                guard let weight = weights["\(hit.entity)/\(hit.key)"] else {
                    problems.append("\"\(query)\": \(hit.key) is a hit over the shards only")
                    break
                }
                if abs(weight - hit.score) > 1e-9 * max(1, abs(weight)) {
                    problems.append("\"\(query)\": \(hit.key) weighs \(hit.score) over the shards, \(weight) in the local index")
                    break
                }
            }
        }
        return problems
    }
}

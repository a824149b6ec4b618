import Foundation
import GRDB
import SpotliteEmbeddings
import SpotliteStore
import SpotliteTooling

/// Kills the embedding consumer (a child `embedder` process) with SIGKILL at random moments of incremental rounds
/// and of rebuilds beside the live vectors; after each kill the vector file must be intact and behind or at the
/// store, and after the next complete run the vectors must equal the store: one vector per note with text, each
/// the model's vector of the note's current text, the cursor at the store's token, and the store position saved.
struct EmbeddingCrashSuite {
    struct Settings {
        var notes: Int
        var trials: Int
        var changesPerTrial: Int

        static func forMode(long: Bool) -> Settings {
            long ? Settings(notes: 400, trials: 40, changesPerTrial: 60) : Settings(notes: 80, trials: 6, changesPerTrial: 20)
        }
    }

    let workspace: Workspace
    let report: SuiteReport
    let settings: Settings
    let model: String
    private var random: SeededGenerator
    private var nextID = 1
    private var vectorsByText: [String: [Float]] = [:]
    private let encoder: SentenceEncoder
    private let store: SpotliteStore

    private var storePath: String { workspace.path("embed/store.sqlite") }
    private var vectorsPath: String { workspace.path("embed/vectors") }

    private static let words = ["bread", "flour", "oven", "engine", "brake", "river", "mountain", "violin", "piano",
                                "tomato", "soup", "garden", "compiler", "kernel", "database", "index", "storm", "rain",
                                "sunny", "stadium", "football", "café", "naïve", "Ελληνικά", "東京", "—", "42%"]

    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64, model: String) throws {
        self.workspace = workspace
        self.report = report
        self.settings = settings
        self.model = model
        random = SeededGenerator(seed: seed)
        encoder = try SentenceEncoder(directory: URL(fileURLWithPath: model))
        try FileManager.default.createDirectory(atPath: workspace.path("embed"), withIntermediateDirectories: true)
        store = try SpotliteStore(path: workspace.path("embed/store.sqlite"), model: EmbeddedNotes.model)
    }

    private mutating func sentence() -> String {
        let count = Int.random(in: 0...12, using: &random)
        return (0..<count).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " ")
    }

    private mutating func writeChanges(_ count: Int) throws {
        var statements: [(String, StatementArguments)] = []
        for _ in 0..<count {
            let existing = nextID > 1 ? Int.random(in: 1..<nextID, using: &random) : 1
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                statements.append(("INSERT INTO Note (id, title, body) VALUES (?, ?, ?)", [nextID, sentence(), sentence()]))
                nextID += 1
            case 4..<8:
                statements.append(("UPDATE Note SET body = ? WHERE id = ?", [sentence(), existing]))
            case 8:
                statements.append(("UPDATE Note SET title = '', body = '  ' WHERE id = ?", [existing]))
            default:
                statements.append(("DELETE FROM Note WHERE id = ?", [existing]))
            }
        }
        // Several transactions, so that a kill can land between their batches.
        for chunk in stride(from: 0, to: statements.count, by: 5) {
            try store.write(author: "suite") { db in
                for (sql, arguments) in statements[chunk..<min(chunk + 5, statements.count)] {
                    try db.execute(sql: sql, arguments: arguments)
                }
            }
        }
    }

    private func startEmbedder(resynchronize: Bool) throws -> ChildProcess {
        let output = workspace.outputPaths("embedder")
        var arguments = ["embedder", "--store", storePath, "--vectors", vectorsPath, "--model", model, "--batch-size", "4"]
        if resynchronize { arguments.append("--resynchronize") }
        return try ChildProcess(executable: Binaries.reliability, arguments: arguments, directory: workspace.root,
                                stdoutPath: output.stdout, stderrPath: output.stderr)
    }

    /// Problems with the vectors right after a kill: the file must open, pass SQLite's integrity check, and stand
    /// at or behind the store.
    private func checkAfterKill() -> [String] {
        do {
            let state = try VectorIndex(path: vectorsPath).state()
            let token = try store.currentToken()
            var problems: [String] = []
            if let cursorToken = state.cursor?.token, let token, cursorToken > token {
                problems.append("the vectors' cursor \(cursorToken) is past the store's token \(token)")
            }
            let integrity = try DatabaseQueue(path: vectorsPath + "/vectors.sqlite").read { db in
                try String.fetchOne(db, sql: "PRAGMA integrity_check")
            }
            if integrity != "ok" { problems.append("integrity_check: \(integrity ?? "nothing")") }
            return problems
        } catch {
            return ["the vectors cannot be read after the kill: \(error)"]
        }
    }

    /// Problems with the vectors after a complete run: they must equal the store.
    private mutating func checkEqualsStore() -> [String] {
        do {
            let token = try store.currentToken()
            let notes = try store.read { db in
                try Row.fetchAll(db, sql: "SELECT id, title, body FROM Note").map { row -> (Int64, String) in
                    (row[0], [row[1] as String?, row[2] as String?].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n"))
                }
            }.filter { $0.1.contains { !$0.isWhitespace } && encoder.tokens(of: $0.1).ids.count > 2 }
            let vectors = try VectorIndex(path: vectorsPath)
            let state = try vectors.state()
            var problems: [String] = []
            if state.cursor?.token != token {
                problems.append("the vectors' cursor is \(state.cursor.map { "\($0)" } ?? "none"), the store's token \(token.map { "\($0)" } ?? "none")")
            }
            if state.vectors != notes.count { problems.append("\(state.vectors) vectors for \(notes.count) notes with text") }
            if try store.position(of: EmbeddingIndexer.defaultName)?.token != token {
                problems.append("the store position of \(EmbeddingIndexer.defaultName) is not the store's token")
            }
            for (id, text) in notes {
                guard let vector = try vectors.vector(for: RecordID(entity: "Note", key: id.databaseValue)) else {
                    problems.append("note \(id) has no vector")
                    continue
                }
                if vectorsByText[text] == nil { vectorsByText[text] = try encoder.vector(for: text) }
                let expected = vectorsByText[text]!
                let difference = zip(vector, expected).map { abs($0 - $1) }.max() ?? 1
                if vector.count != expected.count || difference > 1e-4 {
                    problems.append("note \(id)'s vector is not its text's (differs by \(difference))")
                }
            }
            return problems
        } catch {
            return ["checking the vectors failed: \(error)"]
        }
    }

    mutating func run() throws {
        try writeChanges(settings.notes)
        let clock = ContinuousClock()
        let started = clock.now
        let first = workspace.finish(try startEmbedder(resynchronize: false))
        let usual = (clock.now - started)
        report.expect(first.termination.succeeded, "the first embedding run", otherwise: first.errorLine)
        report.record("the first run's vectors equal the store", problems: checkEqualsStore())
        var killedMidRun = 0
        for trial in 1...settings.trials {
            try writeChanges(settings.changesPerTrial)
            let resynchronize = trial % 3 == 0
            let fraction = Double.random(in: 0.05...1.1, using: &random)
            let delay = usual * fraction
            report.log("trial \(trial): kill \(resynchronize ? "a rebuild" : "an update") at \(Int(fraction * 100))% of its usual run")
            let child = try startEmbedder(resynchronize: resynchronize)
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            if child.poll() == nil { killedMidRun += 1 }
            child.kill(SIGKILL)
            _ = workspace.finish(child)
            report.record("trial \(trial): the vectors are intact after the kill", problems: checkAfterKill())
            let completion = workspace.finish(try startEmbedder(resynchronize: false))
            report.expect(completion.termination.succeeded, "trial \(trial): the next run completes", otherwise: completion.errorLine)
            report.record("trial \(trial): the vectors equal the store", problems: checkEqualsStore())
        }
        report.figure("trials", settings.trials)
        report.figure("killed mid-run", killedMidRun)
        report.figure("notes", nextID - 1)
    }
}

import Foundation
import SpotliteTestSupport
import SpotliteTooling
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `spotlite-bench` on a tiny synthetic corpus, so the suite keeps working; no timing is asserted,
/// only that every figure is measured, reported in the table and in the JSON, and that bad input fails clearly.
@Suite("Benchmark smoke run", .blockingWork)
struct BenchmarkSmokeTests {
    @Test("a tiny run measures every figure and writes table and JSON")
    func tinyRunReportsEveryFigure() throws {
        let directory = try BenchScratchDirectory()
        let corpus = try BenchTinyCorpus.write(records: 150, to: directory.path("tiny.jsonl"))
        let json = directory.path("report.json")
        let result = try BenchExecutable.run([
            "--corpus", corpus, "--config", BenchExecutable.configurationPath, "--json-output", json,
            "--work-directory", directory.path("work"), "--runs", "1", "--slow-runs", "1", "--queries", "20",
            "--known-items", "12", "--freshness-writes", "6", "--freshness-interval-ms", "5", "--serve-probes", "4",
            "--single-row-transactions", "10", "--batch-rows", "40", "--scale", "--scale-records", "400",
            "--large-transaction-rows", "300",
        ])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        for figure in ["1 capture", "2 rebuild", "3 incremental", "4 freshness", "5 query", "6 size", "7 memory",
                       "7 scale", "8 relevance", "3 large update", "3 large transaction", "11 cli", "12 serve"] {
            #expect(result.standardOutput.contains("| \(figure)"), "the table lacks figure \(figure)")
        }
        #expect(result.standardOutput.contains("150 records"))

        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let capture = try #require(report["capture"] as? [String: Any])
        #expect(capture["records"] as? Int == 150)
        #expect((capture["ratio"] as? Double ?? 0) > 0)

        let rebuild = try #require(report["rebuild"] as? [String: Any])
        #expect(rebuild["documents"] as? Int == 150)
        #expect(rebuild["termGenerationMatches"] as? Bool == true, "the raw loop must build Spotlite's very index")
        #expect((rebuild["termsCompared"] as? Int ?? 0) > 50)
        #expect((rebuild["levers"] as? [Any])?.count == 7)
        #expect((rebuild["spotliteSeconds"] as? Double ?? 0) > 0)

        let cli = try #require(report["cli"] as? [String: Any], "the command line's batch queries are measured")
        #expect(cli["queries"] as? Int == 20)
        #expect((cli["jsonMeanPerQuery"] as? Double ?? 0) > 0)
        #expect((cli["jsonToHuman"] as? Double ?? 0) > 0)

        let serve = try #require(report["serve"] as? [String: Any], "the server's overhead and freshness are measured")
        #expect(serve["queries"] as? Int == 20)
        for side in ["library", "server", "serverSearch"] {
            #expect((serve[side] as? [String: Any])?["count"] as? Int == 20, "no \(side) latency for every query")
        }
        #expect((serve["ratioP50"] as? Double ?? 0) > 0)
        // Processor time per query on each side: this thread's, exact; the server's from /proc, in clock ticks, so
        // 20 requests may round to none.
        #expect((serve["libraryCPU"] as? Double ?? 0) > 0)
        #expect((serve["clientCPU"] as? Double ?? 0) > 0)
        #expect((serve["serverCPU"] as? Double ?? -1) >= 0)
        #expect((serve["serverSleeps"] as? Double ?? -1) >= 0, "the server's sleeps per request are counted")
        let served = try #require(serve["freshness"] as? [String: Any])
        #expect(served["found"] as? Int == 4, "every probe committed while serving must be found through GET /search")

        let incremental = try #require(report["incremental"] as? [String: Any])
        #expect((incremental["singleRows"] as? [String: Any])?["changes"] as? Int == 10)
        #expect((incremental["batch"] as? [String: Any])?["changes"] as? Int == 40)

        let freshness = try #require(report["freshness"] as? [String: Any])
        #expect(freshness["found"] as? Int == 6, "every probe written by the child must become searchable")
        let latency = try #require(freshness["latency"] as? [String: Any])
        #expect(latency["count"] as? Int == 6)

        let query = try #require(report["query"] as? [String: Any])
        #expect(query["queries"] as? Int == 20)
        #expect(query["emptyAndResults"] as? Int == 0, "every AND-query has the record its words came from")
        for engine in ["spotliteOr", "spotliteAnd", "fts5Or", "fts5And"] {
            let summary = try #require(query[engine] as? [String: Any], "no \(engine) latency")
            #expect(summary["count"] as? Int == 20)
            #expect((summary["mean"] as? Double ?? 0) > 0)
        }

        let size = try #require(report["size"] as? [String: Any])
        for key in ["spotliteBytes", "spotliteCompactedBytes", "rawBytes", "fts5Bytes", "fts5CompactedBytes"] {
            #expect((size[key] as? Int ?? 0) > 0, "\(key) must be measured")
        }

        let memory = try #require(report["memory"] as? [String: Any])
        #expect((memory["peakResidentBytes"] as? Int ?? 0) > 1 << 20)
        #expect(memory["documents"] as? Int == 150)

        let scale = try #require(report["scale"] as? [String: Any])
        #expect(scale["records"] as? Int == 400)
        #expect((scale["peakResidentBytes"] as? Int ?? 0) > 1 << 20)

        let largeUpdate = try #require(report["largeUpdate"] as? [String: Any])
        let largeRecords = try #require(largeUpdate["records"] as? Int)
        #expect(largeRecords >= 150, "the corpus and the probes the freshness figure wrote")
        #expect((largeUpdate["update"] as? [String: Any])?["rebuilt"] as? Bool == false,
                "150 documents: under the size where a large backlog is rebuilt")
        let incrementalRun = try #require(largeUpdate["incremental"] as? [String: Any])
        #expect(incrementalRun["changes"] as? Int == largeRecords && incrementalRun["rebuilt"] as? Bool == false)
        #expect((largeUpdate["rebuilds"] as? [Any])?.count == 2)

        let largeTransaction = try #require(report["largeTransaction"] as? [String: Any])
        #expect(largeTransaction["changes"] as? Int == 300)
        #expect((largeTransaction["peakResidentBytes"] as? Int ?? 0) > 1 << 20)

        let relevance = try #require(report["relevance"] as? [String: Any])
        #expect(relevance["queries"] as? Int == 12)
        let spotlite = try #require(relevance["spotlite"] as? [String: Any])
        let success = try #require(spotlite["successAt10"] as? Double)
        #expect(success > 0 && success <= 1)

        let machine = try #require(report["machine"] as? [String: Any])
        #expect((machine["cores"] as? Int ?? 0) >= 1)
        #expect(FileManager.default.fileExists(atPath: directory.path("work/corpus.jsonl")),
                "a given work directory is kept")
    }

    @Test("a missing corpus is refused with the way out")
    func missingCorpus() throws {
        let directory = try BenchScratchDirectory()
        let result = try BenchExecutable.run([
            "--corpus", directory.path("absent.jsonl"), "--config", BenchExecutable.configurationPath,
        ])
        #expect(result.status == 1)
        let lastLine = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine.hasPrefix("spotlite-bench: cannot read the corpus"))
        #expect(result.standardError.contains("--corpus PATH"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a malformed corpus line is named")
    func malformedLine() throws {
        let directory = try BenchScratchDirectory()
        let path = directory.path("bad.jsonl")
        try Data("{\"name\": \"a\", \"summary\": \"fine\"}\n[1, 2]\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = try BenchExecutable.run(["--corpus", path, "--config", BenchExecutable.configurationPath])
        #expect(result.status == 1)
        #expect(result.standardError.contains("line 2 of \(path) is not a JSON object"))
    }

    @Test("a record without the entity's key is named")
    func recordWithoutKey() throws {
        let directory = try BenchScratchDirectory()
        let path = directory.path("keyless.jsonl")
        try Data("{\"summary\": \"no name here\"}\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = try BenchExecutable.run(["--corpus", path, "--config", BenchExecutable.configurationPath])
        #expect(result.status == 1)
        #expect(result.standardError.contains("line 1 of \(path) has no \"name\""))
    }

    @Test("impossible settings are refused before any work", arguments: [
        (["--runs", "0"], "--runs must be at least 1"),
        (["--freshness-writes", "0"], "--freshness-writes must be at least 1"),
        (["--freshness-interval-ms=-5"], "--freshness-interval-ms must be at least 0"),
        (["--limit", "0"], "--limit must be at least 1"),
        (["--figures", "capture,speed"], "unknown figure \"speed\""),
    ])
    func impossibleSettings(arguments: [String], message: String) throws {
        let result = try BenchExecutable.run(arguments + ["--config", BenchExecutable.configurationPath])
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "stderr: \(result.standardError)")
    }

    @Test("help names the suite and its options")
    func help() throws {
        let root = try BenchExecutable.run(["--help"])
        #expect(root.status == 0)
        #expect(root.standardOutput.contains("run --help"))
        let suite = try BenchExecutable.run(["run", "--help"])
        #expect(suite.status == 0)
        for option in ["--corpus", "--json-output", "--scale", "--figures"] {
            #expect(suite.standardOutput.contains(option), "the help lacks \(option)")
        }
    }

    @Test("an unknown entity lists the configured ones")
    func unknownEntity() throws {
        let directory = try BenchScratchDirectory()
        let corpus = try BenchTinyCorpus.write(records: 5, to: directory.path("tiny.jsonl"))
        let result = try BenchExecutable.run([
            "--corpus", corpus, "--config", BenchExecutable.configurationPath, "--entity", "Invoice",
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("has no entity Invoice; entities: Package"))
    }

    @Test("an unwritable JSON path fails the run with its name")
    func unwritableJSONOutput() throws {
        let directory = try BenchScratchDirectory()
        let corpus = try BenchTinyCorpus.write(records: 20, to: directory.path("tiny.jsonl"))
        let target = directory.path("missing-folder/report.json")
        let result = try BenchExecutable.run([
            "--corpus", corpus, "--config", BenchExecutable.configurationPath, "--figures", "capture", "--runs", "1",
            "--json-output", target,
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("cannot write the JSON report to \(target)"))
        #expect(result.standardOutput.contains("| 1 capture"), "the table is printed before the JSON is written")
    }
}

/// The built benchmark executable, next to the test bundle in the build directory.
private enum BenchExecutable {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let configurationPath = packageRoot.appendingPathComponent("config/spotlite.toml").path

    static func location() throws -> URL {
        var candidates: [URL] = []
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("spotlite-bench"))
            directory = directory.deletingLastPathComponent()
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/spotlite-bench"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "spotlite-bench is not built; run `swift build --build-tests` first (looked in \(candidates.map(\.path)))")
    }

    static func run(_ arguments: [String]) throws -> Result {
        let directory = try BenchScratchDirectory()
        let process = Process()
        process.executableURL = try location()
        process.arguments = arguments
        let outputPath = directory.path("stdout")
        let errorPath = directory.path("stderr")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        try output.close()
        try error.close()
        return Result(status: process.terminationStatus,
                      standardOutput: try String(contentsOfFile: outputPath, encoding: .utf8),
                      standardError: try String(contentsOfFile: errorPath, encoding: .utf8))
    }
}

/// Package-like records made of a small vocabulary, so that queries have several answers to rank.
private enum BenchTinyCorpus {
    static let words = ["search", "engine", "library", "python", "bindings", "terminal", "editor", "network", "audio",
                        "player", "compiler", "database", "server", "client", "image", "viewer", "font", "kernel",
                        "module", "graphics", "documentation", "utility", "shell", "parser"]
    static let sections = ["utils", "devel", "net", "sound", "graphics", "doc"]

    static func write(records: Int, to path: String) throws -> String {
        var lines: [String] = []
        for index in 0..<records {
            func word(_ offset: Int) -> String { words[(index * 7 + offset * 5) % words.count] }
            let record: [String: String] = [
                "name": "pkg\(index)-\(word(0))",
                "summary": "\(word(1)) \(word(2)) for the \(word(3)) \(word(4))",
                "description": "A \(word(5)) \(word(6)) with \(word(7)) support.\nIt also provides \(word(8)) and \(word(9)) tools.",
                "maintainer": "Team \(word(10)) <team\(index % 9)@example.org>",
                "section": sections[index % sections.count],
                "tags": "role::program use::\(word(11))",
                "version": "1.\(index)",
                "homepage": "https://example.org/\(index)",
            ]
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            lines.append(String(decoding: data, as: UTF8.self))
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// A fresh folder under the system's temporary directory, removed when the value goes away.
private final class BenchScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-bench-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// `spotlite-bench` interrupted while the remote figure's shard servers run: it stops them (and anything else it
/// started), exits with 128 + the signal, and removes its temporary work directory or names a given one as kept.
/// Checked on the real processes, by their sessions and process group.
@Suite("Benchmark: an interrupted run stops its servers", .blockingWork, .serialized)
struct BenchmarkInterruptTests {
    @Test("SIGTERM during the remote figure: no server session survives, exit 143, work directory removed")
    func terminated() throws {
        try interrupt(with: SIGTERM, givenWorkDirectory: false)
    }

    @Test("SIGINT during the remote figure with --work-directory: no server session survives, exit 130, directory kept and named")
    func interruptedKeepingTheWorkDirectory() throws {
        try interrupt(with: SIGINT, givenWorkDirectory: true)
    }

    @Test("SIGTERM during replica-freshness: its replication server's session does not survive, exit 143, scratch removed")
    func replicaFreshnessTerminated() throws {
        try interruptReplicaFreshness(with: SIGTERM, keep: false)
    }

    @Test("SIGINT during replica-freshness with --keep: its replication server's session does not survive, exit 130, scratch kept and named")
    func replicaFreshnessInterruptedKeepingTheScratchDirectory() throws {
        try interruptReplicaFreshness(with: SIGINT, keep: true)
    }

    /// Whatever a test's outcome, nothing of it outlives it: the run's process group, and the server sessions it named.
    private static func stopEverything(of bench: ChildProcess, sessions: Set<pid_t>) {
        bench.killGroup(SIGKILL)
        bench.waitForExit()
        for survivor in ReliabilityTests.InterruptTests.survivors(sessions: sessions, group: bench.pid) {
            kill(survivor.pid, SIGKILL)
        }
    }

    /// The one server session named ("(session N") on the line of the run's stderr containing `marker`, waited for
    /// (bounded: a debug build on a loaded machine is slow).
    private static func announcedSession(of bench: ChildProcess, marker: String) throws -> Set<pid_t> {
        let deadline = ContinuousClock.now + .seconds(180)
        while true {
            if let line = bench.standardErrorText.split(separator: "\n").first(where: { $0.contains(marker) }) {
                let sessions = Set(line.components(separatedBy: "(session ").dropFirst().compactMap { pid_t($0.prefix { $0.isNumber }) })
                try #require(sessions.count == 1, "one server session in: \(line)")
                return sessions
            }
            try #require(bench.poll() == nil, "the run ended before its server started: \(bench.standardErrorText)")
            try #require(ContinuousClock.now < deadline, "no server announcement within 180 s: \(bench.standardErrorText)")
            usleep(20_000)
        }
    }

    private func interruptReplicaFreshness(with signal: Int32, keep: Bool) throws {
        let directory = try BenchScratchDirectory()
        let temporary = directory.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        // Far more commits than the test waits for: the signal always arrives while the server serves.
        let bench = try ChildProcess(
            executable: try BenchExecutable.location().path,
            arguments: ["replica-freshness", "--records", "50", "--commits", "100000", "--intervals", "0.1"] + (keep ? ["--keep"] : []),
            environment: ["TMPDIR": temporary], output: .file(directory.path("out")), error: .file(directory.path("err")),
            newProcessGroup: true)
        var sessions: Set<pid_t> = []
        defer { Self.stopEverything(of: bench, sessions: sessions) }
        sessions = try Self.announcedSession(of: bench, marker: "replication server started: ")
        #expect(!ReliabilityTests.InterruptTests.survivors(sessions: sessions, group: -1).isEmpty, "the server runs before the signal")
        let made = try FileManager.default.contentsOfDirectory(atPath: temporary).first { $0.hasPrefix("spotlite-replica-bench-") }
        let scratch = temporary + "/" + (try #require(made, "no scratch directory under \(temporary)"))

        let stderr = ReliabilityTests.InterruptTests.interrupt(bench, named: "spotlite-bench", with: signal, sessions: sessions)
        if keep {
            #expect(stderr.contains("its scratch directory is kept at \(scratch)"), "\(stderr)")
            #expect(FileManager.default.fileExists(atPath: scratch + "/spotlite.toml"))
        } else {
            #expect(stderr.contains("removed its scratch directory \(scratch)"), "\(stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch))
        }
    }

    private func interrupt(with signal: Int32, givenWorkDirectory: Bool) throws {
        let directory = try BenchScratchDirectory()
        let corpus = try BenchTinyCorpus.write(records: 300, to: directory.path("tiny.jsonl"))
        let temporary = directory.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let given = directory.path("work")
        // The temporary work directory is made under TMPDIR: here, where the test can find it.
        let bench = try ChildProcess(
            executable: try BenchExecutable.location().path,
            arguments: ["run", "--corpus", corpus, "--config", BenchExecutable.configurationPath, "--figures", "remote",
                        "--queries", "5"] + (givenWorkDirectory ? ["--work-directory", given] : []),
            environment: ["TMPDIR": temporary], output: .file(directory.path("out")), error: .file(directory.path("err")),
            newProcessGroup: true)
        var sessions: Set<pid_t> = []
        defer { Self.stopEverything(of: bench, sessions: sessions) }
        // Until the figure says its first server runs.
        sessions = try Self.announcedSession(of: bench, marker: "shard server started: ")
        #expect(!ReliabilityTests.InterruptTests.survivors(sessions: sessions, group: -1).isEmpty, "the server runs before the signal")
        var work = given
        if !givenWorkDirectory {
            let made = try FileManager.default.contentsOfDirectory(atPath: temporary).first { $0.hasPrefix("spotlite-bench-") }
            work = temporary + "/" + (try #require(made, "no work directory under \(temporary)"))
        }

        let stderr = ReliabilityTests.InterruptTests.interrupt(bench, named: "spotlite-bench", with: signal, sessions: sessions)
        if givenWorkDirectory {
            #expect(stderr.contains("its work directory is kept at \(work)"), "\(stderr)")
            #expect(FileManager.default.fileExists(atPath: work + "/corpus.jsonl"))
        } else {
            #expect(stderr.contains("removed its work directory \(work)"), "\(stderr)")
            #expect(!FileManager.default.fileExists(atPath: work))
        }
    }
}

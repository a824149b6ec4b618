import Foundation
import Testing

/// Runs the built `spotlite` binary in a scratch directory, as a user would.
struct CommandLineTool {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The stdout parsed as one JSON document.
        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
        }

        /// Each stdout line parsed as JSON.
        func jsonLines() throws -> [Any] {
            try stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
        }
    }

    /// The `spotlite` executable beside the test bundle (`swift build --build-tests` builds both), or
    /// `SPOTLITE_BINARY` when set.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["SPOTLITE_BINARY"] { return path }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("spotlite").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = FileManager.default.currentDirectoryPath + "/.build/debug/spotlite"
        return fallback
    }()

    let directory: URL

    /// A fresh scratch directory with the test configuration at `config/spotlite.toml`.
    init(configuration: String = CommandLineTool.packageConfiguration) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("config"), withIntermediateDirectories: true)
        try write(configuration, to: "config/spotlite.toml")
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    func write(_ text: String, to relative: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(relative))
    }

    func write(_ data: Data, to relative: String) throws {
        try data.write(to: directory.appendingPathComponent(relative))
    }

    /// Runs `spotlite arguments…` to completion.
    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil) throws -> Output {
        let process = try start(arguments, stdin: stdin)
        return process.finish()
    }

    /// Starts `spotlite arguments…` without waiting.
    func start(_ arguments: [String], stdin: Data? = nil) throws -> RunningTool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "dumb"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        return RunningTool(process: process, stdout: out, stderr: err)
    }

    /// Runs a SQL script with the real sqlite3 shell against the store.
    @discardableResult
    func sqlite(_ sql: String, database: String = "Index/store.sqlite") throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path(database), sql]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Written to config/spotlite.toml: its paths are relative to config/, so the store is ./Index/store.sqlite.
    static let packageConfiguration = """
        store = "../Index/store.sqlite"
        index = "../Index/search"

        [history]
        authors = ["app", "importer"]
        batch_authors = ["importer"]
        maximum_duration = "7d"

        [indexer]
        batch_size = 100

        [entities.Package]
        key = "name"
        preserve_on_delete = ["name", "summary"]

        [entities.Package.fields]
        name        = { type = "text", weight = 4, prefix = "name", store = true }
        summary     = { type = "text", weight = 2, store = true }
        description = { type = "text" }
        section     = { type = "keyword", facet = true, store = true }
        tags        = { type = "keyword", separator = " " }
        version     = { type = "stored" }
        size        = { type = "number", sortable = true }

        """

    /// A few packages as JSON Lines.
    static let packages: String = [
        #"{"name": "xapian-tools", "version": "1.4.22-1", "section": "utils", "summary": "Basic tools for Xapian search engine library", "description": "Tools to inspect and query Xapian databases: delve and quest.", "tags": "use::searching interface::commandline", "size": 120}"#,
        #"{"name": "sqlite3", "version": "3.40.1-2", "section": "database", "summary": "Command line interface for SQLite 3", "description": "A shell for SQLite databases: run statements, import CSV, inspect schemas.", "tags": "works-with::db interface::commandline", "size": 80}"#,
        #"{"name": "ripgrep", "version": "13.0.0-4", "section": "utils", "summary": "Recursively search the current directory", "description": "A line-oriented search tool that respects ignore files.", "tags": "use::searching", "size": 300}"#,
        #"{"name": "postgresql", "version": "15+248", "section": "database", "summary": "Object-relational SQL database server", "description": "A relational database with replication and full text search.", "tags": "works-with::db", "size": 40}"#,
        #"{"name": "gimp", "version": "2.10.34-1", "section": "graphics", "summary": "GNU Image Manipulation Program", "description": "A raster graphics editor for photo retouching.", "tags": "works-with::image", "size": 900}"#,
    ].joined(separator: "\n") + "\n"
}

/// A `spotlite` process started by a test.
struct RunningTool {
    let process: Process
    let stdout: Pipe
    let stderr: Pipe

    func finish() -> CommandLineTool.Output {
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandLineTool.Output(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                                      stderr: String(decoding: err, as: UTF8.self))
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }
}

/// Waits until `condition` holds, up to `timeout` seconds (a bound on liveness, not on speed), checking every 50 ms.
/// Only for another process's state that tells this one nothing when it changes: files it writes (an index, a
/// replica's generations), what `spotlite index status` or a search answers while a watcher or follower runs.
func eventually(timeout: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
}

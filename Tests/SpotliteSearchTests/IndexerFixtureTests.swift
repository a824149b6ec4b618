import Foundation
import GRDB
import Testing
@testable import SpotliteSearch
import Spotlite
import SpotliteTestSupport
import SpotliteTooling

/// The indexer's configuration, not GRDB's (both modules are imported by these tests).

/// A store, an index and their configuration in a fresh temporary directory, removed when released.
///
/// The configuration is the product's own format (TOML), so tests go through the same loading and validation as
/// the command line.
final class IndexerSandbox: Sendable {
    let directory: String
    let configuration: SpotliteConfiguration
    let store: SpotliteStore

    var storePath: String { configuration.storePath }
    var indexPath: String { configuration.indexPath }
    var configurationPath: String { directory + "/spotlite.toml" }

    /// - Parameters:
    ///   - top: top-level lines (e.g. `shards = 3`).
    ///   - entities: the `[entities.*]` tables (TOML).
    ///   - indexer: extra lines of the `[indexer]` table.
    ///   - history: extra lines of the `[history]` table.
    ///   - prepareSQL: SQL run on the empty store file before the store opens it (e.g. a table with extra columns).
    init(top: String = "", entities: String = IndexerSandbox.packageEntity, indexer: String = "batch_size = 100",
         history: String = "", prepareSQL: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-indexer-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let toml = Self.toml(directory: directory, top: top, entities: entities, indexer: indexer, history: history)
        try toml.write(toFile: directory + "/spotlite.toml", atomically: true, encoding: .utf8)
        configuration = try SpotliteConfiguration(tomlString: toml, source: "test configuration")
        if let prepareSQL {
            let queue = try DatabaseQueue(path: configuration.storePath)
            try queue.write { db in try db.execute(sql: prepareSQL) }
            try queue.close()
        }
        store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
    }

    /// A sandbox for `base` (e.g. the shipped config/spotlite.toml) with its store and index moved into it.
    init(configuration base: SpotliteConfiguration) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-indexer-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = base
        configuration.storePath = directory + "/store.sqlite"
        configuration.indexPath = directory + "/search"
        self.configuration = configuration
        store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func toml(directory: String, top: String = "", entities: String, indexer: String, history: String) -> String {
        """
        store = "\(directory)/store.sqlite"
        index = "\(directory)/search"
        \(top)

        [history]
        authors = ["app", "importer"]
        batch_authors = ["importer"]
        \(history)

        [indexer]
        \(indexer)

        \(entities)
        """
    }

    static let packageEntity = """
        [entities.Package]
        key = "name"
        preserve_on_delete = ["name", "summary"]

        [entities.Package.fields]
        name        = { type = "text", weight = 4, prefix = "name", store = true }
        summary     = { type = "text", weight = 2, store = true }
        description = { type = "text" }
        maintainer  = { type = "text", prefix = "maintainer" }
        section     = { type = "keyword", facet = true, store = true }
        tags        = { type = "keyword", separator = " ", facet = true }
        version     = { type = "stored" }
        released    = { type = "date", sortable = true, store = true }
        size        = { type = "number", sortable = true, store = true }
        """

    /// A configuration for the same paths with other entities (e.g. a changed field), as a user would edit it.
    func editedConfiguration(entities: String, indexer: String = "batch_size = 100") throws -> SpotliteConfiguration {
        try SpotliteConfiguration(tomlString: Self.toml(directory: directory, entities: entities, indexer: indexer, history: ""),
                          source: "edited test configuration")
    }

    func makeIndexer(provider: (any IndexDocumentProvider)? = nil, configuration: SpotliteConfiguration? = nil,
                     store: SpotliteStore? = nil) throws -> SpotliteIndexer {
        try SpotliteIndexer(store: store ?? self.store, configuration: configuration ?? self.configuration,
                            documentProvider: provider)
    }

    func makeSearcher(withStore: Bool = false) throws -> IndexSearcher {
        try IndexSearcher(configuration: configuration, store: withStore ? store : nil)
    }

    /// Upserts `packages` in one history transaction by `author`.
    @discardableResult
    func write(_ packages: [SamplePackage], author: String? = "app") throws -> HistoryToken? {
        try store.write(author: author) { db in
            for package in packages { try package.upsert(in: db) }
        }
        return try store.currentToken()
    }

    /// Deletes the packages named `names` in one transaction.
    func delete(_ names: [String], author: String? = "app") throws {
        try store.write(author: author) { db in
            for name in names { try db.execute(sql: "DELETE FROM Package WHERE name = ?", arguments: [name]) }
        }
    }

    /// The token the live index's metadata holds (the index's truth), read without the indexer.
    func indexToken() throws -> HistoryToken? {
        let directory = IndexDirectory(path: indexPath)
        let generation = try #require(directory.liveGeneration, "there is no live generation")
        let path = directory.generationPath(generation)
        let layout = try #require(ShardLayout.read(generationPath: path), "the live generation lists no shards")
        return try layout.committedToken()
    }

    /// The checkpoint every shard of the live index has committed (the smallest), read without the indexer.
    func indexCheckpoint() throws -> IndexCheckpoint {
        let directory = IndexDirectory(path: indexPath)
        let generation = try #require(directory.liveGeneration, "there is no live generation")
        let layout = try #require(ShardLayout.read(generationPath: directory.generationPath(generation)))
        return try #require(try layout.metadata().map(\.checkpoint).min())
    }

    /// The keys of the hits of `query`, best first (without spelling correction, so that "nothing" means nothing).
    func keys(_ query: String, searcher: IndexSearcher? = nil, limit: Int = 50) throws -> [String] {
        let searcher = try searcher ?? makeSearcher()
        return try searcher.search(SearchRequest(query, limit: limit, correctsSpelling: false)).hits.map(\.key.description)
    }

    /// Runs the `sqlite3` shell on the store: a writer that knows nothing about Spotlite.
    func sqlite3(_ script: String) throws {
        let result = try ProgramRun.run("/usr/bin/sqlite3", ["-bail", storePath], input: ".timeout 30000\n" + script)
        try #require(result.status == 0, "sqlite3 failed: \(result.standardError)")
    }
}

/// A package record of the test catalogue.
struct SamplePackage: Sendable, Hashable {
    var name: String
    var summary: String
    var description: String = ""
    var maintainer: String = "Debian QA Group <qa@debian.org>"
    var section: String? = "utils"
    var tags: String? = nil
    var version: String = "1.0"
    var released: String? = "2023-01-01"
    var size: Int? = 100

    func upsert(in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO Package (name, summary, description, maintainer, section, tags, version, released, size)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(name) DO UPDATE SET summary = excluded.summary, description = excluded.description,
              maintainer = excluded.maintainer, section = excluded.section, tags = excluded.tags,
              version = excluded.version, released = excluded.released, size = excluded.size
            """, arguments: [name, summary, description, maintainer, section, tags, version, released, size])
    }

    /// A small catalogue with distinct words, sections, tags, sizes and dates.
    static let catalogue: [SamplePackage] = [
        SamplePackage(name: "vim", summary: "Vi IMproved - enhanced vi editor",
                      description: "Vim is an almost compatible version of the UNIX editor Vi. Many new features have been added: multi level undo, syntax highlighting, command line history.",
                      maintainer: "Debian Vim Maintainers <team+vim@tracker.debian.org>", section: "editors",
                      tags: "role::program interface::text-mode use::editing", released: "2023-06-01", size: 3900),
        SamplePackage(name: "nano", summary: "small, friendly text editor inspired by Pico",
                      description: "GNU nano is an easy-to-use text editor originally designed as a replacement for Pico, the ncurses-based editor.",
                      maintainer: "Jordi Mallach <jordi@debian.org>", section: "editors",
                      tags: "role::program interface::text-mode use::editing", released: "2022-11-15", size: 2800),
        SamplePackage(name: "grep", summary: "GNU grep, egrep and fgrep",
                      description: "grep is a utility to search for text in files; it can be used from the command line or in scripts.",
                      maintainer: "Anibal Monsalve Salazar <anibal@debian.org>", section: "utils",
                      tags: "role::program interface::commandline use::searching", released: "2023-01-10", size: 1600),
        SamplePackage(name: "coreutils", summary: "GNU core utilities",
                      description: "This package contains the basic file, shell and text manipulation utilities which are expected to exist on every operating system.",
                      maintainer: "Michael Stone <mstone@debian.org>", section: "utils",
                      tags: "role::program interface::commandline", released: "2021-03-30", size: 18000),
        SamplePackage(name: "xapian-tools", summary: "Basic tools for Xapian search engine library",
                      description: "Xapian is an Open Source Probabilistic Information Retrieval framework. This package includes tools to inspect a database.",
                      maintainer: "Olly Betts <olly@survex.com>", section: "text",
                      tags: "role::program use::searching", released: "2023-02-12", size: 700),
        SamplePackage(name: "sqlite3", summary: "Command line interface for SQLite 3",
                      description: "SQLite is a C library that implements an SQL database engine. Programs that link with the SQLite library can have SQL database access without running a separate RDBMS process.",
                      maintainer: "Laszlo Boszormenyi <gcs@debian.org>", section: "database",
                      tags: "role::program interface::commandline works-with::db", released: "2022-09-01", size: 1500),
        SamplePackage(name: "postgresql", summary: "object-relational SQL database (supported version)",
                      description: "PostgreSQL is a fully featured object-relational database management system. It supports a large part of the SQL standard.",
                      maintainer: "Debian PostgreSQL Maintainers <team+postgresql@tracker.debian.org>", section: "database",
                      tags: "role::program works-with::db", released: "2023-03-20", size: 70),
        SamplePackage(name: "gimp", summary: "GNU Image Manipulation Program",
                      description: "GIMP is an advanced picture editor. You can use it to edit, enhance, and retouch photos and scans, create drawings, and make your own images.",
                      maintainer: "Jordi Mallach <jordi@debian.org>", section: "graphics",
                      tags: "role::program interface::x11 use::editing works-with::image", released: "2023-05-05", size: 20000),
        SamplePackage(name: "inkscape", summary: "vector-based drawing program",
                      description: "Inkscape is an illustration editor which has everything needed to create professional-quality computer art. It uses the W3C SVG format.",
                      maintainer: "Debian Multimedia Maintainers <debian-multimedia@lists.debian.org>", section: "graphics",
                      tags: "role::program interface::x11 works-with::image", released: "2023-04-04", size: 40000),
        SamplePackage(name: "0ad", summary: "Real-time strategy game of ancient warfare",
                      description: "0 A.D. is a free, open-source, cross-platform real-time strategy (RTS) game of ancient warfare.",
                      maintainer: "Debian Games Team <pkg-games-devel@lists.alioth.debian.org>", section: "games",
                      tags: "game::strategy role::program", released: "2022-08-08", size: 60000),
    ]

    static func named(_ name: String) -> SamplePackage {
        catalogue.first { $0.name == name }!
    }
}

/// Runs a program and collects what it printed, through the tooling's spawner (`SpotliteTooling.ChildProcess`).
enum ProgramRun {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static func run(_ executable: String, _ arguments: [String], input: String? = nil,
                    currentDirectory: String? = nil) throws -> Result {
        // Standard input and error go through files, so a chatty child never blocks on a full pipe while we read stdout.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-child-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(atPath: scratch.path + ".in")
            try? FileManager.default.removeItem(atPath: scratch.path + ".err")
        }
        var inputPath: String?
        if let input {
            inputPath = scratch.path + ".in"
            try Data(input.utf8).write(to: URL(fileURLWithPath: scratch.path + ".in"))
        }
        let child = try SpotliteTooling.ChildProcess(executable: executable, arguments: arguments,
                                                     directory: currentDirectory, inputPath: inputPath,
                                                     output: .pipe, error: .file(scratch.path + ".err"))
        let outcome = child.outcome()
        let complaints = (try? Data(contentsOf: URL(fileURLWithPath: scratch.path + ".err"))) ?? Data()
        return Result(status: outcome.status, standardOutput: String(decoding: outcome.standardOutput, as: UTF8.self),
                      standardError: String(decoding: complaints, as: UTF8.self))
    }

    /// The `spotlite` command built beside this test bundle (`swift build --build-tests` builds both).
    static func spotliteExecutable() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidates = [directory.appendingPathComponent("spotlite").path]
        // The bundle may sit one level deeper (…/debug/X.xctest/Contents/MacOS on some layouts).
        candidates.append(directory.deletingLastPathComponent().appendingPathComponent("spotlite").path)
        candidates.append(FileManager.default.currentDirectoryPath + "/.build/debug/spotlite")
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "the spotlite executable was not found beside the tests (\(candidates)); run `swift build --build-tests` first")
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether it held. Only for
/// state that tells no one when it changes: another process's files (a lock, a generation being written, an index
/// another process commits). Waits within this process use events: `waitUntilIndexed`, `indexUpdates()`, a
/// ``Latch``, a clock's sleepers.
func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// A program running beside the test, its output collected in files; killed (SIGKILL) if still running when released.
final class RunningChild {
    let process = Process()
    private let outputFile: URL
    private let errorFile: URL
    /// Opened by Foundation when the child has exited.
    private let exited = Latch()

    /// Starts `executable`; `environment` adds to (or replaces entries of) this process's environment.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-child-\(UUID().uuidString)")
        outputFile = base.appendingPathExtension("out")
        errorFile = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        let exited = self.exited
        process.terminationHandler = { _ in exited.open() }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: outputFile)
        try? FileManager.default.removeItem(at: errorFile)
    }

    var pid: Int32 { process.processIdentifier }
    var standardOutput: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit and returns the status, or nil when it is still running after `timeout`.
    func waitForExit(timeout: Duration = Liveness.limit) async -> Int32? {
        let exited = self.exited
        guard (try? await within("the child process \(pid) to exit", limit: timeout, { await exited.wait() })) != nil
        else { return nil }
        return process.terminationStatus
    }
}

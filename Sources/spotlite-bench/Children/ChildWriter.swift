import ArgumentParser
import Foundation
import GRDB
import Spotlite
#if canImport(Glibc)
import Glibc
#endif

/// `spotlite-bench child-writer`: the other process of the freshness figure. Inserts `count` probe records, one
/// per transaction, `interval` milliseconds apart, and prints after each commit `INDEX NANOSECONDS TOKEN SECONDS`
/// (the machine's monotonic clock, the history token of the commit, and the wall clock, which change notifications
/// carry), which the suite compares with the moments the commit was announced and the probe became searchable.
struct ChildWriter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-writer", abstract: "Write probe records one per transaction (used by the suite).",
        shouldDisplay: false)

    @Option(help: "The configuration file.") var config: String
    @Option(help: "The store to write to.") var store: String
    @Option(help: "The entity to write.") var entity: String
    @Option(help: "The text field that carries the probe word.") var field: String
    @Option(help: "How many probes to write.") var count: Int
    @Option(help: "Milliseconds between two writes.") var intervalMs: Int
    @Option(help: "Makes probe keys and words unique to one run.") var tag: String
    @Option(help: "Probe texts, one a line, line N for probe N (default: `freshness probe WORD`).") var textFile: String?

    /// The key of probe `index`.
    static func key(tag: String, index: Int) -> String { "freshprobe-\(tag)-\(index)" }
    /// The one word that finds probe `index` (letters and digits: a single term for every tokenizer).
    static func word(tag: String, index: Int) -> String { "fp\(tag)x\(index)" }

    func run() throws {
        guard count >= 1, intervalMs >= 0 else {
            throw BenchError("--count must be at least 1 and --interval-ms at least 0")
        }
        var configuration = try SpotliteConfiguration(contentsOf: config, baseDirectory: FileManager.default.currentDirectoryPath)
        configuration.storePath = store
        guard let description = configuration.entity(named: entity) else {
            throw BenchError("the configuration has no entity \(entity)")
        }
        let texts = try textFile.map { path in
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        }
        if let texts, texts.count < count {
            throw BenchError("--text-file has \(texts.count) lines for \(count) probes")
        }
        let spotliteStore = try SpotliteStore(path: store, model: configuration.storeModel)
        let insert = "INSERT INTO \(entity.quotedDatabaseIdentifier) (\(description.key.quotedDatabaseIdentifier), \(field.quotedDatabaseIdentifier)) VALUES (?, ?)"
        for index in 0..<count {
            let key = Self.key(tag: tag, index: index)
            let text = texts?[index] ?? "freshness probe \(Self.word(tag: tag, index: index))"
            try spotliteStore.write(author: "app", context: "freshness") { db in
                try db.execute(sql: insert, arguments: [key, text])
            }
            let stamp = Stopwatch.nanoseconds()
            let wall = Date().timeIntervalSince1970
            let token = try spotliteStore.currentToken()?.rawValue ?? 0
            FileHandle.standardOutput.write(Data("\(index) \(stamp) \(token) \(String(format: "%.6f", wall))\n".utf8))
            if intervalMs > 0 { usleep(useconds_t(intervalMs * 1000)) }
        }
    }
}

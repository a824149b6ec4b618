import ArgumentParser
import Foundation
import Spotlite

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Upsert JSON Lines records into an entity of the store, recording history.",
        discussion: """
        Each line is a JSON object whose keys are the entity's columns; it is inserted, or updates the record with \
        the same key. {"name": "x", "_delete": true} deletes the record with that key. Every batch of lines is one \
        history transaction by the given author and context. A malformed line stops the import with its line \
        number: the batches before it stay committed, its own batch is not.
        """
    )

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "file"))
    var file: String

    @Option(help: "The entity (table) to import into.")
    var entity: String

    @Option(help: "The history author of the import's transactions.")
    var author = "importer"

    @Option(help: "The history context name of the import's transactions.")
    var context = "import"

    @Option(parsing: .unconditional, help: "Lines per transaction (1 to 100,000).")
    var batch = 1000

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        try OptionRange.check(batch, in: OptionRange.importBatch, option: "--batch")
        if author.isEmpty || author.hasPrefix(RecordImporter.reservedAuthorPrefix) {
            throw ImportError.invalidAuthor(author)
        }
    }

    func run() async throws {
        let environment = try CommandEnvironment(options: options)
        try environment.requireEntities()
        guard environment.configuration.entity(named: entity) != nil else {
            throw ImportError.unknownEntity(entity, known: environment.configuration.entities.map(\.name))
        }
        let handle: FileHandle
        var totalBytes: Int?
        if file == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
                throw CommandFailure(message: "\(file) is a directory; give a JSON Lines file (or - for standard input)")
            }
            guard let opened = FileHandle(forReadingAtPath: file) else {
                throw CommandFailure(message: "cannot read \(file): no such file or not readable; check the path")
            }
            handle = opened
            totalBytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
        }
        let store = try environment.openStore(create: true)
        let importer = try RecordImporter(store: store, entity: entity, author: author, contextName: context, batchSize: batch)
        let bar = ProgressBar(label: "Importing", unit: "bytes", enabled: environment.showsProgress)
        let started = Date()
        let summary = try importer.run(from: handle, totalBytes: totalBytes) { progress in
            bar.update(done: progress.bytes, total: progress.totalBytes)
        }
        bar.finish()
        let seconds = Date().timeIntervalSince(started)
        if json {
            JSONOutput.print([
                "entity": summary.entity, "inserted": summary.inserted, "updated": summary.updated,
                "deleted": summary.deleted, "transactions": summary.transactions,
                "token": summary.token?.rawValue ?? 0, "seconds": seconds,
            ] as [String: Any])
        } else {
            print("Imported \(Terminal.number(summary.lines)) lines into \(summary.entity) in \(Terminal.duration(seconds)): \(Terminal.number(summary.inserted)) inserted, \(Terminal.number(summary.updated)) updated, \(Terminal.number(summary.deleted)) deleted.")
            print("\(Terminal.number(summary.transactions)) history transactions by \(author) (context \(context)), up to token \(summary.token.map { "\($0)" } ?? "none").")
        }
    }
}

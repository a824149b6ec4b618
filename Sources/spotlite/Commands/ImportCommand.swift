import ArgumentParser
import Foundation
import GRDB
import Spotlite

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Upsert JSON Lines records into an entity of the store, recording history.",
        discussion: """
        Each line is a JSON object whose keys are the entity's columns; it is inserted, or updates the record with \
        the same key. {"name": "x", "_delete": true} deletes the record with that key. Every batch of lines is one \
        history transaction by the given author and context. A malformed line stops the import with its line \
        number: the batches before it stay committed, its own batch is not. The file may be compressed (xz, gzip, \
        bzip2 or zstd, read through the system's decompressor); a first import that fails before committing \
        anything leaves no store behind.

        EXAMPLES
          spotlite import packages.jsonl --entity Package
          spotlite import packages.jsonl.xz --entity Package --batch 5000
          cat changes.jsonl | spotlite import - --entity Package --author sync --context nightly
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
            throw SpotliteStoreError.invalidAuthor(author)
        }
    }

    /// A store that failed under the import (a full disk, a read-only file): which store, and how far the import
    /// got, since the batches committed before the failure are kept.
    static func storeFailure(_ error: DatabaseError, store: SpotliteStore, path: String,
                             after token: HistoryToken?) -> CommandFailure {
        let committed = (try? store.countHistory(HistoryRequest.after(token))) ?? 0
        let kept = committed == 0 ? "no batch of this import was committed"
            : "the \(Plural.count(committed, "batch", plural: "batches"))\((try? store.currentToken()).flatMap { $0 }.map { " (up to token \($0))" } ?? "") committed before it \(committed == 1 ? "is" : "are") kept, and running the import again finds those lines unchanged"
        return CommandFailure(message: "the store \(path) failed during the import: SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error)"); \(kept); free some space (or make the store writable) and run the import again", status: ExitStatus.failure)
    }

    func run() async throws {
        let environment = try CommandEnvironment(options: options)
        try environment.requireEntities()
        guard environment.configuration.entity(named: entity) != nil else {
            throw SpotliteStoreError.unknownEntity(entity, known: environment.configuration.entities.map(\.name))
        }
        // The input is opened (and its decompressor found) before the store is touched.
        let input = try InputSource(path: file)
        defer { input.abandon() }
        var created = CreatedStore()
        let summary: RecordImporter.Summary
        let started = Date()
        var store: SpotliteStore?
        var tokenBefore: HistoryToken?
        do {
            store = try environment.openStore(create: true, recording: &created)
            tokenBefore = try store?.currentToken()
            let importer = try RecordImporter(store: store!, entity: entity, author: author, contextName: context, batchSize: batch)
            let bar = ProgressBar(label: "Importing", unit: "bytes", enabled: environment.showsProgress)
            do {
                summary = try importer.run(from: input.handle, totalBytes: input.compression == nil ? input.totalBytes : nil) { progress in
                    bar.update(done: progress.bytes, total: progress.totalBytes)
                }
                bar.finish()
                try input.finish()
            } catch {
                bar.finish()
                // A compressed file cut short fails in the decompressor: its message says more than the last line.
                if case SpotliteStoreError.malformedLine = error, let failure = input.decompressionFailure() { throw failure }
                throw error
            }
        } catch {
            // A first import that committed nothing leaves no store behind.
            if created.storePath != nil, (try? store?.historyStatistics().transactions) ?? 0 == 0 {
                store = nil
                created.remove()
            } else if let failure = error as? DatabaseError, let store {
                throw Self.storeFailure(failure, store: store, path: environment.configuration.storePath, after: tokenBefore)
            }
            throw error
        }
        if let path = created.storePath, !json {
            print("Created store at \(path)")
        }
        let seconds = Date().timeIntervalSince(started)
        if json {
            JSONOutput.print([
                "entity": summary.entity, "inserted": summary.inserted, "updated": summary.updated,
                "unchanged": summary.unchanged, "deleted": summary.deleted, "transactions": summary.transactions,
                "token": summary.token.map { $0.rawValue as Any } ?? NSNull(), "seconds": seconds,
            ] as [String: Any])
        } else {
            print("Imported \(Plural.count(summary.lines, "line")) into \(summary.entity) in \(Terminal.duration(seconds)): \(Terminal.number(summary.inserted)) inserted, \(Terminal.number(summary.updated)) updated, \(Terminal.number(summary.unchanged)) unchanged, \(Terminal.number(summary.deleted)) deleted.")
            if let token = summary.token {
                print("\(Plural.count(summary.transactions, "history transaction")) by \(author) (context \(context)), up to token \(token).")
            } else {
                print("No history transaction: the import changed nothing in the store.")
            }
        }
    }
}

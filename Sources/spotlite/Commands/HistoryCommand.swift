import ArgumentParser
import Foundation
import GRDB
import Spotlite
import SpotliteJSON

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List, count and clean the store's persistent history.",
        subcommands: [List.self, Clean.self, Stats.self, Mark.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List history transactions with their changes, oldest first.",
            discussion: """
            Lists what the store still holds: after `spotlite history clean`, from the oldest transaction kept. \
            With --after older than what was deleted, the listing starts at the oldest transaction kept and says so \
            on stderr. --json prints one JSON array, --jsonl one JSON object per line; both are written as the \
            history is read, so a long history starts printing at once.

            EXAMPLES
              spotlite history list --limit 3
              spotlite history list --after 120 --author importer --json
              spotlite history list --author - --entity Package --jsonl
            """)

        @Option(parsing: .unconditional, help: "Only transactions after this token.") var after: Int64?
        @Option(name: .customLong("author"), help: ArgumentHelp("Only transactions by this author (repeatable; `-` for none).", valueName: "name"))
        var authors: [String] = []
        @Option(name: .customLong("entity"), help: ArgumentHelp("Only changes of this entity (repeatable).", valueName: "name"))
        var entities: [String] = []
        @Option(parsing: .unconditional, help: "At most this many transactions.") var limit: Int?
        @Flag(help: "Print the transactions as one JSON array.") var json = false
        @Flag(help: "Print one JSON object per transaction and line (JSON Lines).") var jsonl = false
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if let limit { try OptionRange.check(limit, in: OptionRange.historyLimit, option: "--limit") }
            if let after { try OptionRange.check(after, in: OptionRange.historyAfter, option: "--after") }
            if json && jsonl { throw ValidationError("--json and --jsonl exclude each other; choose one") }
        }

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let known = environment.configuration.entities.map(\.name)
            if !known.isEmpty, let unknown = entities.first(where: { !known.contains($0) }) {
                throw CommandFailure(message: "unknown entity \"\(unknown)\"; the configuration describes: \(known.joined(separator: ", "))")
            }
            let store = try environment.openStoreForReading()
            var filter = HistoryRequest(start: after.map { .afterToken(HistoryToken(rawValue: $0)) } ?? .oldestRetained)
            if !authors.isEmpty { filter = filter.including(authors: Set(authors.map { $0 == "-" ? nil : $0 })) }
            if !entities.isEmpty { filter = filter.entities(Set(entities)) }

            var writer = json ? HistoryJSONWriter(format: .array) : jsonl ? HistoryJSONWriter(format: .lines) : nil
            var listed = 0
            // Pages of transactions, each read in one snapshot; a page starts after the last token printed.
            let pageSize = 200
            var request = filter
            while limit.map({ listed < $0 }) ?? true {
                request.limit = min(pageSize, limit.map { $0 - listed } ?? pageSize)
                let page: [HistoryTransaction]
                do {
                    page = try store.fetchHistory(request)
                } catch SpotliteStoreError.expiredToken(requested: _?, let purgedThrough) where listed == 0 {
                    // A listing is for looking: show what is kept rather than refuse.
                    Terminal.log("spotlite: the history through token \(purgedThrough) was deleted; listing from the oldest transaction kept")
                    request.start = .oldestRetained
                    continue
                }
                if page.isEmpty { break }
                for transaction in page {
                    if writer != nil { writer!.write(transaction) } else { printHuman(transaction) }
                }
                listed += page.count
                request.start = .afterToken(page.last!.token)
                if page.count < request.limit! { break }
            }
            if writer != nil {
                writer!.finish()
            } else if listed == 0 {
                print("No history transactions\(after.map { " after token \($0)" } ?? "").")
            }
        }

        private func printHuman(_ transaction: HistoryTransaction) {
            let who = transaction.author ?? "(no author)"
            let context = transaction.contextName.map { " / \($0)" } ?? ""
            print(Terminal.strong("token \(transaction.token)") + "  \(ISO8601.string(from: transaction.timestamp))  \(who)\(context)  \(Plural.count(transaction.changes.count, "change"))")
            for change in transaction.changes.prefix(5) {
                var line = "    \(change.changeType) \(change.entity) \(DatabaseValueText.describe(change.key))"
                if let columns = change.updatedColumns { line += " [\(columns.joined(separator: ", "))]" }
                if let tombstone = change.tombstone, !tombstone.isEmpty {
                    line += " tombstone {" + tombstone.keys.sorted().map { "\($0): \(DatabaseValueText.describe(tombstone[$0]!))" }.joined(separator: ", ") + "}"
                }
                print(line)
            }
            if transaction.changes.count > 5 { print(Terminal.faint("    … \(Terminal.number(transaction.changes.count - 5)) more (--json lists them all)")) }
        }
    }

    static func jsonObject(_ transaction: HistoryTransaction) -> [String: Any] {
        [
            "token": transaction.token.rawValue,
            "timestamp": ISO8601.string(from: transaction.timestamp),
            "author": transaction.author as Any? ?? NSNull(),
            "context": transaction.contextName as Any? ?? NSNull(),
            "changes": transaction.changes.map { change -> [String: Any] in
                var tombstone: Any = NSNull()
                if let values = change.tombstone {
                    var object: [String: Any] = [:]
                    for (name, value) in values { object[name] = DatabaseValueText.jsonObject(value) }
                    tombstone = object
                }
                return [
                    "entity": change.entity,
                    "key": DatabaseValueText.jsonObject(change.key),
                    "type": change.changeType.description,
                    "columns": change.updatedColumns ?? [],
                    "tombstone": tombstone,
                ]
            },
        ]
    }

    struct Clean: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the history every required author has consumed (the indexer included), bounded by maximum_duration.",
            discussion: """
            Required authors are the configuration's [history] authors minus its batch authors, plus the indexer. \
            Nothing is deleted while a required author has no position yet, unless it has been missing for longer \
            than maximum_duration; history older than maximum_duration is deleted even when an author lags (it will \
            resynchronise). `spotlite history mark AUTHOR` records a position for an author that does not. The \
            watermark deletes only the history of the authors in [history] authors: transactions of other authors \
            and of foreign writers (the sqlite3 shell, programs without an author) stay until they are older than \
            maximum_duration; the command says how many it kept so.

            EXAMPLES
              spotlite history clean --dry-run
              spotlite history clean --json
            """)

        @Flag(help: "Say what would be deleted, delete nothing.") var dryRun = false
        @Flag(help: "Print the result as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let store = try environment.openStore(create: false)
            let deleter = HistoryDeleter(store: store, policy: environment.configuration.deletionPolicy)
            let result = try deleter.deleteConsumedHistory(dryRun: dryRun)
            let unlisted = try HistoryCommand.keptBelowWatermark(result.watermark, store: store,
                                                       policy: environment.configuration.deletionPolicy)
            if json {
                var object: [String: Any] = [:]
                object["watermark"] = result.watermark.map { $0.rawValue as Any } ?? NSNull()
                object["deleted_transactions"] = result.deletedTransactions
                object["kept_transactions"] = result.keptTransactions
                object["kept_foreign_transactions"] = unlisted.foreign
                object["kept_unlisted_author_transactions"] = unlisted.unlistedCount
                object["kept_unlisted_authors"] = unlisted.byAuthor.map(\.author)
                object["reason"] = result.reason
                JSONOutput.print(object)
            } else {
                let (delete, keep) = dryRun ? ("Would delete", "would keep") : ("Deleted", "kept")
                print("\(delete) \(Plural.count(result.deletedTransactions, "transaction")), \(keep) \(Terminal.number(result.keptTransactions)) (watermark \(result.watermark.map { "token \($0)" } ?? "none")): \(result.reason).")
                if let line = unlisted.explanation(keep: keep) { print(line) }
            }
        }
    }

    /// The transactions below the watermark that cleanup keeps because the watermark deletes only the listed
    /// authors' history: those of foreign writers (no author: the sqlite3 shell, other programs) and of authors
    /// missing from `[history] authors`. Only `maximum_duration` deletes them.
    struct KeptHistory {
        var foreign = 0
        var byAuthor: [(author: String, count: Int)] = []
        var maximumDuration: String?
        var unlistedCount: Int { byAuthor.reduce(0) { $0 + $1.count } }

        func explanation(keep: String) -> String? {
            guard foreign > 0 || !byAuthor.isEmpty else { return nil }
            var parts: [String] = []
            if foreign > 0 { parts.append("\(Plural.count(foreign, "transaction")) by foreign writers (no author: the sqlite3 shell, other programs)") }
            if !byAuthor.isEmpty {
                parts.append("\(Plural.count(unlistedCount, "transaction")) by authors not in [history] authors (\(byAuthor.map(\.author).joined(separator: ", ")))")
            }
            let bound = maximumDuration.map { "they go once older than maximum_duration (\($0))" } ?? "maximum_duration is \"none\", so they stay"
            return "Also \(keep) below the watermark: \(parts.joined(separator: " and ")); the watermark deletes only the history of the listed authors, \(bound); add an author to [history] authors to have its history deleted once consumed."
        }
    }

    static func keptBelowWatermark(_ watermark: HistoryToken?, store: SpotliteStore,
                                   policy: HistoryDeletionPolicy) throws -> KeptHistory {
        var kept = KeptHistory()
        kept.maximumDuration = policy.maximumDuration.map { DurationText.format(.milliseconds(Int64(($0 * 1000).rounded()))) }
        guard let watermark, !policy.deletesUnlistedAuthors else { return kept }
        // The transaction at the watermark is kept whoever wrote it (cleanup deletes before it): not counted here.
        let listed = Set(policy.listedAuthors)
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT author, count(*) AS n FROM spotlite_transaction WHERE token < ? GROUP BY author ORDER BY author",
                             arguments: [watermark.rawValue])
        }
        for row in rows {
            let count: Int = row["n"]
            if let author: String = row["author"] {
                if !listed.contains(author) { kept.byAuthor.append((author, count)) }
            } else {
                kept.foreign += count
            }
        }
        return kept
    }

    struct Mark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that an author has read the history up to a token (for cleanup), or forget its position.",
            discussion: """
            `spotlite history clean` deletes only what every author of the configuration's [history] authors \
            (batch authors aside) has read. A program using the Swift library records its position itself; for an \
            author that does not (a script, a retired app), this records it: up to the store's current token, or \
            --token. --remove forgets the position (cleanup then waits for the author again, up to \
            maximum_duration). The indexer's position is not set here: the index records it with every commit \
            (`spotlite index update` moves it, `spotlite index delete` removes it).

            EXAMPLES
              spotlite history mark app
              spotlite history mark app --token 120
              spotlite history mark app --remove
            """)

        @Argument(help: ArgumentHelp("The author whose position to record.", valueName: "author"))
        var author: String
        @Option(parsing: .unconditional, help: "The token read up to (default: the store's current token).") var token: Int64?
        @Flag(help: "Forget the author's position instead.") var remove = false
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if let token { try OptionRange.check(token, in: OptionRange.historyAfter, option: "--token") }
            if remove && token != nil { throw ValidationError("--remove and --token exclude each other; choose one") }
            if author.isEmpty { throw ValidationError("the author must not be empty") }
        }

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            // The indexer's position is what cleanup keeps for the index: set by hand past what the index holds, a
            // clean deletes history the index never read, and the next update must rebuild.
            let indexer = environment.configuration.indexer.author
            if author == indexer {
                throw CommandFailure(message: "\(author) is the search indexer's position, which the indexer records itself with every index commit; run `spotlite index update` to move it, or `spotlite index delete` to remove the index and its position", status: ExitStatus.input)
            }
            let store = try environment.openStore(create: false)
            if remove {
                let had = try store.position(of: author) != nil
                try store.removePosition(for: author)
                print(had ? "Forgot the position of \(author)." : "\(author) had no position: nothing to forget.")
                return
            }
            let current = try store.currentToken()
            let target = token.map(HistoryToken.init(rawValue:)) ?? current ?? HistoryToken(rawValue: 0)
            if let token, token < 0 || token > (current?.rawValue ?? 0) {
                throw CommandFailure(message: "--token \(token) is not a token of this store (its current token is \(current.map { "\($0)" } ?? "0")); give a token from 0 to the current one")
            }
            try store.setPosition(target, for: author)
            let history = environment.configuration.history
            let note: String
            if try history.requiredAuthors.contains(author) || store.registeredConsumers().contains(author) {
                note = ""
            } else if history.batchAuthors.contains(author) {
                note = " (\(author) is one of the configuration's [history] batch_authors: cleanup does not wait for it anyway)"
            } else {
                note = " (\(author) is not among the configuration's [history] authors: cleanup does not wait for it anyway)"
            }
            print("\(author) has read the history through token \(target)\(note).")
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count the history's transactions and changes, and its size.",
            discussion: """
            EXAMPLES
              spotlite history stats
              spotlite history stats --json
            """)

        @Flag(help: "Print the statistics as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let store = try environment.openStore(create: false)
            let stats = try store.historyStatistics()
            if json {
                JSONOutput.print([
                    "transactions": stats.transactions, "changes": stats.changes,
                    "oldest_token": stats.oldestToken.map { $0.rawValue as Any } ?? NSNull(),
                    "newest_token": stats.newestToken.map { $0.rawValue as Any } ?? NSNull(),
                    "bytes": stats.bytes,
                ] as [String: Any])
            } else {
                print("\(Terminal.number(stats.transactions)) transactions, \(Terminal.number(stats.changes)) changes, tokens \(stats.oldestToken.map { "\($0)" } ?? "-")…\(stats.newestToken.map { "\($0)" } ?? "-"), \(Terminal.number(stats.bytes)) bytes.")
            }
        }
    }
}

/// Database values as the command line shows them.
enum DatabaseValueText {
    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "null"
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .string(let text): text
        case .blob(let data): "<\(data.count) bytes>"
        }
    }

    static func jsonObject(_ value: DatabaseValue) -> Any {
        switch value.storage {
        case .null: NSNull()
        case .int64(let number): number
        case .double(let number): number
        case .string(let text): text
        case .blob(let data): data.base64EncodedString()
        }
    }
}

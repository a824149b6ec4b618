import ArgumentParser
import Foundation
import GRDB
import Spotlite

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List, count and clean the store's persistent history.",
        subcommands: [List.self, Clean.self, Stats.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List history transactions with their changes, oldest first.")

        @Option(parsing: .unconditional, help: "Only transactions after this token.") var after: Int64?
        @Option(name: .customLong("author"), help: ArgumentHelp("Only transactions by this author (repeatable; `-` for none).", valueName: "name"))
        var authors: [String] = []
        @Option(name: .customLong("entity"), help: ArgumentHelp("Only changes of this entity (repeatable).", valueName: "name"))
        var entities: [String] = []
        @Option(parsing: .unconditional, help: "At most this many transactions.") var limit: Int?
        @Flag(help: "Print the transactions as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if let limit { try OptionRange.check(limit, in: OptionRange.historyLimit, option: "--limit") }
            if let after { try OptionRange.check(after, in: OptionRange.historyAfter, option: "--after") }
        }

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let store = try environment.openStore(create: false)
            var request = HistoryRequest.after(after.map(HistoryToken.init(rawValue:))).limit(limit)
            if !authors.isEmpty { request = request.including(authors: Set(authors.map { $0 == "-" ? nil : $0 })) }
            if !entities.isEmpty { request = request.entities(Set(entities)) }
            let transactions = try store.fetchHistory(request)
            if json {
                JSONOutput.print(transactions.map(HistoryCommand.jsonObject))
                return
            }
            if transactions.isEmpty { print("No history transactions.") }
            for transaction in transactions {
                let who = transaction.author ?? "(no author)"
                let context = transaction.contextName.map { " / \($0)" } ?? ""
                print(Terminal.strong("token \(transaction.token)") + "  \(ISO8601.string(from: transaction.timestamp))  \(who)\(context)  \(Terminal.number(transaction.changes.count)) changes")
                for change in transaction.changes.prefix(5) {
                    var line = "    \(change.changeType) \(change.entity) \(DatabaseValueText.describe(change.key))"
                    if let columns = change.updatedColumns { line += " [\(columns.joined(separator: ", "))]" }
                    if let tombstone = change.tombstone, !tombstone.isEmpty {
                        line += " tombstone {" + tombstone.keys.sorted().map { "\($0): \(DatabaseValueText.describe(tombstone[$0]!))" }.joined(separator: ", ") + "}"
                    }
                    print(line)
                }
                if transaction.changes.count > 5 { print(Terminal.faint("    … \(Terminal.number(transaction.changes.count - 5)) more")) }
            }
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
            discussion: "Required authors are the configuration's [history] authors minus its batch authors, plus the indexer. Nothing is deleted while a required author has no position yet, unless it has been missing for longer than maximum_duration; history older than maximum_duration is deleted even when an author lags (it will resynchronise).")

        @Flag(help: "Say what would be deleted, delete nothing.") var dryRun = false
        @Flag(help: "Print the result as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let store = try environment.openStore(create: false)
            let cleaner = HistoryCleaner(store: store, policy: environment.configuration.cleanupPolicy)
            let result = try cleaner.clean(dryRun: dryRun)
            if json {
                JSONOutput.print([
                    "watermark": result.watermark.map { $0.rawValue as Any } ?? NSNull(),
                    "deleted_transactions": result.deletedTransactions,
                    "kept_transactions": result.keptTransactions,
                    "reason": result.reason,
                ] as [String: Any])
            } else {
                let verb = dryRun ? "Would delete" : "Deleted"
                print("\(verb) \(Terminal.number(result.deletedTransactions)) transactions, kept \(Terminal.number(result.keptTransactions)) (watermark \(result.watermark.map { "token \($0)" } ?? "none")): \(result.reason).")
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Count the history's transactions and changes, and its size.")

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

import Foundation
import GRDB
import Spotlite

extension BadInputSuite {
    /// Malformed JSON Lines stop the import at their line, with the batches before committed and nothing after; awkward
    /// but valid lines import with their values intact. Afterwards the index still matches the store.
    mutating func malformedImports() throws {
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        func keys(_ prefix: String) throws -> Set<String> {
            try store.read { db in
                Set(try String.fetchAll(db, sql: "SELECT id FROM Item WHERE id LIKE ? ESCAPE '\\'", arguments: [prefix + "-%"]))
            }
        }
        for (number, malformed) in ImportCorpus.malformed.enumerated() {
            let prefix = "bad\(number)"
            func good(_ index: Int) -> Data { Data(#"{"id": "\#(prefix)-\#(index)", "title": "good line \#(index)", "rev": 0}"#.utf8) }
            let file = [good(1), good(2), good(3), malformed.line, good(5)].reduce(Data()) { $0 + $1 + Data("\n".utf8) }
            try workspace.write(file, to: "import-\(number).jsonl")
            let run = try workspace.runSpotlite(["import", workspace.path("import-\(number).jsonl"), "--entity", "Item",
                                                 "--batch", "2", "--context", prefix], timeout: 120)
            var problems: [String] = []
            if let problem = Self.unclearFailure(run) { problems.append(problem) }
            if !run.errorLine.contains("line 4") { problems.append("the error does not name line 4: \(run.errorLine.prefix(200))") }
            if !run.errorLine.lowercased().contains(malformed.mentions.lowercased()) {
                problems.append("the error does not mention \(malformed.mentions): \(run.errorLine.prefix(200))")
            }
            let found = try keys(prefix)
            if found != ["\(prefix)-1", "\(prefix)-2"] {
                problems.append("expected the first batch (lines 1–2) committed and nothing else; found \(found.sorted())")
            }
            let transactions = try store.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_transaction WHERE context = ?", arguments: [prefix]) ?? 0
            }
            if transactions != 1 { problems.append("\(transactions) history transactions for the import, expected 1") }
            report.record("malformed import line: \(malformed.name)", problems: problems)
            try? FileManager.default.removeItem(atPath: workspace.path("import-\(number).jsonl"))
        }

        var problems: [String] = []
        for accepted in ImportCorpus.accepted {
            try workspace.write(accepted.line + Data("\n".utf8), to: "accepted.jsonl")
            let run = try workspace.runSpotlite(["import", workspace.path("accepted.jsonl"), "--entity", "Item"], timeout: 120)
            guard run.succeeded else {
                problems.append("\(accepted.name): refused: \(run.errorLine.prefix(200))")
                continue
            }
            let title = try store.read { db in
                try Row.fetchOne(db, sql: "SELECT title FROM Item WHERE id = ?", arguments: [accepted.key])
            }
            if title == nil {
                problems.append("\(accepted.name): no row with the key \(QueryFuzzer.escaped(accepted.key))")
            } else if (title!["title"] as String?) != accepted.title {
                problems.append("\(accepted.name): title is \(QueryFuzzer.escaped(String(((title!["title"] as String?) ?? "NULL").prefix(60))))")
            }
        }
        let update = try workspace.runSpotlite(["index", "update", "--json"])
        if !update.succeeded { problems.append("index update after the awkward lines: \(update.errorLine)") }
        problems += invariantProblems()
        report.record("awkward but valid import lines keep their values, in the store and the index", problems: problems)
    }
}

import Foundation
import GRDB
import Spotlite

/// Checks the promise every suite relies on, reading the store with GRDB and the index back through the library:
///
/// - the index holds exactly the store's current rows: every live record is found by its key, once, with its current
///   stored values; no deleted or duplicate record is indexed;
/// - history is consistent (``HistoryAudit``), and positions lag the index, never lead it;
/// - after a completed update, the index's token is the store's current token.
struct InvariantChecker {
    struct Options {
        /// The index must reflect the store's current token (true right after a completed `index update`).
        var expectCaughtUp = true
        /// Check the `rev` ledger against history (only when no history was cleaned).
        var ledger = true
        /// How many keys to look up one by one with a keyword filter (every live key when the table is small).
        var keyLookups = 300
        /// Above this many rows, documents are counted and sampled instead of compared one by one (reading a
        /// million hits back would measure the checker, not the index).
        var fullComparisonLimit = 200_000
    }

    /// What one check found.
    struct Outcome {
        var problems: [String] = []
        var rows = 0
        var documents = 0
        var indexToken: HistoryToken?
        var storeToken: HistoryToken?
        var changes = 0
    }

    let configuration: SpotliteConfiguration

    func check(_ options: Options = Options()) throws -> Outcome {
        var outcome = Outcome()
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        let history = try store.read { db in try HistoryAudit.audit(db, ledger: options.ledger) }
        outcome.problems += history.problems
        outcome.changes = history.changes

        let status = try IndexStatus(store: store, configuration: configuration)
        outcome.indexToken = status.token
        outcome.storeToken = status.storeToken
        outcome.documents = status.documents
        let indexToken = status.token?.rawValue ?? 0
        let storeToken = status.storeToken?.rawValue ?? 0
        if !status.exists { outcome.problems.append("there is no live index at \(configuration.indexPath)") }
        if indexToken > storeToken {
            outcome.problems.append("the index token \(indexToken) is ahead of the store token \(storeToken)")
        }
        if options.expectCaughtUp && indexToken != storeToken {
            outcome.problems.append("after a completed update the index is at token \(indexToken), the store at \(storeToken)")
        }
        for position in status.checkpoints where position.token.rawValue > storeToken {
            outcome.problems.append("the position of \(position.author) (\(position.token)) is ahead of the store (\(storeToken))")
        }
        if let indexer = status.checkpoints.first(where: { $0.author == configuration.indexer.author }),
           indexer.token.rawValue > indexToken {
            outcome.problems.append("the indexer's position \(indexer.token) leads the index token \(indexToken)")
        }

        let searcher = try IndexSearcher(configuration: configuration)
        var totalRows = 0
        for entity in configuration.entities {
            let table = entity.name.quotedDatabaseIdentifier
            let count = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
            let everyDocument = count <= options.fullComparisonLimit
            let rows = try store.read { db in
                try Self.rows(of: entity, in: db, every: everyDocument ? 1 : max(1, count / max(1, options.keyLookups)))
            }
            totalRows += count
            outcome.problems += try compare(entity: entity, rows: rows, rowCount: count, searcher: searcher,
                                            lookups: options.keyLookups, everyDocument: everyDocument)
        }
        outcome.rows = totalRows
        if status.exists && status.documents != totalRows {
            outcome.problems.append("the index holds \(status.documents) documents for \(totalRows) rows")
        }
        return outcome
    }

    /// The rows of an entity by key text, with their columns: every row, or every `every`-th by rowid.
    static func rows(of entity: EntityConfiguration, in db: Database, every: Int = 1) throws -> [String: Row] {
        var rows: [String: Row] = [:]
        let filter = every > 1 ? " WHERE rowid % \(every) = 0" : ""
        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \(entity.name.quotedDatabaseIdentifier)\(filter)")
        while let row = try cursor.next() {
            rows[Self.keyText(row[entity.key] as DatabaseValue)] = row.copy()
        }
        return rows
    }

    /// A key as ASCII text: Swift compares Strings by canonical equivalence, SQLite and Xapian by bytes, so every
    /// non-ASCII scalar is spelled out and two keys differing only in normalisation stay two keys.
    static func keyText(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "<null>"
        case .int64(let number): return "i:\(number)"
        case .double(let number): return "r:\(number)"
        case .string(let text): return "t:" + ascii(text)
        // The index reports a blob key as its SQL literal, which is how a blob row's document is recognised.
        case .blob(let data): return "t:x'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    static func keyText(_ value: StoredValue) -> String {
        switch value {
        case .text(let text): return "t:" + ascii(text)
        case .integer(let number): return "i:\(number)"
        case .real(let number): return "r:\(number)"
        }
    }

    static func ascii(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\\" {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// The stored form of a row value, as the indexer writes it.
    static func storedValue(_ value: DatabaseValue) -> StoredValue? {
        switch value.storage {
        case .null: return nil
        case .string(let text): return .text(text)
        case .int64(let number): return .integer(number)
        case .double(let number): return .real(number)
        case .blob(let data): return String(validating: data, as: UTF8.self).map(StoredValue.text)
        }
    }

    /// Compares the documents of an entity with its rows: all of them, or (`everyDocument` false) their number and
    /// the sampled `rows` looked up by key.
    private func compare(entity: EntityConfiguration, rows: [String: Row], rowCount: Int, searcher: IndexSearcher,
                         lookups: Int, everyDocument: Bool) throws -> [String] {
        var problems: [String] = []
        // Every document, a page at a time (a search returns at most SearchRequest.maximumLimit hits).
        var hits: [SearchHit] = []
        var total = 0
        repeat {
            let page = try searcher.search(SearchRequest("", entities: [entity.name], offset: hits.count,
                                                         limit: everyDocument ? SearchRequest.maximumLimit : 0,
                                                         snippet: SnippetOptions(length: 0), correctsSpelling: false))
            total = page.total
            hits += page.hits
            if page.hits.count < SearchRequest.maximumLimit { break }
        } while everyDocument
        if !everyDocument && total != rowCount {
            problems.append("\(entity.name): the index matches about \(total) documents for \(rowCount) rows")
        }
        var seen: [String: Int] = [:]
        for hit in hits {
            let key = Self.keyText(hit.key)
            seen[key, default: 0] += 1
            guard hit.entity == entity.name else {
                problems.append("an \(entity.name) filter returned a \(hit.entity) document (\(key))")
                continue
            }
            guard let row = rows[key] else {
                problems.append("\(entity.name) \(key) is indexed but has no row (deleted record still found)")
                continue
            }
            problems += Self.fieldProblems(entity: entity, key: key, row: row, hit: hit)
        }
        for (key, count) in seen where count > 1 {
            problems.append("\(entity.name) \(key) is indexed \(count) times")
        }
        for key in rows.keys where everyDocument && seen[key] == nil {
            problems.append("\(entity.name) \(key) has a row but no document")
        }
        // Findable by its key, one by one, through a keyword filter when the key is also a keyword field.
        if let keyField = entity.field(named: entity.key), keyField.type == .keyword {
            var sample = rows.keys.sorted()
            if sample.count > lookups {
                let step = Double(sample.count) / Double(lookups)
                sample = (0..<lookups).map { sample[Int(Double($0) * step)] }
            }
            for key in sample {
                guard let text = (rows[key]?[entity.key] as DatabaseValue?)?.storedText,
                      text.utf8.count <= 200 else { continue }
                let found = try searcher.search(SearchRequest("", entities: [entity.name],
                                                              filters: [SearchFilter(field: entity.key, value: text)],
                                                              limit: 10, snippet: SnippetOptions(length: 0),
                                                              correctsSpelling: false))
                // A blob key row has the same keyword value as the text key with its bytes: the filter finds both.
                let keys = found.hits.map { Self.keyText($0.key) }.filter { $0 == key || !$0.hasPrefix("t:x'") }
                if keys != [key] {
                    problems.append("looking up \(entity.name) \(key) by its key found \(keys.isEmpty ? "nothing" : keys.joined(separator: ", "))")
                } else if !everyDocument, let row = rows[key] {
                    problems += Self.fieldProblems(entity: entity, key: key, row: row, hit: found.hits[0])
                }
            }
        }
        return problems
    }

    /// Stored fields of a hit that differ from its row.
    private static func fieldProblems(entity: EntityConfiguration, key: String, row: Row, hit: SearchHit) -> [String] {
        var problems: [String] = []
        for field in entity.fields where field.isStored {
            let expected = storedValue(row[field.name] as DatabaseValue? ?? .null)
            let found = hit.fields[field.name]
            if expected.map(keyText) != found.map(keyText) {
                problems.append("\(entity.name) \(key): field \(field.name) is \(found.map { "\($0)" } ?? "absent") in the index, \(expected.map { "\($0)" } ?? "null") in the store")
            }
        }
        return problems
    }
}

extension DatabaseValue {
    /// Text keys as text, integer keys as their digits.
    var storedText: String? {
        switch storage {
        case .string(let text): return text
        case .int64(let number): return String(number)
        default: return nil
        }
    }
}

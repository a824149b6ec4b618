import Foundation
import GRDB
import Spotlite

/// The SQLite baseline: the records in a plain table and an external-content FTS5 table over its text fields, kept in
/// step by triggers, with the porter tokenizer, ranked by `bm25()` with the configured field weights.
final class FTS5Index {
    let path: String
    let database: DatabaseQueue
    /// The text fields, in configuration order, and their weights.
    let columns: [(name: String, weight: Int)]
    let key: String
    private let rankSQL: String

    static let contentTable = "record"
    static let ftsTable = "record_fts"

    /// Creates the database at `path` (replacing any) and inserts the records in transactions of 1,000 rows,
    /// the triggers filling the full-text index.
    init(records: [Corpus.Record], configuration: SpotliteConfiguration, entity name: String, path: String) throws {
        guard let entity = configuration.entity(named: name) else {
            throw BenchError("the configuration has no entity \(name)")
        }
        self.path = path
        key = entity.key
        columns = entity.fields.filter { $0.type == .text }.map { ($0.name, max(1, $0.weight)) }
        guard !columns.isEmpty else {
            throw BenchError("entity \(name) has no text field; FTS5 needs at least one")
        }
        let weights = columns.map { String($0.weight) }.joined(separator: ", ")
        rankSQL = "bm25(\(Self.ftsTable), \(weights))"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        database = try DatabaseQueue(path: path)
        let allColumns = [entity.key] + entity.fields.map(\.name).filter { $0 != entity.key }
        let textNames = columns.map(\.name)
        let quoted = { (names: [String]) in names.map(\.quotedDatabaseIdentifier).joined(separator: ", ") }
        let newValues = textNames.map { "new.\($0.quotedDatabaseIdentifier)" }.joined(separator: ", ")
        let oldValues = textNames.map { "old.\($0.quotedDatabaseIdentifier)" }.joined(separator: ", ")
        let fts = Self.ftsTable
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE \(Self.contentTable) (id INTEGER PRIMARY KEY, \(allColumns.map { "\($0.quotedDatabaseIdentifier) TEXT" }.joined(separator: ", ")), UNIQUE(\(entity.key.quotedDatabaseIdentifier)));
                CREATE VIRTUAL TABLE \(fts) USING fts5(\(quoted(textNames)), content='\(Self.contentTable)', content_rowid='id', tokenize='porter unicode61');
                CREATE TRIGGER record_ai AFTER INSERT ON \(Self.contentTable) BEGIN
                  INSERT INTO \(fts)(rowid, \(quoted(textNames))) VALUES (new.id, \(newValues));
                END;
                CREATE TRIGGER record_ad AFTER DELETE ON \(Self.contentTable) BEGIN
                  INSERT INTO \(fts)(\(fts), rowid, \(quoted(textNames))) VALUES ('delete', old.id, \(oldValues));
                END;
                CREATE TRIGGER record_au AFTER UPDATE ON \(Self.contentTable) BEGIN
                  INSERT INTO \(fts)(\(fts), rowid, \(quoted(textNames))) VALUES ('delete', old.id, \(oldValues));
                  INSERT INTO \(fts)(rowid, \(quoted(textNames))) VALUES (new.id, \(newValues));
                END;
                """)
        }
        let insert = "INSERT INTO \(Self.contentTable) (\(quoted(allColumns))) VALUES (\(Array(repeating: "?", count: allColumns.count).joined(separator: ", ")))"
        for start in stride(from: 0, to: records.count, by: 1000) {
            try database.write { db in
                let statement = try db.cachedStatement(sql: insert)
                for record in records[start..<min(start + 1000, records.count)] {
                    try statement.execute(arguments: StatementArguments(allColumns.map { record[$0]?.databaseValue ?? .null }))
                }
            }
        }
    }

    /// Merges the full-text index into one segment (`optimize`) and vacuums the file: the compacted size.
    func compact() throws {
        try database.write { db in try db.execute(sql: "INSERT INTO \(Self.ftsTable)(\(Self.ftsTable)) VALUES ('optimize')") }
        try database.vacuum()
    }

    /// Bytes of the full-text index's own tables (not the content table), from `dbstat`.
    func indexBytes() throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE ?",
                             arguments: ["\(Self.ftsTable)%"]) ?? 0
        }
    }

    /// The keys of the best `limit` records for `words`, best first: `"a" OR "b"` or `"a" "b"` (every word).
    func search(words: [String], matchAll: Bool, limit: Int = 10) throws -> [String] {
        let match = words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            .joined(separator: matchAll ? " " : " OR ")
        return try database.read { db in
            let ids = try Int64.fetchAll(db, sql: """
                SELECT rowid FROM \(Self.ftsTable) WHERE \(Self.ftsTable) MATCH ? ORDER BY \(rankSQL) LIMIT ?
                """, arguments: [match, limit])
            guard !ids.isEmpty else { return [] }
            let keys = try Row.fetchAll(db, sql: """
                SELECT id, \(key.quotedDatabaseIdentifier) FROM \(Self.contentTable)
                WHERE id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ",")))
                """, arguments: StatementArguments(ids))
            var byID: [Int64: String] = [:]
            for row in keys { byID[row[0]] = row[1] }
            return ids.compactMap { byID[$0] }
        }
    }
}

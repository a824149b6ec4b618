import Foundation
import GRDB

/// Upserts records given as JSON Lines into one entity, a batch of lines per history transaction.
///
/// Each line is a JSON object whose keys are the entity's columns; it is inserted, or updates the record with the same
/// key (only the columns it names). An object with `"_delete": true` deletes the record with its key. A batch is
/// validated whole before it is written, so a malformed line stops the import with its line number: the batches
/// before it stay committed and nothing of its own batch is.
public struct RecordImporter: Sendable {
    /// What an import did.
    public struct Summary: Sendable, Hashable, Codable {
        /// The entity imported into.
        public var entity: String
        /// Records that did not exist before.
        public var inserted = 0
        /// Existing records whose columns the import changed.
        public var updated = 0
        /// Existing records that already had every value their line gives: not written, so no history records them.
        public var unchanged = 0
        /// Records deleted by `"_delete": true` lines.
        public var deleted = 0
        /// History transactions the import recorded (a batch that changed nothing records none).
        public var transactions = 0
        /// The token of the last transaction the import committed, if it committed any.
        public var token: HistoryToken?
        /// Lines read, blank ones included.
        public var lines = 0
    }

    /// Progress of a running import: lines and bytes read so far, and the input size when known.
    public struct Progress: Sendable {
        /// Lines read so far.
        public var lines: Int
        /// Bytes read so far.
        public var bytes: Int
        /// The input's size, when it is a file.
        public var totalBytes: Int?
    }

    /// The store written to.
    public let store: SpotliteStore
    /// The entity imported into.
    public let entity: EntityDescription
    /// The transaction author of the import's writes (nil: unattributed).
    public var author: String?
    /// The context name of the import's writes in history.
    public var contextName: String?
    /// Lines per history transaction.
    public var batchSize: Int

    /// Authors starting with this are Spotlite's own (`spotlite.indexer`, `spotlite.migration`): an import may not
    /// take them.
    public static let reservedAuthorPrefix = "spotlite."

    /// An importer into `entity` of `store`, writing `batchSize` lines per transaction as `author`.
    ///
    /// - Throws: ``SpotliteStoreError`` for an unknown entity, a batch size below 1 or a reserved author.
    public init(store: SpotliteStore, entity: String, author: String? = "importer", contextName: String? = "import",
                batchSize: Int = 1000) throws {
        guard let description = store.model.entity(named: entity) else {
            throw SpotliteStoreError.unknownEntity(entity, known: store.model.entities.map(\.name))
        }
        guard batchSize >= 1 else { throw SpotliteStoreError.invalidBatchSize(batchSize, of: .importLines) }
        if let author {
            // History is attributed to the author: an empty one reads as "no author" to nobody's benefit, and
            // Spotlite's own authors (the indexer, migrations) must only ever name Spotlite's own writes.
            guard !author.isEmpty, !author.hasPrefix(Self.reservedAuthorPrefix) else {
                throw SpotliteStoreError.invalidAuthor(author)
            }
        }
        self.store = store
        self.entity = description
        self.author = author
        self.contextName = contextName
        self.batchSize = batchSize
    }

    /// Imports the JSON Lines read from `handle` until its end.
    ///
    /// - Throws: ``SpotliteStoreError`` for a malformed or too long line (naming it; the batches before it stay committed,
    ///   nothing of its own batch is); ``SpotliteStoreError/readOnlyStore(operation:)``; SQLite's errors.
    public func run(from handle: FileHandle, totalBytes: Int? = nil,
                    progress: (@Sendable (Progress) -> Void)? = nil) throws -> Summary {
        let columns = try store.read { db in try db.columns(in: entity.name).map(\.name) }
        let known = Set(columns)
        var summary = Summary(entity: entity.name)
        var reader = LineReader(handle: handle)
        var batch: [PendingRecord] = []
        batch.reserveCapacity(min(batchSize, 10_000))
        var lineNumber = 0
        while let line = try nextLine(from: &reader, lineNumber: lineNumber + 1) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            batch.append(try parse(line, lineNumber: lineNumber, known: known))
            if batch.count == batchSize {
                try write(batch, into: &summary)
                batch.removeAll(keepingCapacity: true)
                progress?(Progress(lines: lineNumber, bytes: reader.bytesRead, totalBytes: totalBytes))
            }
        }
        if !batch.isEmpty { try write(batch, into: &summary) }
        summary.lines = lineNumber
        progress?(Progress(lines: lineNumber, bytes: reader.bytesRead, totalBytes: totalBytes))
        return summary
    }

    private func nextLine(from reader: inout LineReader, lineNumber: Int) throws -> [UInt8]? {
        do {
            return try reader.next()
        } catch let error as LineReader.LineTooLong {
            throw SpotliteStoreError.malformedLine(lineNumber, .tooLong(limitMiB: error.limit >> 20))
        }
    }

    private struct PendingRecord {
        var line: Int
        var key: DatabaseValue
        var delete: Bool
        var columns: [String]
        var values: [DatabaseValue]
    }

    private func parse(_ line: [UInt8], lineNumber: Int, known: Set<String>) throws -> PendingRecord {
        guard String(validating: line, as: UTF8.self) != nil else {
            throw SpotliteStoreError.malformedLine(lineNumber, .notUTF8)
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
        } catch {
            throw SpotliteStoreError.malformedLine(lineNumber, .notJSON(parserMessage: Self.reason(of: error)))
        }
        guard let record = object as? [String: Any] else {
            throw SpotliteStoreError.malformedLine(lineNumber, .notAnObject(found: Self.kind(of: object)))
        }
        if let literal = JSONIntegerRange.firstOutOfRange(in: line) {
            throw SpotliteStoreError.malformedLine(lineNumber, .integerOutOfRange(literal: literal))
        }
        var delete = false
        if let flag = record["_delete"] {
            guard let number = flag as? NSNumber, JSONNumberKind(number) == .boolean else {
                throw SpotliteStoreError.malformedLine(lineNumber, .deleteFlagNotBoolean)
            }
            delete = number.boolValue
        }
        guard let rawKey = record[entity.key], !(rawKey is NSNull) else {
            throw SpotliteStoreError.malformedLine(lineNumber, .missingKey(entity.key))
        }
        // value(of:) turns arrays and objects into JSON text, which is right for attributes, never for a key.
        guard rawKey is String || rawKey is NSNumber else {
            throw SpotliteStoreError.malformedLine(lineNumber, .keyOfWrongType(entity.key, expected: entity.keyType, found: Self.kind(of: rawKey)))
        }
        let key = try value(of: rawKey, column: entity.key, line: lineNumber)
        switch (entity.keyType, key.storage) {
        case (.text, .string), (.integer, .int64): break
        default:
            throw SpotliteStoreError.malformedLine(lineNumber, .keyOfWrongType(entity.key, expected: entity.keyType, found: nil))
        }
        var columns: [String] = []
        var values: [DatabaseValue] = []
        if !delete {
            for name in record.keys.sorted() where name != "_delete" {
                guard known.contains(name) else {
                    throw SpotliteStoreError.malformedLine(lineNumber, .unknownAttribute(name, entity: entity.name, known: known.sorted()))
                }
                columns.append(name)
                values.append(try value(of: record[name]!, column: name, line: lineNumber))
            }
        }
        return PendingRecord(line: lineNumber, key: key, delete: delete, columns: columns, values: values)
    }

    private func value(of json: Any, column: String, line: Int) throws -> DatabaseValue {
        switch json {
        case is NSNull: return .null
        case let string as String:
            // SQLite text handed over by GRDB ends at the first NUL: the rest would be lost without a word.
            guard !string.utf8.contains(0) else {
                throw SpotliteStoreError.malformedLine(line, .nulCharacter(column: column))
            }
            return string.databaseValue
        case let number as NSNumber:
            switch JSONNumberKind(number) {
            case .boolean: return (number.boolValue ? 1 : 0).databaseValue
            case .integer: return number.int64Value.databaseValue
            // -9223372036854775808 is the one integer whose magnitude no Int64 holds: JSONSerialization reads it
            // as a real, and it was stored as one. It is Int64.min exactly.
            case .real where number.doubleValue == -9_223_372_036_854_775_808.0: return Int64.min.databaseValue
            case .real: return number.doubleValue.databaseValue
            }
        case is [Any], is [String: Any]:
            let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self).databaseValue
        default:
            throw SpotliteStoreError.malformedLine(line, .unsupportedValue(column: column))
        }
    }

    private func write(_ batch: [PendingRecord], into summary: inout Summary) throws {
        let table = Identifier.quoted(entity.name)
        let keyColumn = Identifier.quoted(entity.key)
        let (counts, token) = try store.writeReturningToken(author: author, context: contextName) { db -> (Int, Int, Int, Int) in
            var inserted = 0, updated = 0, unchanged = 0, deleted = 0
            let exists = try db.cachedStatement(sql: "SELECT 1 FROM \(table) WHERE \(keyColumn) = ?")
            let delete = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(keyColumn) = ?")
            for record in batch {
                if record.delete {
                    try delete.execute(arguments: [record.key])
                    deleted += db.changesCount
                    continue
                }
                let found = try Bool.fetchOne(exists, arguments: [record.key]) ?? false
                // Column names come from the table, which another program may have created with any name.
                let columnList = record.columns.map(Identifier.quoted).joined(separator: ", ")
                let placeholders = Array(repeating: "?", count: record.columns.count).joined(separator: ", ")
                let setColumns = record.columns.filter { $0 != entity.key }
                let updates = setColumns.map { "\(Identifier.quoted($0)) = excluded.\(Identifier.quoted($0))" }
                // A line giving the values the record already has writes nothing (`IS NOT` compares as the history
                // triggers do, after the columns' type affinity): it is counted as unchanged, not updated.
                let differs = setColumns.map { "\(table).\(Identifier.quoted($0)) IS NOT excluded.\(Identifier.quoted($0))" }
                let conflict = updates.isEmpty ? "DO NOTHING"
                    : "DO UPDATE SET " + updates.joined(separator: ", ") + " WHERE " + differs.joined(separator: " OR ")
                let upsert = try db.cachedStatement(sql: "INSERT INTO \(table) (\(columnList)) VALUES (\(placeholders)) ON CONFLICT(\(keyColumn)) \(conflict)")
                do {
                    try upsert.execute(arguments: StatementArguments(record.values))
                } catch let error as DatabaseError {
                    throw SpotliteStoreError.malformedLine(record.line, .rejectedByDatabase(message: error.message ?? "\(error)"))
                }
                if !found {
                    inserted += 1
                } else if db.changesCount > 0 {
                    updated += 1
                } else {
                    unchanged += 1
                }
            }
            return (inserted, updated, unchanged, deleted)
        }
        summary.inserted += counts.0
        summary.updated += counts.1
        summary.unchanged += counts.2
        summary.deleted += counts.3
        // A batch that changed nothing (deletes of absent keys) records no transaction; and the token is this
        // batch's own, not the store's newest, which another writer may have moved meanwhile.
        if let token {
            summary.transactions += 1
            summary.token = token
        }
    }

    private static func kind(of value: Any) -> SpotliteStoreError.LineProblem.JSONKind {
        switch value {
        case is [Any]: return .array
        case is [String: Any]: return .object
        case is String: return .string
        case is NSNull: return .null
        default: return .numberOrBoolean
        }
    }

    private static func reason(of error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}

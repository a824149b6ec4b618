import Foundation
import GRDB
import SpotliteStore

/// Reads records from the store and turns them into attribute sets: the row's columns by default, or whatever the
/// ``IndexDocumentProvider`` decides.
struct IndexRecordReader {
    let schema: IndexSchema
    let provider: (any IndexDocumentProvider)?
    /// SQLite's default limit on host parameters is 999 in old builds; stay well under it.
    static let keysPerQuery = 500

    /// Whether a change can change a document: a change of an indexed entity, except an update of columns no field
    /// reads (unless a document provider decides documents: it may read anything).
    func indexes(_ change: HistoryChange) -> Bool {
        guard let entity = schema.entities[change.entity] else { return false }
        if change.changeType == .update, provider == nil, let columns = change.updatedColumns,
           entity.relevantColumns.isDisjoint(with: columns) {
            return false
        }
        return true
    }

    /// The current documents of `records`, in the same order: nil for a record deleted since (or left out by the
    /// provider), whose document is to be deleted.
    ///
    /// Rows answer by their document's id term (``DocumentIdentity``), byte for byte (see ``ExactText``): SQLite
    /// compares a key with the column's affinity, so the row found may hold the key in the column's type.
    func documents(for records: [RecordID], in db: Database) throws -> [RecordDocument?] {
        guard !records.isEmpty else { return [] }
        var found: [ExactText: RecordDocument] = [:]
        for (name, entityRecords) in Dictionary(grouping: records, by: \.entity) {
            let entity = try schema.entity(named: name)
            let table = name.quotedDatabaseIdentifier
            let keyColumn = entity.key.quotedDatabaseIdentifier
            let selection = try selection(of: entity, in: db)
            for start in stride(from: 0, to: entityRecords.count, by: Self.keysPerQuery) {
                let chunk = entityRecords[start..<min(start + Self.keysPerQuery, entityRecords.count)]
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(db, sql: "SELECT \(selection) FROM \(table) WHERE \(keyColumn) IN (\(placeholders))",
                                            arguments: StatementArguments(chunk.map(\.key)))
                for row in rows {
                    let key: DatabaseValue = row[entity.key]
                    if let attributes = try attributeSet(entity: entity, key: key, row: row, in: db) {
                        let idTerm = DocumentIdentity.term(entity: name, key: key)
                        found[ExactText(idTerm)] = RecordDocument(idTerm: idTerm, entity: entity, attributes: attributes)
                    }
                }
            }
        }
        return records.map { found[ExactText(DocumentIdentity.term(of: $0))] }
    }

    /// The records the provider says depend on the changed ones, other than the changed ones themselves, each once
    /// (byte for byte, as ``SpotliteStore/RecordID`` compares).
    func dependents(of changed: [RecordID], in db: Database) throws -> [RecordID] {
        guard let provider, !changed.isEmpty else { return [] }
        var seen = Set(changed)
        var dependents: [RecordID] = []
        for (entity, records) in Dictionary(grouping: changed, by: \.entity).sorted(by: { $0.key < $1.key }) {
            for dependent in try provider.recordsDepending(on: entity, keys: records.map(\.key), in: db)
            where schema.entities[dependent.entity] != nil && seen.insert(dependent).inserted {
                dependents.append(dependent)
            }
        }
        return dependents
    }

    /// The select list reading `entity`'s rows: its text read whole (``IndexSchema/Entity/rowSelection(in:)``), or
    /// every column as stored for a document provider, which decides what to read.
    func selection(of entity: IndexSchema.Entity, in db: Database) throws -> String {
        provider == nil ? try entity.rowSelection(in: db) : "*"
    }

    /// The attribute set of one row, or nil when the provider leaves the record out.
    func attributeSet(entity: IndexSchema.Entity, key: DatabaseValue, row: Row, in db: Database) throws -> AttributeSet? {
        if let provider {
            return try provider.attributeSet(for: IndexRecord(entity: entity.name, key: key, row: row), in: db)
        }
        return AttributeSet(row: row, fields: entity.fields)
    }
}

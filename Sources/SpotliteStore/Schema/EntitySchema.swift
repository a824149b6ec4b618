import GRDB

/// Creates the table of an entity when missing, or checks that an existing one fits the entity.
package enum EntitySchema {
    /// A column of an existing table, as SQLite describes it.
    struct Column {
        var name: String
        var declaredType: String
    }

    /// Makes sure the table exists and fits; returns all of its columns (the model's and any extra ones),
    /// in table order, since history tracks every column.
    static func prepare(_ entity: EntityDescription, in db: Database, creatingTable: Bool) throws -> [Column] {
        let kind = try String.fetchOne(
            db, sql: "SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')",
            arguments: [entity.name])
        switch kind {
        case nil:
            guard creatingTable else { throw SpotliteStoreError.missingTable(entity.name) }
            try db.execute(sql: createTableSQL(entity))
        case "table":
            break
        case let kind?:
            throw SpotliteStoreError.notATable(entity.name, kind: kind)
        }
        let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(Identifier.quoted(entity.name)))").map {
            Column(name: $0["name"], declaredType: $0["type"] ?? "")
        }
        try check(entity, columns: columns, in: db)
        return columns
    }

    package static func createTableSQL(_ entity: EntityDescription) -> String {
        let definitions = entity.columns.map { column -> String in
            let name = Identifier.quoted(column.name)
            guard column.name == entity.key else {
                return column.type.declaredSQLType.isEmpty ? name : "\(name) \(column.type.declaredSQLType)"
            }
            // An INTEGER PRIMARY KEY is the rowid: NULL there means "assign the next one", so no NOT NULL.
            return entity.keyType == .integer ? "\(name) INTEGER PRIMARY KEY" : "\(name) TEXT PRIMARY KEY NOT NULL"
        }
        return "CREATE TABLE \(Identifier.quoted(entity.name)) (\(definitions.joined(separator: ", ")))"
    }

    private static func check(_ entity: EntityDescription, columns: [Column], in db: Database) throws {
        let byName = Dictionary(columns.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var missing: [String] = []
        var mismatched: [SpotliteStoreError.ColumnMismatch] = []
        for expected in entity.columns {
            guard let column = byName[expected.name.lowercased()] else {
                missing.append(expected.name)
                continue
            }
            if !expected.type.accepts(ColumnAffinity(declaredType: column.declaredType)) {
                mismatched.append(.init(column: expected.name, expected: expected.type, declaredType: column.declaredType))
            }
        }
        guard missing.isEmpty, mismatched.isEmpty else {
            throw SpotliteStoreError.schemaMismatch(table: entity.name, missingColumns: missing, mismatchedColumns: mismatched)
        }
        guard try isUnique(column: entity.key, table: entity.name, in: db) else {
            throw SpotliteStoreError.keyNotUnique(table: entity.name, column: entity.key)
        }
    }

    private static func isUnique(column: String, table: String, in db: Database) throws -> Bool {
        let primaryKey = try Row.fetchAll(db, sql: "PRAGMA table_info(\(Identifier.quoted(table)))")
            .filter { ($0["pk"] as Int) > 0 }
            .map { ($0["name"] as String).lowercased() }
        if primaryKey == [column.lowercased()] { return true }
        for index in try Row.fetchAll(db, sql: "PRAGMA index_list(\(Identifier.quoted(table)))")
        where (index["unique"] as Int) == 1 && (index["partial"] as Int? ?? 0) == 0 {
            let indexColumns = try Row.fetchAll(db, sql: "PRAGMA index_info(\(Identifier.quoted(index["name"] as String)))")
                .map { ($0["name"] as String?)?.lowercased() }
            if indexColumns == [column.lowercased()] { return true }
        }
        return false
    }
}

import GRDB

/// Applies derived schema changes with SQLite's `ALTER TABLE`. Creating and adding are skipped when their table or
/// column already exists (a handle opened with the next model may have created it), dropping when it is gone.
enum SchemaChanger {
    static func apply(_ changes: [SchemaChange], in db: Database) throws {
        for change in changes {
            switch change {
            case let .renameTable(from, to):
                try db.execute(sql: "ALTER TABLE \(Identifier.quoted(from)) RENAME TO \(Identifier.quoted(to))")
            case let .renameColumn(table, from, to):
                try db.execute(sql: "ALTER TABLE \(Identifier.quoted(table)) RENAME COLUMN \(Identifier.quoted(from)) TO \(Identifier.quoted(to))")
            case let .dropColumn(table, column):
                guard try hasColumn(column, in: table, db) else { continue }
                try db.execute(sql: "ALTER TABLE \(Identifier.quoted(table)) DROP COLUMN \(Identifier.quoted(column))")
            case let .addColumn(table, column):
                guard try !hasColumn(column.name, in: table, db) else { continue }
                let type = column.type.declaredSQLType
                try db.execute(sql: "ALTER TABLE \(Identifier.quoted(table)) ADD COLUMN \(Identifier.quoted(column.name))\(type.isEmpty ? "" : " " + type)")
            case let .createTable(entity):
                guard try !tableExists(entity.name, db) else { continue }
                try db.execute(sql: EntitySchema.createTableSQL(entity))
            case let .dropTable(table):
                try db.execute(sql: "DROP TABLE IF EXISTS \(Identifier.quoted(table))")
            }
        }
    }

    private static func tableExists(_ table: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE)",
            arguments: [table]) ?? false
    }

    private static func hasColumn(_ column: String, in table: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_table_info(?) WHERE name = ? COLLATE NOCASE)",
            arguments: [table, column]) ?? false
    }
}

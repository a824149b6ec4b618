import GRDB

extension IndexSchema.Entity {
    /// The select list that reads this entity's rows for indexing: every column (`*`), preceded by the text and
    /// keyword columns read as their bytes. SQLite text may hold a NUL (`'nul ' || char(0) || ' inside'` from the
    /// sqlite3 shell), and GRDB hands text over as a C string, which ends there: the words after it were never
    /// indexed. (SQLite's `replace()` cannot take the NUL out: it reads a NUL pattern as an empty one.) The bytes
    /// become text in ``AttributeSet/init(row:fields:)``. Numbers and NULLs are read as they are, and so is the key,
    /// whose bytes are the record's identity. A column named twice is read from its first occurrence. Fields that
    /// are no column of the table (`columns`, as the store has it) are left to `*`.
    func rowSelection(columns: Set<String>) -> String {
        let whole = fields.filter {
            ($0.type == .text || $0.type == .keyword) && $0.name != key && columns.contains($0.name)
        }.map { field in
            let column = field.name.quotedDatabaseIdentifier
            return "CASE WHEN typeof(\(column)) IN ('text', 'blob') THEN CAST(\(column) AS BLOB) ELSE \(column) END AS \(column)"
        }
        return (whole + ["*"]).joined(separator: ", ")
    }

    /// ``rowSelection(columns:)`` for this entity's table in `db`.
    func rowSelection(in db: Database) throws -> String {
        rowSelection(columns: Set(try db.columns(in: name).map(\.name)))
    }
}

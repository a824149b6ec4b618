import GRDB

/// The triggers that record every committed row change of a tracked table, whoever the writer is.
///
/// Each change row takes its token from `spotlite_current`, which only an attributed write through
/// ``SpotliteStore`` sets (and resets before committing). Writes by other programs therefore leave rows with a
/// NULL token and a timestamp, which Spotlite later seals into an unattributed transaction.
/// Non-temporary triggers may only name tables of their own schema, which is why the token lives in a table.
enum HistoryTriggers {
    struct Definition: Equatable {
        var name: String
        var sql: String
    }

    /// Seconds since 1970, the unit of all timestamps in the history tables.
    static let nowSQL = "(julianday('now') - 2440587.5) * 86400.0"

    static func definitions(for entity: EntityDescription, columns: [String]) -> [Definition] {
        let table = Identifier.quoted(entity.name)
        let entityLiteral = Identifier.literal(entity.name)
        let key = Identifier.quoted(entity.key)
        // Always exactly one row, even if spotlite_current were emptied, so a change is never silently dropped.
        // A left join rather than a scalar subquery in a subquery: SQLite runs it with a smaller trigger frame
        // (fewer instructions a recorded row; docs/benchmarks.md, figure 1).
        let source = "FROM (SELECT 1) AS one LEFT JOIN spotlite_current AS current ON current.id = 1"
        // The timestamp only matters for changes without a token (foreign writes): skip it otherwise.
        let ts = "CASE WHEN current.token IS NULL THEN \(nowSQL) END"

        let tombstoneTerms = entity.preserveOnDelete.map { name -> String in
            let value = "OLD.\(Identifier.quoted(name))"
            // JSON cannot hold blobs; a blob stored in a column of another type would otherwise abort the delete.
            return "\(Identifier.literal(name)), CASE WHEN typeof(\(value)) = 'blob' THEN hex(\(value)) ELSE \(value) END"
        }
        let tombstone = "json_object(\(tombstoneTerms.joined(separator: ", ")))"

        let insertChange = """
            INSERT INTO spotlite_change (token, entity, "key", type, ts) \
            SELECT current.token, \(entityLiteral), NEW.\(key), \(HistoryChangeType.insert.rawValue), \(ts) \(source);
            """
        let deleteChange = """
            INSERT INTO spotlite_change (token, entity, "key", type, tombstone, ts) \
            SELECT current.token, \(entityLiteral), OLD.\(key), \(HistoryChangeType.delete.rawValue), \(tombstone), \(ts) \(source);
            """
        let changedTest = columns.map { "NEW.\(Identifier.quoted($0)) IS NOT OLD.\(Identifier.quoted($0))" }
        let changedList = columns.map { column -> String in
            let quoted = Identifier.quoted(column)
            return "CASE WHEN NEW.\(quoted) IS NOT OLD.\(quoted) THEN \(Identifier.literal(jsonString(column) + ",")) ELSE '' END"
        }
        let updateChange = """
            INSERT INTO spotlite_change (token, entity, "key", type, columns, ts) \
            SELECT current.token, \(entityLiteral), NEW.\(key), \(HistoryChangeType.update.rawValue), \
            '[' || rtrim(\(changedList.joined(separator: " || ")), ',') || ']', \(ts) \(source);
            """

        func name(_ suffix: String) -> String { "spotlite_\(entity.name)_\(suffix)" }
        return [
            Definition(
                name: name("insert"),
                sql: "CREATE TRIGGER \(Identifier.quoted(name("insert"))) AFTER INSERT ON \(table) FOR EACH ROW BEGIN \(insertChange) END"),
            Definition(
                name: name("update"),
                sql: """
                    CREATE TRIGGER \(Identifier.quoted(name("update"))) AFTER UPDATE ON \(table) FOR EACH ROW \
                    WHEN NEW.\(key) IS OLD.\(key) AND (\(changedTest.joined(separator: " OR "))) BEGIN \(updateChange) END
                    """),
            // A new key is another row for consumers: the old one is gone (with its tombstone), a new one appears.
            Definition(
                name: name("rekey"),
                sql: """
                    CREATE TRIGGER \(Identifier.quoted(name("rekey"))) AFTER UPDATE ON \(table) FOR EACH ROW \
                    WHEN NEW.\(key) IS NOT OLD.\(key) BEGIN \(deleteChange) \(insertChange) END
                    """),
            Definition(
                name: name("delete"),
                sql: "CREATE TRIGGER \(Identifier.quoted(name("delete"))) AFTER DELETE ON \(table) FOR EACH ROW BEGIN \(deleteChange) END"),
        ]
    }

    /// Creates the entity's triggers, replacing those whose SQL differs (the table gained columns, the
    /// tombstone columns changed, or Spotlite generates them differently now).
    ///
    /// - Returns: what broke capture, for a ``CaptureGap``: triggers that were missing, or that hung on another
    ///   table (a renamed one). A trigger merely regenerated is no break: it recorded every row change all along.
    @discardableResult
    static func install(for entity: EntityDescription, columns: [String], in db: Database) throws -> [String] {
        var missing: [String] = [], elsewhere: [String] = []
        for definition in definitions(for: entity, columns: columns) {
            let existing = try Row.fetchOne(
                db, sql: "SELECT sql, tbl_name FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                arguments: [definition.name])
            let existingSQL = existing?["sql"] as String?
            if existingSQL == definition.sql { continue }
            if let existing {
                let table: String = existing["tbl_name"]
                if table.lowercased() != entity.name.lowercased() { elsewhere.append("\(definition.name) on \(table)") }
                try db.execute(sql: "DROP TRIGGER \(Identifier.quoted(definition.name))")
            } else {
                missing.append(definition.name)
            }
            try db.execute(sql: definition.sql)
        }
        var problems: [String] = []
        if !missing.isEmpty {
            problems.append("the triggers \(missing.joined(separator: ", ")) of \(entity.name) were missing: dropped, or the table was re-created by another program")
        }
        if !elsewhere.isEmpty {
            problems.append("the triggers \(elsewhere.joined(separator: ", ")) hung on another table: \(entity.name) was renamed by another program")
        }
        return problems
    }

    /// Whether the entity's triggers are in place exactly as this version generates them.
    static func areInstalled(for entity: EntityDescription, columns: [String], in db: Database) throws -> Bool {
        for definition in definitions(for: entity, columns: columns) {
            let existing = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", arguments: [definition.name])
            if existing != definition.sql { return false }
        }
        return true
    }

    /// A JSON string literal for a column name.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += "\\u" + fourHexDigits(scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

private func fourHexDigits(_ value: UInt32) -> String {
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}

/// One change to a store's tables, derived by a ``MigrationStage`` from its two model versions.
public enum SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// `ALTER TABLE from RENAME TO to`: the rows stay.
    case renameTable(from: String, to: String)
    /// `ALTER TABLE table RENAME COLUMN from TO to`: the values stay.
    case renameColumn(table: String, from: String, to: String)
    /// `ALTER TABLE table DROP COLUMN column`: the values are gone (history keeps what it recorded).
    case dropColumn(table: String, column: String)
    /// `ALTER TABLE table ADD COLUMN`: existing rows get NULL.
    case addColumn(table: String, column: AttributeDescription)
    /// `CREATE TABLE` for a new entity.
    case createTable(EntityDescription)
    /// `DROP TABLE` for an entity the next version does not have: its rows are gone.
    case dropTable(String)

    /// The change in words, as `spotlite migrate status` prints it.
    public var description: String {
        switch self {
        case let .renameTable(from, to): "rename table \(from) to \(to)"
        case let .renameColumn(table, from, to): "rename column \(table).\(from) to \(to)"
        case let .dropColumn(table, column): "drop column \(table).\(column)"
        case let .addColumn(table, column): "add column \(table).\(column.name) (\(column.type.rawValue))"
        case let .createTable(entity): "create table \(entity.name)"
        case let .dropTable(table): "drop table \(table)"
        }
    }
}

/// The storage type of an entity's attribute, mapped onto SQLite column types.
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Text (`TEXT` affinity).
    case text
    /// Whole numbers (`INTEGER` affinity).
    case integer
    /// Floating-point numbers (`REAL` affinity).
    case real
    /// Bytes (`BLOB`), never kept in tombstones.
    case blob
    /// No declared type: SQLite keeps every value with the type it was written with.
    case any

    /// The type declared for the column when Spotlite creates the table.
    var declaredSQLType: String {
        switch self {
        case .text: "TEXT"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .blob: "BLOB"
        case .any: ""
        }
    }

    /// Whether an existing column of the given affinity stores values the way this attribute expects.
    func accepts(_ affinity: ColumnAffinity) -> Bool {
        switch self {
        case .text: affinity == .text
        case .integer: affinity == .integer || affinity == .numeric
        case .real: affinity == .real || affinity == .numeric
        case .blob: affinity == .blob
        case .any: true
        }
    }
}

/// The type of an entity's key column.
public enum KeyType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A text key.
    case text
    /// An integer key.
    case integer

    var attributeType: AttributeType {
        switch self {
        case .text: .text
        case .integer: .integer
        }
    }
}

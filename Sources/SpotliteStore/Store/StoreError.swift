import Foundation

/// A problem with opening a store, its model or its tables.
public enum StoreError: Error, Hashable, CustomStringConvertible, LocalizedError {
    /// The folder that should hold the SQLite file does not exist.
    case missingDirectory(path: String)
    /// A name that is not an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
    case invalidIdentifier(String, role: String)
    /// A name Spotlite or SQLite keeps for itself: starting with `spotlite_` or `sqlite_`, or (for a column) `rowid`,
    /// `oid`, `_rowid_` or the importer's `_delete`.
    case reservedIdentifier(String, role: String)
    /// Two names that SQLite would treat as the same (names ignore case).
    case duplicateName(String, scope: String)
    /// An entity lists its key among its attributes with another type.
    case conflictingKeyType(entity: String, key: String, keyType: KeyType, attributeType: AttributeType)
    /// A column named by the model (for example in `preserve_on_delete`) that the entity does not have.
    case unknownColumn(String, entity: String, role: String)
    /// A blob column in `preserve_on_delete`: tombstones are JSON, which cannot hold blobs.
    case blobInTombstone(entity: String, column: String)
    /// An existing table does not fit its entity: columns are missing or have another type.
    case schemaMismatch(table: String, missingColumns: [String], mismatchedColumns: [ColumnMismatch])
    /// The key column of an existing table is neither its primary key nor covered by a unique index.
    case keyNotUnique(table: String, column: String)
    /// An entity names something that is not an ordinary table (a view, for instance).
    case notATable(String, kind: String)
    /// A read-only store was opened on a file where a table of the model does not exist.
    case missingTable(String)
    /// A read-only store was asked to open a file that does not exist.
    case missingStore(path: String)
    /// The file was never opened by a writable Spotlite store, so it has no history tables.
    case notASpotliteStore(path: String)
    /// The history schema was written by a newer Spotlite than this one.
    case unsupportedHistorySchema(found: Int, supported: Int)
    /// A write was attempted through a store opened with `StoreOptions(readOnly: true)`.
    case readOnlyStore(operation: String)

    /// A column of an existing table whose declared type does not fit the model.
    public struct ColumnMismatch: Sendable, Hashable {
        /// The column's name.
        public var column: String
        /// The type the model gives it.
        public var expected: AttributeType
        /// The type the table declares (empty for none).
        public var declaredType: String
    }

    /// The problem and the way out, in one line.
    public var description: String {
        switch self {
        case .missingDirectory(let path):
            return "the folder \(path) does not exist; create it (mkdir -p \(path)) or choose a store path in an existing folder"
        case .invalidIdentifier(let name, let role):
            return "\"\(name)\" is not a valid \(role); use at most \(Identifier.maximumLength) letters, digits and underscores, not starting with a digit"
        case .reservedIdentifier(let name, let role):
            if let prefix = Identifier.reservedPrefixes.first(where: { name.lowercased().hasPrefix($0) }) {
                return "\"\(name)\" is not allowed as \(role): names starting with \(prefix) are reserved for Spotlite and SQLite; rename it"
            }
            return "\"\(name)\" is not allowed as \(role): it is reserved by SQLite and the importer; rename it"
        case .duplicateName(let name, let scope):
            return "\"\(name)\" appears twice in \(scope) (SQLite names ignore case); give each a distinct name"
        case .conflictingKeyType(let entity, let key, let keyType, let attributeType):
            return "entity \(entity) declares its key \(key) as \(keyType.rawValue) but lists it as an attribute of type \(attributeType.rawValue); use the same type in both places"
        case .unknownColumn(let column, let entity, let role):
            return "\(role) of entity \(entity) names \"\(column)\", which is neither its key nor one of its attributes; add the attribute or remove the name"
        case .blobInTombstone(let entity, let column):
            return "entity \(entity) lists the blob column \(column) in preserve_on_delete, but tombstones cannot hold blobs; remove it from preserve_on_delete"
        case .schemaMismatch(let table, let missing, let mismatched):
            var problems: [String] = []
            if !missing.isEmpty {
                problems.append("missing columns \(missing.joined(separator: ", "))")
            }
            for mismatch in mismatched {
                let declared = mismatch.declaredType.isEmpty ? "no type" : mismatch.declaredType
                problems.append("column \(mismatch.column) is declared \(declared) but the model says \(mismatch.expected.rawValue)")
            }
            return "table \(table) does not fit the model: \(problems.joined(separator: "; ")); migrate the table (ALTER TABLE) or change the model to match it"
        case .keyNotUnique(let table, let column):
            return "the key column \(column) of table \(table) is neither its primary key nor covered by a unique index; add one (CREATE UNIQUE INDEX ON \(table)(\(column))) or choose another key"
        case .notATable(let name, let kind):
            return "\(name) is a \(kind), not a table; entities must be ordinary tables"
        case .missingTable(let name):
            return "table \(name) does not exist and a read-only store cannot create it; open the store once without readOnly"
        case .missingStore(let path):
            return "there is no store at \(path); check the path, or open it once without readOnly to create it"
        case .notASpotliteStore(let path):
            return "\(path) has no Spotlite history tables; open it once with a writable store to set them up"
        case .unsupportedHistorySchema(let found, let supported):
            return "the store's history schema is version \(found) but this Spotlite supports up to \(supported); upgrade Spotlite"
        case .readOnlyStore(let operation):
            return "cannot \(operation): the store was opened read-only; open it without StoreOptions.readOnly to write"
        }
    }

    /// The same as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

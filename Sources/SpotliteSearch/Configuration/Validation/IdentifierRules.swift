/// Entity and column names become SQLite table and column names and Xapian term prefixes, so they are held to a
/// strict identifier syntax and kept clear of names the store and the importer use themselves.
package enum IdentifierRules {
    /// Long enough for any sensible name, short enough to keep Xapian terms under their 245-byte limit.
    package static let maximumLength = 64

    /// Prefixes of tables and columns that belong to Spotlite's own bookkeeping or to SQLite; compared ignoring
    /// case, as SQLite compares names.
    package static let reservedPrefixes = ["spotlite_", "sqlite_"]

    /// Column names with a meaning of their own: SQLite's implicit row id, and the importer's delete marker.
    package static let reservedColumnNames = ["rowid", "oid", "_rowid_", "_delete"]

    /// Why `name` cannot be an entity name, or nil when it can.
    package static func problemWithEntityName(_ name: String) -> String? {
        syntaxProblem(name) ?? reservedPrefixProblem(name)
    }

    /// Why `name` cannot be a column (key or field) name, or nil when it can.
    package static func problemWithColumnName(_ name: String) -> String? {
        if let problem = syntaxProblem(name) ?? reservedPrefixProblem(name) {
            return problem
        }
        if reservedColumnNames.contains(name.lowercased()) {
            return "expected a column name other than " + reservedColumnNames.joined(separator: ", ")
                + " (reserved by SQLite and the importer); found \(ConfigurationKeyPath.quoted(name)); rename the column"
        }
        return nil
    }

    package static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= maximumLength else { return false }
        return isIdentifierStart(first) && name.unicodeScalars.allSatisfy { isIdentifierStart($0) || ("0"..."9").contains($0) }
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || scalar == "_"
    }

    private static func syntaxProblem(_ name: String) -> String? {
        isIdentifier(name) ? nil : "expected \(Expectation.identifier); found \(ConfigurationKeyPath.quoted(name))"
    }

    private static func reservedPrefixProblem(_ name: String) -> String? {
        let lowered = name.lowercased()
        guard let prefix = reservedPrefixes.first(where: { lowered.hasPrefix($0) }) else { return nil }
        return "expected a name not starting with \(prefix) (reserved for Spotlite and SQLite); found "
            + "\(ConfigurationKeyPath.quoted(name)); rename it"
    }
}

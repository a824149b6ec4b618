import Foundation

/// The one set of rules for the names Spotlite puts into generated SQL and into Xapian term prefixes: entity names
/// become tables, keys and attributes become columns. The store's model, the configuration file and the model file
/// are all checked against these rules, so a name one accepts the others accept too.
package enum Identifier {
    /// Long enough for any sensible name, short enough to keep Xapian terms under their 245-byte limit.
    package static let maximumLength = 64

    /// Prefixes of tables and columns that belong to Spotlite's own bookkeeping or to SQLite; compared ignoring
    /// case, as SQLite compares names.
    package static let reservedPrefixes = ["spotlite_", "sqlite_"]

    /// Column names with a meaning of their own: SQLite's implicit row id, and the importer's delete marker.
    package static let reservedColumnNames = ["rowid", "oid", "_rowid_", "_delete"]

    /// What a name becomes.
    package enum Kind: Sendable {
        /// A table: an entity name.
        case table
        /// A column: a key or an attribute (a field).
        case column
    }

    /// Why a name cannot be used.
    package enum Problem: Sendable, Equatable {
        /// Not a letter or _ followed by letters, digits or _, or longer than ``Identifier/maximumLength``.
        case syntax
        /// Starts with one of ``Identifier/reservedPrefixes`` (the one given, as written there).
        case reservedPrefix(String)
        /// One of ``Identifier/reservedColumnNames`` (columns only).
        case reservedColumnName
    }

    /// Whether `name` has the identifier syntax: a letter or _ followed by letters, digits or _, ASCII only, at
    /// most ``maximumLength`` characters.
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= maximumLength else { return false }
        func isLetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_" }
        return isLetter(first) && name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }

    /// Why `name` cannot be a `kind` name, or nil when it can.
    package static func problem(with name: String, as kind: Kind) -> Problem? {
        guard isValid(name) else { return .syntax }
        let lowered = name.lowercased()
        if let prefix = reservedPrefixes.first(where: { lowered.hasPrefix($0) }) { return .reservedPrefix(prefix) }
        if kind == .column, reservedColumnNames.contains(lowered) { return .reservedColumnName }
        return nil
    }

    /// Throws when `name` cannot be a `kind` name; `role` says what the name is, for the message.
    package static func validate(_ name: String, as kind: Kind, role: SpotliteStoreError.NameRole) throws(SpotliteStoreError) {
        switch problem(with: name, as: kind) {
        case nil: return
        case .syntax: throw .invalidIdentifier(name, role: role)
        case .reservedPrefix, .reservedColumnName: throw .reservedIdentifier(name, role: role)
        }
    }

    /// A double-quoted SQL identifier, safe for any name.
    package static func quoted(_ name: String) -> String {
        doubling("\"", in: name)
    }

    /// A single-quoted SQL string literal.
    package static func literal(_ text: String) -> String {
        doubling("'", in: text)
    }

    /// `text` between two `quote`s, each `quote` inside doubled. Scalar by scalar: `replacingOccurrences` compares
    /// Characters, and a quote followed by a combining mark is one Character that is not a quote, so it would stay
    /// single and end the literal early (SQLite reads bytes). Names of columns and indexes created by other programs
    /// reach these functions.
    private static func doubling(_ quote: Unicode.Scalar, in text: String) -> String {
        var out = String.UnicodeScalarView()
        out.append(quote)
        for scalar in text.unicodeScalars {
            if scalar == quote { out.append(quote) }
            out.append(scalar)
        }
        out.append(quote)
        return String(out)
    }
}

import Foundation

/// Rules for the names Spotlite puts into generated SQL.
enum Identifier {
    static let reservedPrefix = "spotlite_"

    static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func isLetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_" }
        return isLetter(first) && name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }

    /// Table names may not use the reserved prefix; column names may (they cannot collide with Spotlite's tables).
    static func validate(_ name: String, role: String, allowsReservedPrefix: Bool = false) throws(StoreError) {
        guard isValid(name) else { throw .invalidIdentifier(name, role: role) }
        if !allowsReservedPrefix, name.lowercased().hasPrefix(reservedPrefix) {
            throw .reservedIdentifier(name, role: role)
        }
    }

    /// A double-quoted SQL identifier, safe for any name.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A single-quoted SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

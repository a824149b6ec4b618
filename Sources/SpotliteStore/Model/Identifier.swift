import Foundation

/// Rules for the names Spotlite puts into generated SQL.
package enum Identifier {
    package static let reservedPrefix = "spotlite_"

    package static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func isLetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_" }
        return isLetter(first) && name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }

    /// Table names may not use the reserved prefix; column names may (they cannot collide with Spotlite's tables).
    package static func validate(_ name: String, role: String, allowsReservedPrefix: Bool = false) throws(StoreError) {
        guard isValid(name) else { throw .invalidIdentifier(name, role: role) }
        if !allowsReservedPrefix, name.lowercased().hasPrefix(reservedPrefix) {
            throw .reservedIdentifier(name, role: role)
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

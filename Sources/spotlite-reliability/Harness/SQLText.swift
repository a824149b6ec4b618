/// SQL literals for the scripts the plain `sqlite3` writers run.
enum SQLText {
    /// A single-quoted string literal. Quotes are doubled scalar by scalar: comparing Characters would miss a quote
    /// that a combining mark follows, and SQLite reads bytes, not grapheme clusters.
    static func literal(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" { out += "'" }
            out.unicodeScalars.append(scalar)
        }
        return out + "'"
    }
}

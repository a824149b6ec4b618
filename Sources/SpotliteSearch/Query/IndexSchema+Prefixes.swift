/// Field prefixes written in a query (`section:utils`), checked against the schema before Xapian sees them.
extension IndexSchema {
    /// Why a `FIELD:VALUE` word of `query` (outside double quotes) would not be read as meant: Xapian's prefixes are
    /// case-sensitive, so `Section:utils` silently searched for the words "section" and "utils". Nil when every
    /// such word names a field as written, or names none whatever its case (`std::string`, `http://…`).
    func prefixProblem(in query: String) -> String? {
        guard query.contains(":") else { return nil }
        var inQuotes = false
        for word in query.split(whereSeparator: \.isWhitespace) {
            let quotes = word.count(where: { $0 == "\"" })
            defer { if quotes % 2 == 1 { inQuotes.toggle() } }
            guard !inQuotes else { continue }
            let text = word.drop(while: { "+-(".contains($0) })
            guard let colon = text.firstIndex(of: ":"), colon > text.startIndex,
                  text.index(after: colon) < text.endIndex else { continue }
            let name = String(text[..<colon])
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
                  !isQueryPrefix(name) else { continue }
            let lowered = name.lowercased()
            if lowered != name, isQueryPrefix(lowered) {
                let value = text[text.index(after: colon)...]
                return "\(name): is no field (field names are case-sensitive, and Xapian would search the words); write \(lowered):\(value)"
            }
        }
        return nil
    }

    /// Whether `name` is a prefix queries take: the entity filter, or a field's.
    private func isQueryPrefix(_ name: String) -> Bool {
        name == Self.entityQueryPrefix || entities.values.contains { $0.fields.contains { $0.queryPrefix == name } }
    }
}

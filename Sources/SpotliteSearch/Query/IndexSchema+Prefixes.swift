/// Field prefixes written in a query (`section:utils`), checked against the schema before Xapian sees them.
extension IndexSchema {
    /// Why a `FIELD:VALUE` word of `query` (outside double quotes) would not be read as meant: Xapian's prefixes are
    /// case-sensitive, so `Section:utils` silently searched for the words "section" and "utils", and so did
    /// `summary:editor` for a text field without a prefix of its own. Nil when every such word names a query prefix
    /// as written, or names neither a prefix nor a field whatever its case (`std::string`, `http://…`).
    func prefixProblem(in query: String) -> String? {
        prefixProblem(in: QueryText(query))
    }

    /// The same, for text already read.
    func prefixProblem(in query: QueryText) -> String? {
        guard query.text.contains(":") else { return nil }
        for word in query.wordsOutsidePhrases {
            let text = word.text.drop(while: { "+-(".contains($0) })
            guard let colon = text.firstIndex(of: ":"), colon > text.startIndex,
                  text.index(after: colon) < text.endIndex else { continue }
            let name = String(text[..<colon])
            guard QueryText.isFieldName(name[...]), !isQueryPrefix(name) else { continue }
            var value = text[text.index(after: colon)...]
            if value.first == "\"", let close = query.text[query.text.index(after: value.startIndex)...].firstIndex(of: "\"") {
                value = query.text[value.startIndex...close]  // a quoted phrase spans the words that follow
            }
            let lowered = name.lowercased()
            if lowered != name, isQueryPrefix(lowered) {
                return "\(name): is no field (field names are case-sensitive, and Xapian would search the words); write \(lowered):\(value)"
            }
            if let problem = unprefixedFieldProblem(fieldsByName[name] != nil ? name : lowered, written: name, value: value) {
                return problem
            }
        }
        return nil
    }

    /// Why `name:value` cannot search the field `name` when the field exists but queries do not take its name as a
    /// prefix (Xapian would search the words, or the phrase "name value"): nil when no field has that name.
    private func unprefixedFieldProblem(_ name: String, written: String, value: Substring) -> String? {
        let fields = entities.values.flatMap(\.fields).filter { $0.name == name }
        guard let field = fields.first else { return nil }
        if let prefix = fields.lazy.compactMap(\.queryPrefix).first {
            return "\(written): is not how queries name the field \(name); its prefix is \(prefix): write \(prefix):\(value)"
        }
        switch field.type {
        case .stored:
            return "\(written): names a stored field, which is returned with hits but not searched; make \(name) a keyword, number or date field in the configuration to search it"
        default:
            return "\(written): cannot search the text field \(name) on its own: it has no prefix (Xapian would search the words); search \(value) in every field, or give \(name) prefix = \"\(name)\" in the configuration"
        }
    }

    /// Whether `name` is a prefix queries take: the entity filter, or a field's.
    private func isQueryPrefix(_ name: String) -> Bool {
        name == Self.entityQueryPrefix || entities.values.contains { $0.fields.contains { $0.queryPrefix == name } }
    }
}

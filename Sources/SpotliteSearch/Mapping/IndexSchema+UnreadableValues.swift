import GRDB

extension IndexSchema.Entity {
    /// The values of this entity's number and date fields in `attributes` that the index cannot read (`"cheap"` for
    /// a price, `"2024-02-30"` for a date), described for a warning: the record's document has no such value, so it
    /// is outside every range on that field and sorts as a record without one. Empty text counts as no value. NaN and
    /// the infinities (text or REAL) are unreadable too: not finite numbers, not real dates.
    func unreadableValues(key: DatabaseValue, in attributes: AttributeSet) -> [String] {
        var found: [String] = []
        for field in fields where field.type == .number || field.type == .date {
            guard let value = attributes[field.name], !value.isNull else { continue }
            let readable = field.type == .number ? value.indexNumber != nil : value.indexDate != nil
            guard !readable else { continue }
            let text = value.indexText ?? "a blob"
            if text.allSatisfy(\.isWhitespace) { continue }
            let quoted = text.count > 40 ? "\"\(text.prefix(40))…\"" : "\"\(text)\""
            let expected = value.isNonFiniteNumber
                ? (field.type == .number ? "a finite number" : "a real date (a finite number of Unix seconds)")
                : (field.type == .number ? "a number" : "a date (ISO-8601 or Unix seconds)")
            found.append("\(name) \(DocumentIdentity.storedKey(key)): \(field.name) \(quoted) is not \(expected)")
        }
        return found
    }
}

/// The ranges a query writes (`FIELD:LOW..HIGH`), checked against the schema so that a range the index cannot
/// answer is an error naming the field and what ranges take, not a silent search for its words (without number or
/// date fields Xapian reads `size:10..20` as words) or Xapian's bare "Unknown range operation".
extension IndexSchema {
    /// The number and date fields, which take ranges, in configuration order.
    var rangeFieldNames: [String] {
        var names: [String] = []
        for entity in entityNames.compactMap({ entities[$0] }) {
            for field in entity.fields where (field.type == .number || field.type == .date) && !names.contains(field.name) {
                names.append(field.name)
            }
        }
        return names
    }

    /// The `FIELD:` prefixes of the number and date fields, which take ranges and single values.
    var valuePrefixes: [String] {
        var prefixes: [String] = []
        for entity in entityNames.compactMap({ entities[$0] }) {
            for field in entity.fields where field.type == .number || field.type == .date {
                guard field.slot != nil, let prefix = field.queryPrefix, !prefix.isEmpty,
                      !prefixes.contains(prefix + ":") else { continue }
                prefixes.append(prefix + ":")
            }
        }
        return prefixes
    }

    /// A range of this index, for a message: on its first number field, else its first date field.
    private var rangeExample: String {
        let fields = entityNames.compactMap { entities[$0] }.flatMap(\.fields)
        if let number = fields.first(where: { $0.type == .number }) { return "\(number.name):10..20" }
        if let date = fields.first(where: { $0.type == .date }) { return "\(date.name):2024-01-01..2024-06-30" }
        return "size:10..20"
    }

    /// What ranges take here, for the end of a message.
    private var rangesTake: String {
        let names = rangeFieldNames
        return names.isEmpty
            ? "this configuration has no number or date fields, so the index takes no ranges (a field with type = \"number\" or \"date\" would)"
            : "ranges take the number and date fields: " + names.joined(separator: ", ")
    }

    /// Why a range of `query` cannot be searched before Xapian sees it: a range on a name that is no number or date
    /// field (nor a keyword, whose values may hold `..`). Nil when every range names such a field.
    func rangeProblem(in query: QueryText) -> String? {
        for range in query.ranges {
            guard let name = range.field else { continue }
            if name == Self.entityQueryPrefix { continue }
            if let field = fieldsByName[name], field.queryPrefix == name, field.type != .text {
                if field.type == .stored {
                    return "\(name) is a stored field, which is not searched, so \(range.text) is no range; \(rangesTake)"
                }
                // Xapian reads a number range without bounds as every document, those without a value too.
                if field.type == .number, range.low.isEmpty, range.high.isEmpty {
                    return "the range \(range.text) has no numbers; give a start, an end or both, e.g. \(name):10..20 or \(name):10.."
                }
                continue  // number, date, or a keyword value
            }
            if queryPrefixMeanings[name] == .text {
                return "\(name): is the prefix of a text field, not a number or date field, so \(range.text) is no range; \(rangesTake)"
            }
            return "there is no number or date field \(name) for the range \(range.text); \(rangesTake)"
        }
        // Inside a phrase with other words Xapian raises nothing: it looks for the range's words and finds nothing.
        for range in query.quotedRanges {
            guard let name = range.field, let field = fieldsByName[name], field.queryPrefix == name,
                  field.type == .number || field.type == .date else { continue }
            return "the range \(range.text) is inside double quotes, which hold a phrase of words, not ranges; write the range outside the quotes, as \(range.text)"
        }
        return nil
    }

    /// Why Xapian found no range processor for a range of `query` ("Unknown range operation"): a bound of a number
    /// field that is not a number, a range without a field, or a range inside double quotes. Nil when the ranges
    /// explain nothing.
    func rangeFailure(in query: QueryText) -> String? {
        for range in query.ranges {
            guard let name = range.field else {
                return "the range \(range.text) names no field; write FIELD:LOW..HIGH, e.g. \(rangeExample); \(rangesTake)"
            }
            guard let field = fieldsByName[name], field.type == .number else { continue }
            for bound in [range.low, range.high] where !bound.isEmpty && Double(bound) == nil {
                return "'\(bound)' in the range \(range.text) is not a number, and \(name) is a number field; write numbers, e.g. \(name):10..20 (either side may be empty)"
            }
        }
        if let range = query.quotedRanges.first {
            let outside = range.field == nil ? "with its field, e.g. \(rangeExample)" : "as \(range.text)"
            return "the range \(range.text) is inside double quotes, which hold a phrase of words, not ranges; write the range outside the quotes, \(outside)"
        }
        return nil
    }

    /// What each query prefix means: text prefixes, and the names of keyword, number and date fields.
    private var queryPrefixMeanings: [String: FieldType] {
        var meanings: [String: FieldType] = [:]
        for field in entities.values.flatMap(\.fields) {
            if let prefix = field.queryPrefix { meanings[prefix] = field.type }
        }
        return meanings
    }
}

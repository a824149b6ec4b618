import Foundation
import SpotliteStore

/// Guesses an entity's fields from the first records of a JSON Lines file: which column is the key, and for each
/// column whether it is full text, a keyword (with facets), a number, a date or only stored.
///
/// The guesses are meant to be a good start, written as a commented configuration the user can edit; they never
/// leave a column out, because the importer refuses columns the entity does not have.
struct FieldInference {
    /// What was seen of one column across the sample.
    struct Column {
        let name: String
        var present = 0
        var strings: [String] = []
        var integers = 0
        var decimals = 0
        var booleans = 0
        /// Arrays of strings and numbers, as their elements' text.
        var arrays: [[String]] = []
        /// Objects, and arrays holding anything else.
        var composites = 0
        var nulls = 0

        var nonNull: Int { strings.count + integers + decimals + booleans + arrays.count + composites }
    }

    /// One inferred field.
    struct Field: Equatable {
        enum Kind: String { case text, keyword, number, date, stored }
        var name: String
        var kind: Kind
        var weight = 1
        var prefix: String?
        var store = false
        var facet = false
        var sortable = false
        var separator: String?
        /// Why it was guessed so, written as a comment beside it.
        var note: String
    }

    /// Columns in the order they first appear.
    private(set) var columns: [Column] = []
    private var indexByName: [String: Int] = [:]
    /// The keys of records per column, to find a unique one.
    private var keyValues: [String: Set<String>] = [:]
    private(set) var records = 0

    /// Adds one record of the sample.
    mutating func add(_ record: [String: Any], order: [String]) {
        records += 1
        for name in order {
            guard let value = record[name] else { continue }
            let index: Int
            if let known = indexByName[name] {
                index = known
            } else {
                index = columns.count
                indexByName[name] = index
                columns.append(Column(name: name))
            }
            columns[index].present += 1
            switch value {
            case is NSNull:
                columns[index].nulls += 1
            case let text as String where text.isEmpty:
                // Empty text says as little about a column's kind as null does.
                columns[index].nulls += 1
                keyValues[name, default: []].insert("s:")
            case let text as String:
                columns[index].strings.append(text)
                keyValues[name, default: []].insert("s:" + text)
            case let number as NSNumber:
                switch JSONNumberKind(number) {
                case .boolean: columns[index].booleans += 1
                case .integer:
                    columns[index].integers += 1
                    keyValues[name, default: []].insert("i:\(number.int64Value)")
                case .real: columns[index].decimals += 1
                }
            case let array as [Any]:
                if let elements = Self.scalarElements(array) {
                    columns[index].arrays.append(elements)
                } else {
                    columns[index].composites += 1
                }
            default:
                columns[index].composites += 1
            }
        }
    }

    /// The key: `requested` when given (it must be in the sample), else `id`, else the first column present in
    /// every record with unique string or integer values.
    func key(requested: String?) throws -> String {
        if let requested {
            guard let column = columns.first(where: { $0.name == requested }) else {
                throw CommandFailure(message: "--key \(requested): no such field in the sample (fields: \(columns.map(\.name).joined(separator: ", "))); choose one of them", status: ExitStatus.input)
            }
            guard isKeyCandidate(column) else {
                throw CommandFailure(message: "--key \(requested): its values are not unique strings or integers present in every record of the sample; choose another field", status: ExitStatus.input)
            }
            return requested
        }
        if let id = columns.first(where: { $0.name == "id" }), isKeyCandidate(id) { return "id" }
        if let unique = columns.first(where: isKeyCandidate) { return unique.name }
        throw CommandFailure(message: "no field has unique string or integer values in every record of the sample; name the key with --key FIELD", status: ExitStatus.input)
    }

    private func isKeyCandidate(_ column: Column) -> Bool {
        column.present == records && column.nulls == 0 && column.decimals == 0 && column.booleans == 0
            && column.composites == 0 && (column.strings.isEmpty || column.integers == 0)
            && keyValues[column.name]?.count == records
    }

    /// Whether the key holds integers (else text).
    func keyIsInteger(_ key: String) -> Bool {
        columns.first { $0.name == key }.map { $0.integers > 0 && $0.strings.isEmpty } ?? false
    }

    /// The fields for every column; an integer key is a `number` field, which makes its column an integer one (a key
    /// that is no field is text, and the import refused every line of integer keys).
    func fields(key: String) -> [Field] {
        var fields: [Field] = []
        var titles: [(index: Int, averageLength: Double)] = []
        for column in columns {
            if column.name == key && keyIsInteger(key) {
                fields.append(Field(name: key, kind: .number, note: "the key: whole numbers"))
                continue
            }
            var field = infer(column)
            if column.name == key {
                // The key is usually what people search for by name.
                field = Field(name: column.name, kind: .text, weight: 4, prefix: Self.prefix(for: column.name),
                              store: true, note: "the key; searchable on its own as \(Self.prefix(for: column.name) ?? column.name):word")
            } else if field.kind == .text {
                let averageLength = Self.average(column.strings.map(\.count))
                // A title or summary: mostly different in every record, and not an address or a person's email.
                if !column.strings.isEmpty, Set(column.strings).count * 10 >= column.strings.count * 8,
                   !column.strings.contains(where: { $0.contains("@") }), averageLength <= 200 {
                    titles.append((fields.count, averageLength))
                }
            }
            fields.append(field)
        }
        // The shortest title-like text: weigh it more and return it with hits. Other short texts (names, authors)
        // get a prefix, to be searched on their own.
        let title = titles.min(by: { $0.averageLength < $1.averageLength })?.index
        for index in fields.indices where fields[index].kind == .text && fields[index].name != key {
            if index == title {
                fields[index].weight = 2
                fields[index].store = true
                fields[index].note = "short text, taken as a title: weight 2, returned with hits"
            } else if let column = columns.first(where: { $0.name == fields[index].name }),
                      Self.average(column.strings.map(\.count)) <= 80, let prefix = Self.prefix(for: column.name),
                      !fields.contains(where: { $0.name == prefix && $0.kind != .text }) {
                fields[index].prefix = prefix
                fields[index].note += "; searchable on its own as \(prefix):word"
            }
        }
        return fields
    }

    private func infer(_ column: Column) -> Field {
        let name = column.name
        if column.nonNull == 0 {
            // Text costs nothing while empty and finds the words once the column is filled.
            return Field(name: name, kind: .text, note: "empty in the sample: text, searchable once filled")
        }
        if column.composites > 0 || !column.arrays.isEmpty && column.integers + column.decimals + column.booleans > 0 {
            return Field(name: name, kind: .stored, note: "arrays or objects, kept as JSON text")
        }
        if !column.arrays.isEmpty {
            // Lists of values (tags, authors): the index takes each element of an array as one keyword value.
            let elements = column.arrays.joined() + column.strings
            let distinct = Set(elements).count
            if elements.allSatisfy({ $0.count <= 64 }) {
                let facet = distinct <= max(3, elements.count / 4)
                return Field(name: name, kind: .keyword, store: true, facet: facet,
                             note: "arrays of values, one keyword each: filter with --filter \(name):VALUE" + (facet ? ", count with --facet \(name)" : ""))
            }
            return Field(name: name, kind: .text, note: "arrays of text, found by their words")
        }
        if column.strings.isEmpty && column.booleans == 0 {
            return Field(name: name, kind: .number, store: true, sortable: true,
                         note: column.decimals > 0 ? "decimal numbers" : "whole numbers")
        }
        if column.booleans > 0 && column.strings.isEmpty {
            return Field(name: name, kind: .keyword, store: true, facet: true, note: "true or false (stored as 1 or 0)")
        }
        let strings = column.strings
        if strings.allSatisfy(Self.looksLikeDate) {
            return Field(name: name, kind: .date, store: true, sortable: true, note: "ISO-8601 dates")
        }
        if strings.allSatisfy({ $0.hasPrefix("http://") || $0.hasPrefix("https://") }) {
            return Field(name: name, kind: .stored, note: "addresses")
        }
        let distinct = Set(strings).count
        let averageWords = Self.average(strings.map { $0.split(whereSeparator: \.isWhitespace).count })
        let averageLength = Self.average(strings.map(\.count))
        if averageWords >= 2 || averageLength > 60 {
            let separated = Self.spaceSeparatedVocabulary(strings)
            if separated {
                return Field(name: name, kind: .keyword, facet: true, separator: " ",
                             note: "space-separated values from a small vocabulary")
            }
            return Field(name: name, kind: .text, note: "free text")
        }
        // Short values: a small vocabulary is a keyword to filter and count by; otherwise text, found by its words.
        if distinct <= max(3, strings.count / 4) && strings.allSatisfy({ $0.count <= 64 }) {
            return Field(name: name, kind: .keyword, store: true, facet: true,
                         note: "\(Plural.count(distinct, "distinct value")) in \(Plural.count(strings.count, "record")): filter with --filter \(name):VALUE, count with --facet \(name)")
        }
        if strings.allSatisfy({ !$0.contains(where: \.isLetter) || !$0.contains(" ") && $0.contains(where: \.isNumber) }) {
            return Field(name: name, kind: .stored, note: "codes or versions, returned with hits")
        }
        return Field(name: name, kind: .text, store: true, note: "short text")
    }

    /// Whether space-separated words recur across records as if taken from a fixed list (tags), rather than prose.
    private static func spaceSeparatedVocabulary(_ strings: [String]) -> Bool {
        guard strings.count >= 8 else { return false }
        var words = 0
        var distinct = Set<Substring>()
        for text in strings {
            let parts = text.split(separator: " ")
            words += parts.count
            distinct.formUnion(parts)
        }
        let tokenLike = distinct.allSatisfy { word in word.contains(where: { ":/=".contains($0) }) }
        return tokenLike && distinct.count * 4 <= words
    }

    /// The elements of an array of strings and numbers as text (what the index takes as keyword values); nil when it
    /// holds anything else.
    private static func scalarElements(_ array: [Any]) -> [String]? {
        var elements: [String] = []
        for element in array {
            if let text = element as? String {
                elements.append(text)
            } else if let number = element as? NSNumber, JSONNumberKind(number) != .boolean {
                elements.append(number.stringValue)
            } else {
                return nil
            }
        }
        return elements
    }

    static func looksLikeDate(_ text: String) -> Bool {
        text.range(of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?$"#,
                   options: .regularExpression) != nil
    }

    /// A query prefix for a field name: lowercase letters only, or nil when the name has none.
    static func prefix(for name: String) -> String? {
        let letters = String(name.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) }.map(Character.init))
        return letters.isEmpty ? nil : letters
    }

    private static func average(_ values: [Int]) -> Double {
        values.isEmpty ? 0 : Double(values.reduce(0, +)) / Double(values.count)
    }
}

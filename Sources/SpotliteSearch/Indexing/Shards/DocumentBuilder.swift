import Foundation
import GRDB
import SpotliteStore

/// Turns a record's attribute set into a Xapian document, following the ``IndexSchema``.
///
/// Owns a term generator: one builder per thread of work, never shared.
final class DocumentBuilder {
    /// Xapian's term length limit (glass backend), where a zero byte counts double. A term over it fails the write
    /// and discards the whole pending batch, so keyword values that would exceed it are left out of the document.
    static let maximumTermBytes = 245
    /// Joins the values of a multi-valued keyword in its facet slot: one slot holds one value, so the values go in
    /// together and the searcher splits them to count each one.
    static let facetValueSeparator: Character = "\u{1F}"

    /// The value slot of each document's record (field slots start at 1): how often each of its unprefixed terms was
    /// fed to spelling correction, read back with its term list when it is replaced or deleted to take exactly those
    /// words out of the spelling table, and digests, so that writing the same document again is skipped.
    static let recordSlot: UInt32 = 0

    /// The value slot holding each document's unique id term, so that a search over remote shards can name its
    /// candidates to the servers (the proximity boost's second match) from the documents it fetches anyway. Far
    /// above the field slots, which are numbered from 1.
    static let idSlot: UInt32 = 0xFFFF_FF00

    /// Words whose stems each builder remembers (``XapianTermGenerator/init(language:stopwords:cjkNgrams:rememberedStems:)``):
    /// 64-byte entries, about 5 MiB a shard writer. On the Debian catalogue, remembering cut the instructions of
    /// building a document's text by about a fifth.
    static let rememberedStems = 65_536

    let schema: IndexSchema
    private let generator: XapianTermGenerator
    /// The spelling words of the last document built; nil when this builder's shard keeps no spelling data.
    let spellingWords: XapianSpellingWords?

    /// - Parameter recordsSpelling: count the words of the spelling fields (``IndexSchema/Field/feedsSpelling``)
    ///   into ``spellingWords`` for the writer to record; off for shards that keep no spelling data.
    init(schema: IndexSchema, recordsSpelling: Bool) throws {
        self.schema = schema
        // Every word gets its stem, stop words too: a query made only of stop words ("at", "the who", `name:less`)
        // keeps them, stemmed, so without their stems it would silently find only other words sharing the stem
        // ("ats" for "at"). Queries still drop stop words beside other words.
        generator = try XapianTermGenerator(language: schema.language == "none" ? nil : schema.language,
                                            stopwords: .none, rememberedStems: Self.rememberedStems)
        spellingWords = recordsSpelling ? try XapianSpellingWords() : nil
    }

    /// The document for a record, with its unique id term.
    ///
    /// - Parameter withoutTerms: leave the terms out (text, keywords, the id and entity terms) and build only the
    ///   values and data: for ``XapianWritableDatabase/writeDocumentRest(uniqueTerm:document:slot:)``.
    func document(entity: IndexSchema.Entity, key: DatabaseValue, attributes: AttributeSet,
                  withoutTerms: Bool = false) throws -> (idTerm: String, document: XapianDocument)
    {
        let document = try XapianDocument()
        let idTerm = DocumentIdentity.term(entity: entity.name, key: key)
        try document.setValue(slot: Self.idSlot, string: idTerm)
        if !withoutTerms {
            try generator.startDocument(document)
            try spellingWords?.removeAll()
            try document.addBooleanTerm(idTerm)
            try document.addBooleanTerm(IndexSchema.entityTermPrefix + entity.name)
        }
        var stored: [String: StoredValue] = [:]
        for field in entity.fields {
            guard let value = attributes[field.name], !value.isNull else { continue }
            switch field.type {
            case .text:
                if !withoutTerms, let text = value.indexText, !text.isEmpty {
                    try generator.indexField(text, weight: UInt32(field.weight), prefix: field.termPrefix ?? "",
                                             positions: field.hasPositions,
                                             countingSpellingInto: field.feedsSpelling ? spellingWords : nil)
                    try generator.startNextField()
                }
            case .keyword:
                if let text = value.indexText, let prefix = field.booleanPrefix {
                    let array = Self.arrayValues(in: text)
                    let keywords = (array ?? Self.keywords(in: text, separator: field.separator))
                        .filter { Self.fitsTermLimit(prefix: prefix, value: $0) }
                    if !withoutTerms { for keyword in keywords { try document.addBooleanTerm(prefix + keyword) } }
                    if let slot = field.slot,
                       let facetValue = Self.facetValue(keywords, multiValued: field.separator != nil || array != nil) {
                        try document.setValue(slot: slot, string: facetValue)
                    }
                }
            case .number:
                if let slot = field.slot, let number = value.indexNumber { try document.setValue(slot: slot, number: number) }
            case .date:
                if let slot = field.slot, let seconds = value.indexDate { try document.setValue(slot: slot, number: seconds) }
            case .stored:
                break
            }
            if field.isStored, let storedValue = StoredValue(value) { stored[field.name] = storedValue }
        }
        let keyValue = DocumentIdentity.storedKey(key)
        try document.setData(DocumentData(entity: entity.name, key: keyValue, fields: stored).encoded())
        return (idTerm, document)
    }

    /// Whether `prefix + value` is a term Xapian accepts.
    static func fitsTermLimit(prefix: String, value: String) -> Bool {
        var cost = prefix.utf8.count
        for byte in value.utf8 { cost += byte == 0 ? 2 : 1 }
        return cost <= maximumTermBytes
    }

    /// What a keyword facet's value slot holds: the single value, or the distinct values joined by
    /// ``facetValueSeparator`` (values containing it are left out of the facet, though still filterable).
    static func facetValue(_ keywords: [String], multiValued: Bool) -> String? {
        guard multiValued else { return keywords.first }
        var seen = Set<String>()
        let values = keywords.filter { !$0.contains(facetValueSeparator) && seen.insert($0).inserted }
        return values.isEmpty ? nil : values.sorted().joined(separator: String(facetValueSeparator))
    }

    /// The elements of a JSON array of strings and numbers (`["a", "b"]`, `[1, 2]`: how `import` stores an array),
    /// trimmed, empty ones left out; nil for any other text, an array holding arrays, objects, booleans or nulls
    /// among them, which stays one value.
    static func arrayValues(in text: String) -> [String]? {
        guard text.first == "[", text.last == "]",
              let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] else { return nil }
        var values: [String] = []
        for element in array {
            if let string = element as? String {
                let value = trimmed(Substring(string))
                if !value.isEmpty { values.append(value) }
            } else if let number = element as? NSNumber {
                switch JSONNumberKind(number) {
                case .boolean: return nil
                case .real: values.append(String(number.doubleValue))
                case .integer: values.append(String(number.int64Value))
                }
            } else {
                return nil
            }
        }
        return values
    }

    /// The values of a keyword field: `text` cut at each `separator` (none: one value), each value without the
    /// spaces and tabs around it (Foundation's `.whitespaces`), empty values left out.
    static func keywords(in text: String, separator: String?) -> [String] {
        guard let separator, !separator.isEmpty else {
            let trimmed = trimmed(Substring(text))
            return trimmed.isEmpty ? [] : [trimmed]
        }
        // A one-character separator (the usual " " or ",") is cut without Foundation's bridging, on characters as
        // Foundation does: a space followed by a combining mark is not a separator.
        let pieces: [Substring]
        if separator.count == 1, let character = separator.first {
            pieces = text.split(separator: character, omittingEmptySubsequences: true)
        } else {
            pieces = text.components(separatedBy: separator).map { Substring($0) }
        }
        return pieces.map(trimmed).filter { !$0.isEmpty }
    }

    /// `text` without the spaces and tabs (Unicode's space separators and U+0009) at either end, trimmed scalar by
    /// scalar as `trimmingCharacters(in: .whitespaces)` does.
    private static func trimmed(_ text: Substring) -> String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }),
              let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(scalars[first...last])
    }
}

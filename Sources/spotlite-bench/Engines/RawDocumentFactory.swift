import Foundation
import Spotlite

/// Builds, from an in-memory record, the very document Spotlite's indexer builds from the same row: the same id and
/// entity terms, text fields with their weights and prefixed copies and a position gap between fields, keyword
/// terms and facet values, number values, the same stored data. It follows the indexer's documented mapping (see
/// `IndexSchema`) on the package-level Xapian wrappers, with no store and no history, so that the raw loop measures
/// the engine alone. Owns a term generator: one factory per thread.
final class RawDocumentFactory {
    /// Where the generated terms may depart from Spotlite's, to measure what a feature costs.
    struct Variations: Sendable, Hashable {
        /// Word positions (phrase search); Spotlite always keeps them.
        var positions = true
        /// Every text field with weight 1 and no prefixed copy: plain BM25 over one bag of words.
        var uniformWeights = false
        /// Record spelling data for query correction; Spotlite always does.
        var spelling = true
        /// When set, spelling data comes only from these text fields; nil: the fields Spotlite takes it from (the
        /// configuration's `spelling`, else every text field).
        var spellingFields: Set<String>?
        /// Word positions in the prefixed copies of text fields (`name:"two words"` phrases); Spotlite keeps them.
        var prefixedPositions = true
    }

    private struct Field {
        var name: String
        var type: FieldType
        var weight: UInt32
        var termPrefix: String?
        var booleanPrefix: String?
        var separator: String?
        var slot: UInt32?
        var isStored: Bool
    }

    let entity: String
    let key: String
    private let fields: [Field]
    private let generator: XapianTermGenerator
    private let variations: Variations
    private let spellingDatabase: XapianWritableDatabase?
    /// The text fields feeding the spelling table.
    private let spellingFields: Set<String>
    /// Keyword values longer than this are left out, as the indexer does (Xapian's term limit is 245 bytes).
    private static let maximumKeywordBytes = 200

    init(configuration: SpotliteConfiguration, entity name: String, variations: Variations,
         spellingDatabase: XapianWritableDatabase?) throws {
        guard let entity = configuration.entity(named: name) else {
            throw BenchError("the configuration has no entity \(name); pass --entity with one of: \(configuration.entities.map(\.name).joined(separator: ", "))")
        }
        // Slots are numbered by field name across every entity, in configuration order, as the indexer numbers them.
        var slots: [String: UInt32] = [:]
        var nextSlot: UInt32 = 1
        for candidate in configuration.entities {
            for field in candidate.fields
            where field.type == .number || field.type == .date || (field.type == .keyword && field.facet) {
                if slots[field.name] == nil {
                    slots[field.name] = nextSlot
                    nextSlot += 1
                }
            }
        }
        var fields: [Field] = []
        for field in entity.fields {
            if field.type == .date {
                throw BenchError("field \(field.name) is a date field, which the raw engine loop does not map; benchmark a configuration without date fields")
            }
            fields.append(Field(
                name: field.name, type: field.type, weight: UInt32(max(1, field.weight)),
                termPrefix: field.type == .text ? field.prefix.map { "XT" + $0.uppercased() + ":" } : nil,
                booleanPrefix: field.type == .keyword ? "XK" + field.name.uppercased() + ":" : nil,
                separator: field.separator, slot: slots[field.name], isStored: field.isStored))
        }
        self.entity = entity.name
        self.key = entity.key
        self.fields = fields
        self.variations = variations
        spellingFields = variations.spellingFields
            ?? Set(configuration.indexer.spelling ?? entity.fields.filter { $0.type == .text }.map(\.name))
        guard let stemmer = configuration.indexer.stemmerName else {
            throw BenchError("the configuration's language \(configuration.indexer.language) is not a Xapian stemmer")
        }
        // As the indexer does (DocumentBuilder): stop words get their stems too.
        generator = try XapianTermGenerator(language: stemmer == "none" ? nil : stemmer, stopwords: .none)
        self.spellingDatabase = variations.spelling ? spellingDatabase : nil
        if variations.spelling { try generator.setSpellingDatabase(spellingDatabase) }
    }

    /// The unique id term of a record, as the indexer writes it for keys of up to 160 bytes.
    func idTerm(_ record: Corpus.Record) -> String {
        "Q\(entity):\(record[key] ?? "")"
    }

    func document(for record: Corpus.Record) throws -> XapianDocument {
        let document = try XapianDocument()
        try generator.startDocument(document)
        try document.addBooleanTerm(idTerm(record))
        try document.addBooleanTerm("XE:" + entity)
        var stored: [(String, String)] = []
        for field in fields {
            guard let value = record[field.name] else { continue }
            switch field.type {
            case .text:
                if !value.isEmpty {
                    if spellingDatabase != nil {
                        try generator.setSpellingDatabase(spellingFields.contains(field.name) ? spellingDatabase : nil)
                    }
                    try generator.indexText(value, weight: variations.uniformWeights ? 1 : field.weight,
                                            positions: variations.positions)
                    if let prefix = field.termPrefix, !variations.uniformWeights {
                        try generator.indexText(value, weight: 1, prefix: prefix,
                                                positions: variations.positions && variations.prefixedPositions)
                    }
                    try generator.startNextField()
                }
            case .keyword:
                if let prefix = field.booleanPrefix {
                    for keyword in Self.keywords(in: value, separator: field.separator)
                    where keyword.utf8.count <= Self.maximumKeywordBytes {
                        try document.addBooleanTerm(prefix + keyword)
                    }
                    if let slot = field.slot { try document.setValue(slot: slot, string: value) }
                }
            case .number:
                if let slot = field.slot, let number = Double(value.trimmingCharacters(in: .whitespaces)) {
                    try document.setValue(slot: slot, number: number)
                }
            case .date, .stored:
                break
            }
            if field.isStored { stored.append((field.name, value)) }
        }
        try document.setData(Self.data(entity: entity, key: record[key] ?? "", fields: stored))
        return document
    }

    static func keywords(in text: String, separator: String?) -> [String] {
        guard let separator, !separator.isEmpty else {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? [] : [trimmed]
        }
        return text.components(separatedBy: separator)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The indexer's document data: compact JSON with the entity, the key and the stored fields in name order.
    static func data(entity: String, key: String, fields: [(String, String)]) -> String {
        var out = "{\"entity\":"
        DocumentData.appendString(entity, to: &out)
        out += ",\"key\":"
        DocumentData.appendString(key, to: &out)
        out += ",\"fields\":{"
        for (index, field) in fields.sorted(by: { $0.0 < $1.0 }).enumerated() {
            if index > 0 { out += "," }
            DocumentData.appendString(field.0, to: &out)
            out += ":"
            DocumentData.appendString(field.1, to: &out)
        }
        return out + "}}"
    }
}

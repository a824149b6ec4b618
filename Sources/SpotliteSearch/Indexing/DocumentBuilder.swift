import Foundation
import GRDB

/// Turns a record's attribute set into a Xapian document, following the ``IndexSchema``.
///
/// Owns a term generator: one builder per thread of work, never shared.
final class DocumentBuilder {
    /// Keyword values longer than this are not filterable: Xapian's term limit is 245 bytes, and one failed term
    /// would discard the whole pending batch.
    static let maximumKeywordBytes = 200

    let schema: IndexSchema
    private let generator: XapianTermGenerator

    init(schema: IndexSchema, spellingDatabase: XapianWritableDatabase?) throws {
        self.schema = schema
        generator = try XapianTermGenerator(language: schema.language == "none" ? nil : schema.language,
                                            stopwords: schema.stopwords == "none" ? .none : .english)
        try generator.setSpellingDatabase(spellingDatabase)
    }

    /// The document for a record, with its unique id term.
    func document(entity: IndexSchema.Entity, key: DatabaseValue, attributes: AttributeSet) throws
        -> (idTerm: String, document: XapianDocument)
    {
        let document = try XapianDocument()
        try generator.startDocument(document)
        let idTerm = DocumentIdentity.term(entity: entity.name, key: key)
        try document.addBooleanTerm(idTerm)
        try document.addBooleanTerm(IndexSchema.entityTermPrefix + entity.name)
        var stored: [String: StoredValue] = [:]
        for field in entity.fields {
            guard let value = attributes[field.name], !value.isNull else { continue }
            switch field.type {
            case .text:
                if let text = value.indexText, !text.isEmpty {
                    try generator.indexText(text, weight: UInt32(field.weight))
                    if let prefix = field.termPrefix {
                        try generator.indexText(text, weight: 1, prefix: prefix)
                    }
                    try generator.increaseTermPosition()
                }
            case .keyword:
                if let text = value.indexText, let prefix = field.booleanPrefix {
                    for keyword in Self.keywords(in: text, separator: field.separator)
                    where keyword.utf8.count <= Self.maximumKeywordBytes {
                        try document.addBooleanTerm(prefix + keyword)
                    }
                    if let slot = field.slot { try document.setValue(slot: slot, string: text) }
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
        let keyValue = StoredValue(key) ?? .text(DocumentIdentity.keyText(key))
        try document.setData(DocumentData(entity: entity.name, key: keyValue, fields: stored).encoded())
        return (idTerm, document)
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
}

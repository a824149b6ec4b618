import Foundation

/// How the configured entities and fields become Xapian terms, value slots and query-parser prefixes.
///
/// Derived from the configuration alone, so the indexer and every searcher agree without reading each other:
/// - text fields are indexed unprefixed (with their weight, so a plain query finds them) and, when they have a
///   `prefix`, a second time under the term prefix `XT<PREFIX>:` for `prefix:word` queries;
/// - keyword values are boolean terms `XK<FIELD>:<value>` (filters, `field:value` in queries);
/// - number and date fields, and keyword facets, get value slots (sortable, range-searchable, countable);
/// - every document has the boolean term `XE:<entity>` and a unique id term (see ``DocumentIdentity``).
struct IndexSchema: Sendable {
    struct Field: Sendable {
        var name: String
        var type: FieldType
        var weight: Int
        /// The query prefix (`name` in `name:word`) and the term prefix of a prefixed text field.
        var queryPrefix: String?
        var termPrefix: String?
        /// For keyword fields: the prefix of their boolean terms.
        var booleanPrefix: String?
        var separator: String?
        var slot: UInt32?
        var isStored: Bool
        var isFacet: Bool
        var isSortable: Bool
        /// For text fields: whether word positions are indexed (phrase search).
        var hasPositions = true
        /// For text fields: whether their words feed the spelling table.
        var feedsSpelling = true
    }

    struct Entity: Sendable {
        var name: String
        var key: String
        var fields: [Field]
        /// The columns whose change can change the entity's document.
        var relevantColumns: Set<String>
        /// The columns whose change can change the document's terms (the key, text and keyword fields); a change of
        /// the others (stored, number and date fields) changes only its values and data.
        var termColumns: Set<String>
        /// The text fields snippets are cut from: the descriptive ones (not the key, nor fields given a query
        /// prefix, which hold names and addresses), or every text field when there are no such fields.
        var snippetFields: [Field]
    }

    static let entityTermPrefix = "XE:"
    static let entityQueryPrefix = "entity"

    let entities: [String: Entity]
    /// Entity names in configuration order.
    let entityNames: [String]
    /// Fields by name across entities (a name means one thing in every entity of an index).
    let fieldsByName: [String: Field]
    let language: String
    let stopwords: String
    let fingerprint: String

    init(configuration: SpotliteConfiguration) throws {
        var slots: [String: UInt32] = [:]
        var fieldsByName: [String: Field] = [:]
        var entities: [String: Entity] = [:]
        var nextSlot: UInt32 = 1
        var queryPrefixes: [String: String] = [Self.entityQueryPrefix: "the entity filter"]
        for entity in configuration.entities {
            var fields: [Field] = []
            for field in entity.fields {
                var plan = Field(name: field.name, type: field.type, weight: max(1, field.weight), queryPrefix: nil,
                                 termPrefix: nil, booleanPrefix: nil, separator: field.separator, slot: nil,
                                 isStored: field.isStored, isFacet: field.facet, isSortable: field.sortable)
                switch field.type {
                case .text:
                    plan.hasPositions = field.positions
                    plan.feedsSpelling = configuration.indexer.spelling.map { $0.contains(field.name) } ?? true
                    if let prefix = field.prefix {
                        plan.queryPrefix = prefix
                        plan.termPrefix = "XT" + prefix.uppercased() + ":"
                    }
                case .keyword:
                    plan.queryPrefix = field.name
                    plan.booleanPrefix = Self.keywordPrefix(field: field.name)
                case .number, .date:
                    plan.queryPrefix = field.name
                case .stored:
                    break
                }
                if field.type == .number || field.type == .date || (field.type == .keyword && field.facet) {
                    if let slot = slots[field.name] {
                        plan.slot = slot
                    } else {
                        slots[field.name] = nextSlot
                        plan.slot = nextSlot
                        nextSlot += 1
                    }
                }
                let fieldPath = ConfigurationKeyPath("entities", entity.name, "fields", field.name)
                if let existing = fieldsByName[field.name], existing.type != plan.type {
                    throw Self.conflict(at: fieldPath, "expected field \(ConfigurationKeyPath.quoted(field.name)) to have one type in every entity, as the index shares it; found \(plan.type) here and \(existing.type) in another entity; rename one of them or give them one type")
                }
                if let prefix = plan.queryPrefix {
                    // Text fields of different entities may share a prefix (`title:` searching the titles of notes
                    // and the names of folders alike: one term prefix); a keyword, number or date field is queried by
                    // its own name, which must mean that field alone.
                    let meaning = plan.type == .text ? "a text prefix" : "the \(plan.type) field \(field.name)"
                    if let other = queryPrefixes[prefix], other != meaning {
                        let path = plan.type == .text ? fieldPath.appending("prefix") : fieldPath
                        throw Self.conflict(at: path, "expected \(ConfigurationKeyPath.quoted(prefix)) to mean one thing in queries (\(prefix):…); found it as \(meaning) here and as \(other) elsewhere; rename the field or choose another prefix")
                    }
                    queryPrefixes[prefix] = meaning
                }
                fieldsByName[field.name] = fieldsByName[field.name] ?? plan
                fields.append(plan)
            }
            let relevant = Set([entity.key] + entity.fields.map(\.name))
            let textFields = fields.filter { $0.type == .text }
            let descriptive = textFields.filter { $0.name != entity.key && $0.queryPrefix == nil }
            let termColumns = Set([entity.key] + fields.filter { $0.type == .text || $0.type == .keyword }.map(\.name))
            entities[entity.name] = Entity(name: entity.name, key: entity.key, fields: fields, relevantColumns: relevant,
                                           termColumns: termColumns,
                                           snippetFields: descriptive.isEmpty ? textFields : descriptive)
        }
        self.entities = entities
        self.entityNames = configuration.entities.map(\.name)
        self.fieldsByName = fieldsByName
        self.language = configuration.indexer.stemmerName ?? "none"
        self.stopwords = configuration.indexer.stopwords
        self.fingerprint = configuration.indexFingerprint
    }

    /// A conflict between fields of a configuration that was not validated (one built in Swift): the checks
    /// ``SpotliteConfiguration/validate(source:)`` makes, reported the same way.
    private static func conflict(at path: ConfigurationKeyPath, _ message: String) -> ConfigurationError {
        ConfigurationError(source: "configuration", at: path, kind: .conflict, message)
    }

    func entity(named name: String) throws -> Entity {
        guard let entity = entities[name] else {
            throw SearchError.unknownEntity(name, known: entityNames)
        }
        return entity
    }

    /// The field a `--filter FIELD:VALUE` names: a keyword field.
    func filterField(named name: String) throws -> Field {
        if name == Self.entityQueryPrefix {
            return Field(name: name, type: .keyword, weight: 1, queryPrefix: name, termPrefix: nil,
                         booleanPrefix: Self.entityTermPrefix, separator: nil, slot: nil, isStored: false,
                         isFacet: false, isSortable: false)
        }
        guard let field = fieldsByName[name] else {
            throw SearchError.unknownField(name, reason: .noSuchFilterField(keywordFields: keywordFieldNames))
        }
        guard field.type == .keyword else {
            throw SearchError.unknownField(name, reason: .notAKeywordField(field.type, keywordFields: keywordFieldNames))
        }
        return field
    }

    /// The field a `--sort FIELD` names: a sortable number or date field.
    func sortField(named name: String) throws -> Field {
        guard let field = fieldsByName[name] else {
            throw SearchError.unknownField(name, reason: .noSuchSortField)
        }
        guard let _ = field.slot, field.type == .number || field.type == .date, field.isSortable else {
            throw SearchError.unknownField(name, reason: .notSortable)
        }
        return field
    }

    /// The field a `--facet FIELD` names: a keyword field with `facet = true`.
    func facetField(named name: String) throws -> Field {
        guard let field = fieldsByName[name] else {
            throw SearchError.unknownField(name, reason: .noSuchFacetField)
        }
        guard field.type == .keyword, field.isFacet, field.slot != nil else {
            throw SearchError.unknownField(name, reason: .notAFacet)
        }
        return field
    }

    private var keywordFieldNames: [String] {
        fieldsByName.values.filter { $0.type == .keyword }.map(\.name).sorted()
    }
}

extension IndexSchema {
    /// The longest keyword value, in bytes, that a filter finds whatever the field's name (a NUL byte counts twice):
    /// values over it are stored and shown, but make no filter term.
    static let keywordValueLimit = DocumentBuilder.maximumTermBytes - maximumKeywordPrefixBytes
    /// The longest keyword term prefix: Xapian's term limit (245 bytes) counts the prefix, so a long field name left
    /// less room for the value (179 bytes for a 64-byte name) and a value under the documented limit was never found.
    static let maximumKeywordPrefixBytes = 45

    /// The term prefix of a keyword field's values: `XK` + the name in capitals + `:`, or, for a name too long for
    /// that to stay within ``maximumKeywordPrefixBytes``, `XK#` + a digest of the name + `:` (`#` is no name's
    /// character, so the two forms never meet).
    static func keywordPrefix(field name: String) -> String {
        let plain = "XK" + name.uppercased() + ":"
        if plain.utf8.count <= maximumKeywordPrefixBytes { return plain }
        return "XK#" + FNV1a64.hexDigest(of: name).uppercased() + ":"
    }
}

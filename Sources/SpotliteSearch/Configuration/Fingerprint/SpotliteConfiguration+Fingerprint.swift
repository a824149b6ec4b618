extension SpotliteConfiguration {
    /// Names the layout of ``indexDescription``; bump it when that layout changes so that existing indexes rebuild.
    static let indexDescriptionVersion = "spotlite-index-config/1"

    /// A stable digest (16 hex digits) of everything that shapes the search index: each entity's name, key and
    /// fields, the stemmer and the stopwords. Paths, history settings, the indexer's author and batch size do not
    /// enter it, nor does the order of entities; the order of fields does, since it fixes value slots and term
    /// positions. An index whose stored fingerprint differs from this one must be rebuilt.
    public var indexFingerprint: String {
        FNV1a64.hexDigest(of: indexDescription)
    }

    /// The digest of one entity's part of the index: its name, key and fields, with the stemmer and stopwords.
    public func fingerprint(of entity: EntityConfiguration) -> String {
        FNV1a64.hexDigest(of: ([Self.indexDescriptionVersion] + languageLines + Self.describe(entity)).joined(separator: "\n"))
    }

    /// The canonical text ``indexFingerprint`` digests, one setting per line, entities sorted by name. Stable
    /// across runs and machines; store it with an index to tell a user what changed when it has to be rebuilt.
    public var indexDescription: String {
        let entityLines = entities.sorted { $0.name < $1.name }.flatMap(Self.describe)
        return ([Self.indexDescriptionVersion] + languageLines + entityLines).joined(separator: "\n")
    }

    /// The stemmer by its Xapian name, so that `en` and `english` describe the same index.
    private var languageLines: [String] {
        [
            "language \(indexer.stemmerName ?? ConfigurationKeyPath.quoted(indexer.language))",
            "stopwords \(ConfigurationKeyPath.quoted(indexer.stopwords))",
        ] + (indexer.spelling.map { ["spelling " + $0.sorted().map(ConfigurationKeyPath.quoted).joined(separator: ",")] } ?? [])
    }

    private static func describe(_ entity: EntityConfiguration) -> [String] {
        ["entity \(ConfigurationKeyPath.quoted(entity.name)) key \(ConfigurationKeyPath.quoted(entity.key))"]
            + entity.fields.map(describe)
    }

    /// Every setting of a field, defaults included, so that writing a default out explicitly changes nothing.
    private static func describe(_ field: FieldConfiguration) -> String {
        var line = "field \(ConfigurationKeyPath.quoted(field.name)) \(field.type.rawValue) store=\(field.isStored)"
        switch field.type {
        case .text:
            line += " weight=\(field.weight) prefix=" + (field.prefix.map(ConfigurationKeyPath.quoted) ?? "-")
            // Only when off, so that fingerprints of indexes written before the option existed stay the same.
            if !field.positions { line += " positions=false" }
        case .keyword:
            line += " facet=\(field.facet) separator=" + (field.separator.map(ConfigurationKeyPath.quoted) ?? "-")
            // Only for names whose terms now carry a digest of the name, so that other fingerprints stay the same.
            if IndexSchema.keywordPrefix(field: field.name).hasPrefix("XK#") { line += " terms=digest" }
        case .number, .date:
            line += " sortable=\(field.sortable)"
        case .stored:
            break
        }
        return line
    }
}

/// The `[indexer]` table: how the search index is built from the store.
public struct IndexerConfiguration: Sendable, Hashable {
    /// The default author name of the indexer.
    public static let defaultAuthor = "spotlite.indexer"
    /// The built-in stopword lists: English, or none at all.
    public static let supportedStopwords = ["en", "none"]

    /// The name under which the indexer keeps its position in the store.
    public var author: String
    /// The Xapian stemmer, as written: a name (`english`), an ISO code (`en`) or `none`.
    /// See ``StemmerLanguage`` for the accepted values.
    public var language: String
    /// The built-in stopword list: `en` or `none`.
    public var stopwords: String
    /// How many changes are applied per index commit (≥ 1).
    public var batchSize: Int
    /// The text fields whose words feed spelling correction; nil: every text field. Fewer fields make rebuilds
    /// faster (the spelling table is written for every word) and suggest only words from those fields.
    public var spelling: [String]?

    /// Creates the indexer settings; the defaults are those of an absent `[indexer]` table.
    public init(
        author: String = IndexerConfiguration.defaultAuthor,
        language: String = "en",
        stopwords: String = "en",
        batchSize: Int = 1000,
        spelling: [String]? = nil
    ) {
        self.author = author
        self.language = language
        self.stopwords = stopwords
        self.batchSize = batchSize
        self.spelling = spelling
    }

    /// The name Xapian knows the stemmer by (`en` → `english`), `none` for no stemming, or nil when `language` is
    /// not a stemmer of Xapian 1.4.
    public var stemmerName: String? {
        StemmerLanguage.canonicalName(of: language)
    }
}

import Foundation

/// A search: free text in Xapian's query syntax, plus filters, paging, sorting, facets and snippet options.
///
/// The text accepts words, `"phrases"`, `AND`/`OR`/`NOT`, `+must`/`-mustnot`, wildcards `foo*`, field prefixes
/// (`name:xapian`), keyword filters (`section:utils`), entity filters (`entity:Package`), and ranges and values on
/// number and date fields (`size:10..20`, `released:2024-01-01..`, `size:-3`, `released:2024`), which filter the
/// words as keywords do. An empty text matches every document (use it with filters).
public struct SearchRequest: Sendable, Hashable {
    /// The query text, in Xapian's query syntax.
    public var query: String
    /// Only documents of these entities (any of them); empty: all.
    public var entities: [String]
    /// Keyword filters: values of one field are alternatives (OR), different fields all apply (AND).
    public var filters: [SearchFilter]
    /// How many of the best hits to skip.
    public var offset: Int
    /// How many hits to return at most.
    public var limit: Int
    /// The order of hits.
    public var sort: SearchSort
    /// Keyword fields with `facet = true` whose value counts to return.
    public var facets: [String]
    /// How snippets are cut and marked (length 0: none).
    public var snippet: SnippetOptions
    /// Retry with Xapian's spelling correction when the query finds nothing.
    public var correctsSpelling: Bool
    /// How words without an operator combine.
    public var defaultOperator: DefaultOperator
    /// Whether the query is widened with pseudo-relevance feedback (only when sorting by relevance).
    public var expansion: Expansion
    /// Also return how the query was parsed and expanded and what each matched word added to each hit's weight
    /// (``SearchResults/explanation``); costs a small search per hit and word.
    public var explains: Bool

    /// Whether a search is widened with pseudo-relevance feedback.
    public enum Expansion: Sendable, Hashable {
        /// As the searcher's ranking says (the configuration's `[search] expand`).
        case configured
        /// Never.
        case off
        /// With these parameters (their `minimumWords` still applies).
        case on(QueryExpansion)
    }
    /// Search as you type: the last word of ``query``, when nothing follows it, also matches as the start of words
    /// (`clickh` finds `clickhouse`). The most frequent completions count as one word, and the word as typed adds
    /// its own weight, so whole-word matches are not pushed down by the many words it starts.
    public var prefix: Bool = false
    /// Seconds the search may run; past them it fails with ``SearchError/overBudget(query:reason:)`` rather than
    /// answer from part of the index.
    public var timeLimit: Double = SearchRequest.defaultTimeLimit

    /// The most hits one search returns: page through more with `offset`.
    public static let maximumLimit = 10_000
    /// The deepest page: Xapian ranks `offset + limit` matches to return one.
    public static let maximumOffset = 1_000_000
    /// The most words (runs of text between spaces) a query may have.
    public static let maximumWords = 1_000
    /// The longest query text, in UTF-8 bytes.
    public static let maximumQueryBytes = 64 * 1024
    /// The default time budget of a search, in seconds.
    public static let defaultTimeLimit = 10.0

    /// How plain words (without AND, OR, + or -) combine.
    public enum DefaultOperator: String, Sendable, Hashable {
        /// Every word must match.
        case and
        /// Any word may match; records with more of them rank higher.
        case or
        /// Every word must match; when no record has them all, any word may.
        case andThenOr
    }

    /// A search for `query`: 10 hits by relevance, plain-text snippets, spelling correction, OR, the configured
    /// expansion.
    public init(_ query: String, entities: [String] = [], filters: [SearchFilter] = [], offset: Int = 0,
                limit: Int = 10, sort: SearchSort = .relevance, facets: [String] = [],
                snippet: SnippetOptions = SnippetOptions(), correctsSpelling: Bool = true,
                defaultOperator: DefaultOperator = .or, expansion: Expansion = .configured, explains: Bool = false,
                prefix: Bool = false) {
        self.prefix = prefix
        self.expansion = expansion
        self.explains = explains
        self.query = query
        self.entities = entities
        self.filters = filters
        self.offset = offset
        self.limit = limit
        self.sort = sort
        self.facets = facets
        self.snippet = snippet
        self.correctsSpelling = correctsSpelling
        self.defaultOperator = defaultOperator
    }
}

/// A keyword filter: `field` must have `value`.
public struct SearchFilter: Sendable, Hashable, CustomStringConvertible {
    /// A keyword field (or `entity`).
    public var field: String
    /// The exact value, or, ending in `*`, every value starting with what comes before it (`role::*`).
    public var value: String

    /// A filter on `field` = `value`.
    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    /// `FIELD:VALUE`, as ``init(parsing:)`` reads it.
    public var description: String { field + ":" + value }

    /// Parses `FIELD:VALUE`.
    ///
    /// - Throws: ``SearchError/invalidFilter(_:reason:)`` when the text has no field before the colon, or no value
    ///   after it (or no colon at all).
    public init(parsing text: String) throws {
        guard let colon = text.firstIndex(of: ":") else {
            throw SearchError.invalidFilter(text, reason: .noColon)
        }
        guard colon != text.startIndex else {
            throw SearchError.invalidFilter(text, reason: .noField)
        }
        // An empty value matches nothing: most likely the value was lost (an unset shell variable).
        guard text.index(after: colon) != text.endIndex else {
            throw SearchError.invalidFilter(text, reason: .noValue)
        }
        field = String(text[..<colon])
        value = String(text[text.index(after: colon)...])
    }
}

/// The order of hits.
public enum SearchSort: Sendable, Hashable {
    /// Best matches first (BM25 weight).
    case relevance
    /// By a sortable number or date field.
    case field(String, ascending: Bool)

    /// Parses `relevance`, `FIELD` (ascending) or `-FIELD` (descending).
    public init(parsing text: String) {
        if text == "relevance" || text.isEmpty {
            self = .relevance
        } else if text.hasPrefix("-") {
            self = .field(String(text.dropFirst()), ascending: false)
        } else {
            self = .field(text.hasPrefix("+") ? String(text.dropFirst()) : text, ascending: true)
        }
    }
}

/// How snippets are made and marked.
public struct SnippetOptions: Sendable, Hashable {
    /// What the snippet text is safe for.
    public enum Format: Sendable, Hashable {
        /// HTML-escaped text; the markers are inserted as given.
        case html
        /// Plain text with control characters removed, so it cannot drive a terminal; markers as given.
        case plain
    }

    /// Inserted before each matched word.
    public var highlightStart: String
    /// Inserted after each matched word.
    public var highlightEnd: String
    /// What the snippet must be safe for.
    public var format: Format
    /// Approximate length in bytes; 0 for no snippets.
    public var length: Int

    /// Snippet options; by default plain text of about 200 bytes without markers.
    public init(highlightStart: String = "", highlightEnd: String = "", format: Format = .plain, length: Int = 200) {
        self.highlightStart = highlightStart
        self.highlightEnd = highlightEnd
        self.format = format
        self.length = length
    }
}

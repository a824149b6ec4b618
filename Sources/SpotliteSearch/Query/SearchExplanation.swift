/// How a search understood its query and weighted its hits (``SearchRequest/explains``): what users tune with.
public struct SearchExplanation: Sendable, Hashable {
    /// A word the search added to the query by pseudo-relevance feedback.
    public struct AddedTerm: Sendable, Hashable {
        /// The index term (`Z` marks a stem).
        public var term: String
        /// How well the term tells the best documents apart (Xapian's expansion weight).
        public var expansionWeight: Double
        /// The factor its weight in the query was scaled by.
        public var scale: Double
    }

    /// A query term a hit matched, and its part of the hit's score.
    public struct TermWeight: Sendable, Hashable {
        /// The index term (`Z` marks a stem; an upper-case prefix marks a field).
        public var term: String
        /// How often it occurs in the document, field weights included.
        public var frequency: Int
        /// What it adds to the hit's score (already scaled, for added terms).
        public var weight: Double
    }

    /// The query as parsed (Xapian's description).
    public var parsedQuery: String
    /// The query that ran: the parsed query with the proximity boost, expansion and filters.
    public var executedQuery: String
    /// The words expansion added, best first; empty when the query was not expanded.
    public var addedTerms: [AddedTerm]
    /// For each hit of the page, in order: the terms it matched.
    public var hitTerms: [[TermWeight]]
    /// The query words that synonyms widened (the configuration's `[search] synonyms`), and with what.
    public var synonyms: [QuerySynonyms.Use] = []
    /// With ``SearchRequest/prefix``: the last word, which also matched as the start of words.
    public var typedWord: String?
    /// The most frequent words of the index starting with ``typedWord`` (some of those it matched).
    public var completions: [String] = []
}

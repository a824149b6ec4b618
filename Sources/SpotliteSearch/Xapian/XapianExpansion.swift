/// Pseudo-relevance feedback for one search: the best `documents` of the query are taken as relevant, and up to
/// `terms` of their words that best tell them apart re-rank the query's matches, together weighing `weight` times
/// the query's own words (see `cx_expansion_options`).
package struct XapianExpansion {
    package var documents: Int
    package var terms: Int
    package var weight: Double
    /// Adds only stemmed (`Z`) terms, leaving out their unstemmed twins.
    package var stemmedOnly: Bool
    /// Queries with fewer distinct free-text terms than this are not expanded.
    package var minimumTerms: Int
    /// The documents taken as relevant are the best of this query (e.g. without the proximity boost) rather than of
    /// the searched one.
    package var feedbackQuery: XapianQuery?

    package init(documents: Int, terms: Int, weight: Double, stemmedOnly: Bool = false, minimumTerms: Int = 0,
                 feedbackQuery: XapianQuery? = nil) {
        self.feedbackQuery = feedbackQuery
        self.minimumTerms = minimumTerms
        self.documents = documents
        self.terms = terms
        self.weight = weight
        self.stemmedOnly = stemmedOnly
    }
}

/// A term expansion added to a query.
package struct XapianExpansionTerm: Sendable, Hashable {
    package let term: String
    /// Xapian's expansion weight: how well the term tells the top documents apart.
    package let expansionWeight: Double
    /// The factor the term's query weight was scaled by.
    package let scale: Double
}

/// A query term a hit matched, and its part of the hit's weight.
package struct XapianHitTerm: Sendable, Hashable {
    package let term: String
    /// Within-document frequency (field weights included).
    package let wdf: Int
    package let weight: Double
}

/// How matches are weighted and how queries are widened: Xapian's BM25 parameters, a proximity boost, pseudo-relevance
/// feedback and the stemming of query words. The `[search]` table of the configuration.
///
/// The defaults (``measured``) were chosen with `spotlite-bench relevance` over three judged sets, and each lever was
/// kept only where it helped on at least two of them (docs/benchmarks.md, "Relevance on judged collections"):
/// - BM25 k1 1.0, b 0.5 (Xapian's own defaults): the best trade-off across collections; the former k1 0.3, fitted
///   to one known-item set, cost 0.02–0.03 MAP on ad-hoc collections;
/// - a proximity boost for consecutive query words (window 10, weight 0.25), re-ranking the best 50 matches:
///   +0.08 MRR on known items, neutral on ad-hoc collections (±0.002), at about the cost of the query itself (the
///   best 100 scored within 0.001 on every collection and cost a fifth more a query; the best 30 lost 0.008 MRR);
/// - pseudo-relevance feedback for queries of 5 words or more (5 documents, 20 terms, weight 0.5): +0.04 MAP on
///   Cranfield, + on the Debtags topics; it hurts known-item lookups of 2–3 words, which are not expanded.
public struct RankingOptions: Sendable, Hashable {
    /// How quickly extra occurrences of a word stop adding weight (0: occurrences do not matter); a finite number ≥ 0.
    public var k1: Double
    /// How much a document's length lowers its weight, from 0 (not at all) to 1 (fully); 0 to 1.
    public var b: Double
    /// Documents shorter than this fraction of the average length count as that long, so that tiny documents do
    /// not get huge weights; a finite number ≥ 0.
    public var minimumNormalisedLength: Double
    /// Weights up documents where consecutive query words appear near each other; nil: off.
    public var proximity: ProximityBoost?
    /// Pseudo-relevance feedback applied to queries that do not choose for themselves; nil: off.
    public var expansion: QueryExpansion?
    /// Which query words are stemmed.
    public var stemming: Stemming

    /// Which query words are reduced to their stem (documents are always indexed with both forms).
    public enum Stemming: String, Sendable, Hashable, CaseIterable {
        /// Words starting with a lower-case letter (Xapian's default); capitalised words match as typed.
        case some
        /// Every word, capitalised or not.
        case all
    }

    /// Explicit parameters.
    public init(k1: Double, b: Double, minimumNormalisedLength: Double = 0.5, proximity: ProximityBoost? = nil,
                expansion: QueryExpansion? = nil, stemming: Stemming = .some) {
        self.k1 = k1
        self.b = b
        self.minimumNormalisedLength = minimumNormalisedLength
        self.proximity = proximity
        self.expansion = expansion
        self.stemming = stemming
    }

    /// Spotlite's defaults, chosen by measurement across collections (see above).
    public static let measured = RankingOptions(k1: 1.0, b: 0.5, minimumNormalisedLength: 0.5,
                                                proximity: .measured, expansion: .measured)

    /// The BM25 parameters used before cross-collection measurement (k1 0.3, b 0.65, fitted to one known-item set),
    /// without proximity or expansion: kept to compare against.
    public static let knownItemFitted = RankingOptions(k1: 0.3, b: 0.65, minimumNormalisedLength: 0.5)

    /// Xapian's own BM25 defaults (k1 = 1, b = 0.5, min_normlen = 0.5), nothing else.
    public static let xapianDefaults = RankingOptions(k1: 1.0, b: 0.5, minimumNormalisedLength: 0.5)

    var bm25: XapianBM25 {
        XapianBM25(k1: k1, k2: 0, k3: 1, b: b, minNormalisedLength: minimumNormalisedLength)
    }
}

/// A boost for documents where consecutive words of the query appear within a few positions of each other.
public struct ProximityBoost: Sendable, Hashable {
    /// How many positions a pair of words may span (2: adjacent); at least 2.
    public var window: Int
    /// The boost of a document where every pair is near, relative to one query word's weight (shared among pairs);
    /// a finite number > 0.
    public var weight: Double
    /// How many of the best matches (by the other weights) the boost re-ranks; matches past them keep their order.
    /// The word positions of this many documents at most are read, whatever the number of matches. At least 1.
    public var depth: Int

    /// A proximity boost.
    public init(window: Int, weight: Double, depth: Int = ProximityBoost.measuredDepth) {
        self.window = window
        self.weight = weight
        self.depth = depth
    }

    /// The measured default depth.
    public static let measuredDepth = 50

    /// The measured default: window 10, weight 0.25.
    public static let measured = ProximityBoost(window: 10, weight: 0.25)
}

/// Pseudo-relevance feedback: the best documents of a query are taken as relevant, and the words that best tell them
/// apart from the rest (Xapian's `RSet` and `Enquire::get_eset`) re-rank the query's matches, together weighing
/// `weight` times the query's own words. What matches does not change; documents that also use the words of the
/// best ones rise. It costs a second search.
public struct QueryExpansion: Sendable, Hashable {
    /// How many of the best documents are taken as relevant (≥ 1).
    public var documents: Int
    /// How many words are added at most (≥ 1).
    public var terms: Int
    /// The added words' weight as a whole, relative to the query's own words (a finite number > 0).
    public var weight: Double
    /// Queries with fewer distinct words than this are not expanded (≥ 1): short queries often look for one
    /// record, which expansion pushes down.
    public var minimumWords: Int

    /// Expansion parameters.
    public init(documents: Int, terms: Int, weight: Double, minimumWords: Int = 1) {
        self.documents = documents
        self.terms = terms
        self.weight = weight
        self.minimumWords = minimumWords
    }

    /// The measured default: 5 documents, 20 terms, weight 0.5, queries of 5 words or more.
    public static let measured = QueryExpansion(documents: 5, terms: 20, weight: 0.5, minimumWords: 5)
}

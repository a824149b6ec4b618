/// How hybrid search ranks one query: how much the list found by meaning counts against the list found by words,
/// and whether the meaning list is searched a second time from a query moved toward the best fused records.
///
/// Short queries mostly look for one record by its words (a name, a phrase remembered from it): there the meaning
/// list only breaks near-ties (``shortQueries``, semantic weight 0.1). A query of ``descriptiveWords`` distinct words
/// or more describes a topic, as query expansion's `min_words` assumes: both lists count alike
/// (``descriptiveQueries``), and before the final fusion the query vector is moved toward the mean vector of the best
/// ``feedbackRecords`` records of a first fusion (Rocchio's relevance feedback, in the model's space), and the
/// meaning list is read again from there. Chosen on Cranfield, the Debtags topics and the known-item queries
/// together (docs/embeddings.md), never on one collection.
///
/// ```swift
/// let ranking = HybridRanking.measured
/// ranking.isDescriptive("vim")                                    // false: weighted as a lookup
/// ranking.isDescriptive("heat transfer in hypersonic boundary layers")  // true: feedback and equal weights
/// ```
public struct HybridRanking: Sendable, Hashable {
    /// The fusion of queries under ``descriptiveWords`` distinct words.
    public var shortQueries: ReciprocalRankFusion
    /// The fusion of queries of ``descriptiveWords`` distinct words or more.
    public var descriptiveQueries: ReciprocalRankFusion
    /// From how many distinct words a query is descriptive.
    public var descriptiveWords: Int
    /// How many of the first fusion's best records move a descriptive query's vector; 0 turns the feedback off.
    public var feedbackRecords: Int
    /// How far the query vector moves: the weight of the records' mean vector against the query's own (1).
    public var feedbackWeight: Double

    /// A ranking; the defaults are ``measured``'s.
    /// - Precondition: `descriptiveWords` is at least 1, `feedbackRecords` not negative, `feedbackWeight` finite and
    ///   not negative.
    public init(shortQueries: ReciprocalRankFusion = ReciprocalRankFusion(k: 60, keywordWeight: 1, semanticWeight: 0.1),
                descriptiveQueries: ReciprocalRankFusion = ReciprocalRankFusion(k: 60),
                descriptiveWords: Int = 5, feedbackRecords: Int = 3, feedbackWeight: Double = 1) {
        precondition(descriptiveWords >= 1, "HybridRanking: descriptiveWords must be at least 1")
        precondition(feedbackRecords >= 0, "HybridRanking: feedbackRecords must not be negative")
        precondition(feedbackWeight >= 0 && feedbackWeight.isFinite, "HybridRanking: feedbackWeight must be a finite number >= 0")
        self.shortQueries = shortQueries
        self.descriptiveQueries = descriptiveQueries
        self.descriptiveWords = descriptiveWords
        self.feedbackRecords = feedbackRecords
        self.feedbackWeight = feedbackWeight
    }

    /// What ``HybridSearcher`` ranks with: k = 60; semantic weight 0.1 under 5 distinct words, 1 from 5 words on,
    /// with feedback from the best 3 records at weight 1.
    public static let measured = HybridRanking()

    /// One fusion for every query and no feedback: plain reciprocal rank fusion.
    public static func fixed(_ fusion: ReciprocalRankFusion) -> HybridRanking {
        HybridRanking(shortQueries: fusion, descriptiveQueries: fusion, descriptiveWords: 1, feedbackRecords: 0)
    }

    /// The distinct words of `query`: runs of letters and digits, compared without case.
    public static func distinctWords(in query: String) -> Int {
        var words = Set<String>()
        var current = ""
        for character in query.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.insert(current)
                current = ""
            }
        }
        if !current.isEmpty { words.insert(current) }
        return words.count
    }

    /// Whether `query` is ranked as a description (equal weights and feedback) rather than a lookup.
    public func isDescriptive(_ query: String) -> Bool {
        Self.distinctWords(in: query) >= descriptiveWords
    }

    /// The fusion `query` is ranked with.
    public func fusion(for query: String) -> ReciprocalRankFusion {
        isDescriptive(query) ? descriptiveQueries : shortQueries
    }

    /// Fuses the keyword and semantic lists of `query`, best first.
    ///
    /// For a descriptive query with feedback on, the lists are fused once, `research` is called with the best
    /// ``feedbackRecords`` records of that fusion and returns the semantic list read again from the moved query
    /// (nil keeps the first one), and the keyword list is fused with that one.
    public func fuse<Key: Hashable & Sendable>(query: String, keyword: [Key], semantic: [Key],
                                               research: ([Key]) throws -> [Key]?) rethrows -> [ReciprocalRankFusion.Fused<Key>] {
        let descriptive = isDescriptive(query)
        let fusion = descriptive ? descriptiveQueries : shortQueries
        let first = fusion.fuse(keyword: keyword, semantic: semantic)
        guard descriptive, feedbackRecords > 0, feedbackWeight > 0, !first.isEmpty,
              let again = try research(first.prefix(feedbackRecords).map(\.key)) else { return first }
        return fusion.fuse(keyword: keyword, semantic: again)
    }

    /// `query` moved toward the mean of `vectors` by ``feedbackWeight``, normalised to length 1 (the vectors are
    /// the model's, of length 1). `query` itself when `vectors` is empty or of other dimensions.
    public func movedQuery(_ query: [Float], toward vectors: [[Float]]) -> [Float] {
        let usable = vectors.filter { $0.count == query.count }
        guard !usable.isEmpty else { return query }
        var moved = query
        let share = Float(feedbackWeight) / Float(usable.count)
        for vector in usable {
            for index in moved.indices { moved[index] += share * vector[index] }
        }
        var norm: Float = 0
        for value in moved { norm += value * value }
        norm = norm.squareRoot()
        guard norm > 0, norm.isFinite else { return query }
        return moved.map { $0 / norm }
    }
}

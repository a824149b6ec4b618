/// Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each ranked list gives a record
/// `weight / (k + rank)`, rank counted from 1, and the records are ordered by the sum.
///
/// Only ranks are fused, never scores: a BM25 weight and a cosine similarity are on scales that cannot be added, and
/// rank fusion needs no calibration per collection. A record absent from a list gets nothing from it.
///
/// ```swift
/// let fusion = ReciprocalRankFusion()
/// let fused = fusion.fuse(keyword: ["a", "b", "c"], semantic: ["c", "d"])
/// // c first: third by its words and first by its meaning.
/// ```
public struct ReciprocalRankFusion: Sendable, Hashable {
    /// The constant that damps the head of every list; 60 in the original paper and in most engines.
    public var k: Double
    /// How much the keyword list counts.
    public var keywordWeight: Double
    /// How much the semantic list counts.
    public var semanticWeight: Double

    /// A fusion; the defaults are the paper's: k = 60 and equal weights.
    /// - Precondition: `k` is at least 0 and the weights are finite and not negative.
    public init(k: Double = 60, keywordWeight: Double = 1, semanticWeight: Double = 1) {
        precondition(k >= 0 && k.isFinite, "ReciprocalRankFusion: k must be a finite number >= 0")
        precondition(keywordWeight >= 0 && keywordWeight.isFinite && semanticWeight >= 0 && semanticWeight.isFinite,
                     "ReciprocalRankFusion: weights must be finite numbers >= 0")
        self.k = k
        self.keywordWeight = keywordWeight
        self.semanticWeight = semanticWeight
    }

    /// One record of the fused list, with where each list had it.
    public struct Fused<Key: Hashable & Sendable>: Sendable, Hashable {
        /// The record.
        public let key: Key
        /// The fused score: the sum of `weight / (k + rank)` over the lists that hold the record.
        public let score: Double
        /// Its rank in the keyword list, from 1; nil when the keyword list does not hold it.
        public let keywordRank: Int?
        /// Its rank in the semantic list, from 1; nil when the semantic list does not hold it.
        public let semanticRank: Int?
    }

    /// Fuses two ranked lists, best first.
    ///
    /// A key listed twice in one list counts at its first (best) rank. Ties are broken by the better of the record's
    /// ranks, then by its keyword rank, then by the order of first appearance (keyword list first), so the result
    /// never depends on hashing.
    public func fuse<Key: Hashable & Sendable>(keyword: [Key], semantic: [Key]) -> [Fused<Key>] {
        var order: [Key] = []
        var keywordRanks: [Key: Int] = [:]
        var semanticRanks: [Key: Int] = [:]
        for (offset, key) in keyword.enumerated() where keywordRanks[key] == nil {
            keywordRanks[key] = offset + 1
            order.append(key)
        }
        for (offset, key) in semantic.enumerated() where semanticRanks[key] == nil {
            semanticRanks[key] = offset + 1
            if keywordRanks[key] == nil { order.append(key) }
        }
        let fused = order.enumerated().map { appearance, key in
            let keywordRank = keywordRanks[key]
            let semanticRank = semanticRanks[key]
            var score = 0.0
            if let keywordRank { score += keywordWeight / (k + Double(keywordRank)) }
            if let semanticRank { score += semanticWeight / (k + Double(semanticRank)) }
            return (appearance, Fused(key: key, score: score, keywordRank: keywordRank, semanticRank: semanticRank))
        }
        return fused.sorted { lhs, rhs in
            if lhs.1.score != rhs.1.score { return lhs.1.score > rhs.1.score }
            let lhsBest = min(lhs.1.keywordRank ?? .max, lhs.1.semanticRank ?? .max)
            let rhsBest = min(rhs.1.keywordRank ?? .max, rhs.1.semanticRank ?? .max)
            if lhsBest != rhsBest { return lhsBest < rhsBest }
            let lhsKeyword = lhs.1.keywordRank ?? .max
            let rhsKeyword = rhs.1.keywordRank ?? .max
            if lhsKeyword != rhsKeyword { return lhsKeyword < rhsKeyword }
            return lhs.0 < rhs.0
        }.map(\.1)
    }
}

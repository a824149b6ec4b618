/// How matches are weighted: the parameters of Xapian's BM25 weighting.
///
/// The defaults (``tuned``) were chosen by measurement on known-item queries built from the Debian package corpus
/// (see ``RelevanceEvaluator`` and the README's relevance section); ``xapianDefaults`` is plain BM25 as Xapian ships
/// it, for comparison.
public struct RankingOptions: Sendable, Hashable {
    /// How quickly extra occurrences of a word stop adding weight (0: occurrences do not matter).
    public var k1: Double
    /// How much a document's length lowers its weight, from 0 (not at all) to 1 (fully).
    public var b: Double
    /// Documents shorter than this fraction of the average length count as that long, so that tiny documents do
    /// not get huge weights.
    public var minimumNormalisedLength: Double

    public init(k1: Double, b: Double, minimumNormalisedLength: Double = 0.5) {
        self.k1 = k1
        self.b = b
        self.minimumNormalisedLength = minimumNormalisedLength
    }

    /// Spotlite's measured defaults.
    public static let tuned = RankingOptions(k1: 0.3, b: 0.65, minimumNormalisedLength: 0.5)

    /// Xapian's own BM25 defaults (k1 = 1, b = 0.5, min_normlen = 0.5).
    public static let xapianDefaults = RankingOptions(k1: 1.0, b: 0.5, minimumNormalisedLength: 0.5)

    var bm25: XapianBM25 {
        XapianBM25(k1: k1, k2: 0, k3: 1, b: b, minNormalisedLength: minimumNormalisedLength)
    }
}

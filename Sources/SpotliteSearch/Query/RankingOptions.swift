/// How matches are weighted: the parameters of Xapian's BM25 weighting.
///
/// The defaults (``tuned``) were chosen by measurement (`RelevanceTuningTests`, run with
/// `SPOTLITE_RELEVANCE_TUNING=1`): the whole Debian corpus (63,666 packages) indexed with the shipped configuration,
/// two sets of 1,000 known-item queries made by ``KnownItemQueryGenerator`` (2–3 distinctive words of a package's
/// description; of its summary), MRR@10 and success@10 for a grid of k1 × b:
///
/// | parameters                       | description MRR / S@10 | summary MRR / S@10 |
/// |----------------------------------|------------------------|--------------------|
/// | Xapian's defaults (k1 1, b 0.5)  | 0.545 / 0.824          | 0.663 / 0.900      |
/// | tuned (k1 0.3, b 0.65)           | 0.597 / 0.861          | 0.669 / 0.903      |
/// | k1 1.6–2.2                       | 0.44–0.49 / 0.71–0.77  | 0.62–0.65 / 0.87–0.90 |
///
/// A small k1 wins because field weights (name × 4, summary × 2) already raise within-document frequencies: a
/// quickly saturating term frequency keeps a word repeated by weighting from outranking a second matching word.
/// k1 0.1–0.3 with b 0.5–0.95 is a plateau (mean MRR 0.632–0.634, within the noise of 2 × 1,000 queries); the
/// middle of it was kept. Requiring every word (AND, or AND falling back to OR) did not help (−0.002 / ±0).
public struct RankingOptions: Sendable, Hashable {
    /// How quickly extra occurrences of a word stop adding weight (0: occurrences do not matter).
    public var k1: Double
    /// How much a document's length lowers its weight, from 0 (not at all) to 1 (fully).
    public var b: Double
    /// Documents shorter than this fraction of the average length count as that long, so that tiny documents do
    /// not get huge weights.
    public var minimumNormalisedLength: Double

    /// Explicit parameters.
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

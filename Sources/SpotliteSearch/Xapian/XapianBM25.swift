import CXapian

/// BM25 weighting parameters (see Xapian's `BM25Weight`).
package struct XapianBM25: Sendable, Equatable {
    /// How quickly extra occurrences of a term stop adding weight.
    package var k1: Double
    /// Strength of the query-length / document-length correction (0 disables it).
    package var k2: Double
    /// How much a term repeated in the query counts.
    package var k3: Double
    /// Document length normalisation, from 0 (none) to 1 (full).
    package var b: Double
    /// Shortest normalised document length, so tiny documents do not get huge weights.
    package var minNormalisedLength: Double

    /// Xapian's defaults.
    package init() {
        let defaults = cx_bm25_default_params()
        self.init(k1: defaults.k1, k2: defaults.k2, k3: defaults.k3, b: defaults.b,
                  minNormalisedLength: defaults.min_normlen)
    }

    /// Explicit parameters.
    package init(k1: Double, k2: Double, k3: Double, b: Double, minNormalisedLength: Double) {
        self.k1 = k1
        self.k2 = k2
        self.k3 = k3
        self.b = b
        self.minNormalisedLength = minNormalisedLength
    }

    var shimParameters: cx_bm25_params {
        cx_bm25_params(k1: k1, k2: k2, k3: k3, b: b, min_normlen: minNormalisedLength)
    }
}

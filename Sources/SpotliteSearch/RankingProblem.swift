/// A ranking option out of its range (``SearchError/invalidRanking(reason:)``), with the value given.
public enum RankingProblem: Sendable, Hashable, CustomStringConvertible {
    /// ``RankingOptions/k1``, ``RankingOptions/b`` or ``RankingOptions/minimumNormalisedLength`` is negative or
    /// not finite.
    case negativeOrNotFinite(RankingOptions.Parameter, value: Double)
    /// ``RankingOptions/b`` is over 1.
    case bOverOne(Double)
    /// ``ProximityBoost/window`` is below 2.
    case proximityWindow(Int)
    /// ``ProximityBoost/weight`` is not a finite number above 0.
    case proximityWeight(Double)
    /// ``ProximityBoost/depth`` is below 1.
    case proximityDepth(Int)
    /// ``QueryExpansion/documents``, ``QueryExpansion/terms`` or ``QueryExpansion/minimumWords`` is below 1.
    case expansionCounts(documents: Int, terms: Int, minimumWords: Int)
    /// ``QueryExpansion/weight`` is not a finite number above 0.
    case expansionWeight(Double)

    /// The option, its value and its range.
    public var description: String {
        switch self {
        case let .negativeOrNotFinite(parameter, value):
            return "\(parameter.rawValue) is \(value); it must be a finite number ≥ 0"
        case let .bOverOne(b):
            return "b is \(b); it must be between 0 and 1"
        case let .proximityWindow(window):
            return "the proximity window is \(window); it must be at least 2 positions"
        case let .proximityWeight(weight):
            return "the proximity weight is \(weight); it must be a finite number > 0"
        case let .proximityDepth(depth):
            return "the proximity depth is \(depth); it must re-rank at least 1 match"
        case let .expansionCounts(documents, terms, minimumWords):
            return "expansion needs documents, terms and minimum words of at least 1 (got \(documents), \(terms), \(minimumWords))"
        case let .expansionWeight(weight):
            return "the expansion weight is \(weight); it must be a finite number > 0"
        }
    }
}

extension RankingOptions {
    /// A BM25 parameter of the options, by the name the error gives it.
    public enum Parameter: String, Sendable, Hashable, CaseIterable {
        /// ``RankingOptions/k1``.
        case k1
        /// ``RankingOptions/b``.
        case b
        /// ``RankingOptions/minimumNormalisedLength``.
        case minimumNormalisedLength
    }
}

import ArgumentParser

/// The allowed range of every numeric option, checked in `validate()` so that an out-of-range value is a one-line
/// usage error rather than an allocation failure, a wrapped number or a silently clamped answer.
///
/// Numeric options are declared with `parsing: .unconditional`, so `--limit -1` reaches this check (and is told
/// the range) instead of being taken for an unknown option and reported as a missing value.
enum OptionRange {
    /// Lines per import transaction: one transaction holds its whole batch in memory.
    static let importBatch = 1...100_000
    /// Hits per search: the library's budget.
    static let searchLimit = 0...10_000
    /// Hits skipped per search: Xapian ranks offset + limit matches to return one page.
    static let searchOffset = 0...1_000_000
    /// Queries of `search --queries` run at once: each holds its own open index.
    static let searchJobs = 1...64
    /// Values shown per facet by `search` (0: all).
    static let facetValues = 0...100_000
    /// Lines `init` reads to guess the fields.
    static let initSample = 1...1_000_000
    /// Transactions listed by `history list`.
    static let historyLimit = 1...Int.max
    /// Tokens are positive; 0 means "from the start".
    static let historyAfter: ClosedRange<Int64> = 0...Int64.max

    /// Throws a usage error naming the option and the bound it crossed unless `value` lies in `range`.
    static func check<Value: FixedWidthInteger>(_ value: Value, in range: ClosedRange<Value>, option: String,
                                                 hint: String = "") throws {
        if value < range.lowerBound {
            throw ValidationError("\(option) must be ≥ \(range.lowerBound), not \(value)")
        }
        if value > range.upperBound {
            throw ValidationError("\(option) must be ≤ \(Terminal.number(Int(range.upperBound))), not \(value)\(hint)")
        }
    }
}

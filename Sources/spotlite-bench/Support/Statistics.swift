/// Summary statistics over samples. Percentiles use the nearest-rank method, so p99 of 500 samples is the 495th
/// smallest: an observed value, never an interpolation.
enum Statistics {
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }

    /// The nearest-rank percentile `p` (0 < p ≤ 100).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// Latency over a set of operations: mean and percentiles, in seconds.
struct LatencySummary: Codable, Sendable {
    var count: Int
    var mean: Double
    var p50: Double
    var p95: Double
    var p99: Double
    var max: Double

    init(samples: [Double]) {
        count = samples.count
        mean = Statistics.mean(samples)
        p50 = Statistics.percentile(samples, 50)
        p95 = Statistics.percentile(samples, 95)
        p99 = Statistics.percentile(samples, 99)
        max = samples.max() ?? .nan
    }

    /// The median, statistic by statistic, of summaries of several passes over the same operations.
    init(medianOf passes: [LatencySummary]) {
        count = passes.first?.count ?? 0
        mean = Statistics.median(passes.map(\.mean))
        p50 = Statistics.median(passes.map(\.p50))
        p95 = Statistics.median(passes.map(\.p95))
        p99 = Statistics.median(passes.map(\.p99))
        max = Statistics.median(passes.map(\.max))
    }
}

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

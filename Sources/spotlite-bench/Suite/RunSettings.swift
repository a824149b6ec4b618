/// How much work a run does: repetitions and workload sizes (the defaults make the suite of record).
struct RunSettings: Codable, Sendable {
    /// Repetitions of the quick figures (capture overhead).
    var runs: Int
    /// Repetitions of the slow figures (rebuilds, incremental updates, query passes, memory).
    var slowRuns: Int
    var queries: Int
    var knownItems: Int
    var freshnessWrites: Int
    var freshnessIntervalMilliseconds: Int
    var singleRowTransactions: Int
    var batchRows: Int
    /// Records of the engine-lever builds of the rebuild figure.
    var leverRecords: Int
    var scale: Bool
    /// Rows of the one transaction of the large-transaction figure (with `--scale`).
    var largeTransactionRows: Int
    var scaleRecords: Int
    /// The layouts of the remote figure: how many loopback shard servers each has.
    var remoteShardCounts: [Int]
    /// Probes of the serve figure's freshness measurement.
    var serveProbes: Int
    /// Whether the serve figure also measures freshness with embeddings (vectors of every record built first).
    var serveSemantic: Bool
}

/// The figures of the suite, in the order they run (the last ones write to the store).
enum FigureID: String, CaseIterable, Codable, Sendable {
    case capture, rebuild, shards, remote, size, query, cli, relevance, memory, freshness, serve, incremental, large, transaction, scale
}

import Foundation
import Spotlite
import SpotliteTooling

/// Figure 10: shards on `xapian-tcpsrv` servers over loopback (Xapian's remote backend) against one local index of the
/// same store, in the same run: whether the top 10 of every ad-hoc query is the same, what a query costs at p50 and
/// p99 with 1, 2, 3 and 6 remote shards (`--remote-shards`), and what a rebuild costs: the first, onto empty servers,
/// and a second one in place over the index they hold (by generation tag and sweep).
enum RemoteShardFigure {
    struct Layout: Codable, Sendable {
        var shards: Int
        var rebuildSeconds: Double
        /// The second rebuild, in place over the index the servers hold.
        var rebuildAgainSeconds: Double
        var query: LatencySummary
        var p50RelativeToLocal: Double
        var p99RelativeToLocal: Double
        /// Queries whose top 10 matches the local index's (same keys in the same order, ties aside).
        var sameTopTen: Int
    }

    /// Remote shards against one local index: a first rebuild, and a query at p50 and p99.
    static let rebuildTarget = 1.5
    static let queryTarget = 2.0

    struct Result: FigureResult {
        var documents: Int
        var queries: Int
        var localRebuildSeconds: Double
        var localQuery: LatencySummary
        var layouts: [Layout]

        var rows: [TableRow] {
            var rows = [TableRow("10 remote", "local index, 1 shard: rebuild; OR queries p50 (p99)",
                                 "\(Format.seconds(localRebuildSeconds)); \(Format.milliseconds(localQuery.p50)) (\(Format.milliseconds(localQuery.p99)))")]
            for layout in layouts {
                rows.append(TableRow("10 remote", "\(layout.shards) loopback shard\(layout.shards == 1 ? "" : "s"): rebuild, again in place / local; queries p50, p99 / local",
                                     "\(Format.ratio(layout.rebuildSeconds / localRebuildSeconds)), \(Format.ratio(layout.rebuildAgainSeconds / localRebuildSeconds)); \(Format.milliseconds(layout.query.p50)) = \(Format.ratio(layout.p50RelativeToLocal)), \(Format.milliseconds(layout.query.p99)) = \(Format.ratio(layout.p99RelativeToLocal))",
                                     target: "rebuild ≤ \(Format.ratio(RemoteShardFigure.rebuildTarget)), queries ≤ \(Format.ratio(RemoteShardFigure.queryTarget))",
                                     met: layout.rebuildSeconds <= RemoteShardFigure.rebuildTarget * localRebuildSeconds
                                         && layout.p50RelativeToLocal <= RemoteShardFigure.queryTarget && layout.p99RelativeToLocal <= RemoteShardFigure.queryTarget))
                rows.append(TableRow("10 remote", "\(layout.shards) loopback shard\(layout.shards == 1 ? "" : "s"): queries whose top 10 is the local one's",
                                     "\(layout.sameTopTen)/\(queries)", target: "all", met: layout.sameTopTen == queries))
            }
            return rows
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        let store = try context.store()
        let queries = QueryWorkload.adHoc(records: context.corpus.records, textFields: context.textFields,
                                          count: context.settings.queries)
        var local = context.configuration
        local.indexPath = context.path("remote-figure-local")
        local.shards = .count(1)
        try? FileManager.default.removeItem(atPath: local.indexPath)
        let localRebuild = try await Stopwatch.seconds { _ = try await SpotliteIndexer(store: store, configuration: local).rebuild() }
        let localSearcher = try IndexSearcher(configuration: local)
        let localTop = try topTen(localSearcher, queries)
        let localLatency = try latency(localSearcher, queries)

        var layouts: [Layout] = []
        for count in context.settings.remoteShardCounts {
            let servers = try (0..<count).map { shard in
                try XapianTcpServer(databasePath: context.path("remote-figure-\(count)-server-\(shard)"), lifetime: .seconds(3600))
            }
            defer { servers.forEach { $0.stop() } }
            // Names the sessions, so that a harness (or a person) can check that none outlives the run.
            Progress.note("\(count) shard server\(count == 1 ? "" : "s") started: "
                          + servers.map { "\($0.hostAndPort) (session \($0.pid ?? 0))" }.joined(separator: ", "))
            var remote = context.configuration
            remote.indexPath = context.path("remote-figure-\(count)")
            remote.shards = .locations(servers.map { .remote(host: "127.0.0.1", port: $0.port) })
            try? FileManager.default.removeItem(atPath: remote.indexPath)
            let rebuild = try await Stopwatch.seconds { _ = try await SpotliteIndexer(store: store, configuration: remote).rebuild() }
            let rebuildAgain = try await Stopwatch.seconds { _ = try await SpotliteIndexer(store: store, configuration: remote).rebuild() }
            let searcher = try IndexSearcher(configuration: remote)
            let top = try topTen(searcher, queries)
            let same = zip(top, localTop).filter { sameRanking($0, $1) }.count
            let summary = try latency(searcher, queries)
            // The local index measured again right after, so that both sides see the same machine load.
            let localAgain = try latency(localSearcher, queries)
            layouts.append(Layout(shards: count, rebuildSeconds: rebuild, rebuildAgainSeconds: rebuildAgain, query: summary,
                                  p50RelativeToLocal: summary.p50 / localAgain.p50,
                                  p99RelativeToLocal: summary.p99 / localAgain.p99, sameTopTen: same))
            Progress.note(String(format: "%d remote shards: rebuild %.2f s (local %.2f s), again in place %.2f s, p50 %.2f ms, top 10 same for %d/%d",
                                 count, rebuild, localRebuild, rebuildAgain, summary.p50 * 1000, same, queries.count))
        }
        return Result(documents: context.corpus.records.count, queries: queries.count, localRebuildSeconds: localRebuild,
                      localQuery: localLatency, layouts: layouts)
    }

    private static func request(_ query: QueryWorkload.Query) -> SearchRequest {
        SearchRequest(query.text, limit: 10, snippet: SnippetOptions(length: 0), correctsSpelling: false, defaultOperator: .or)
    }

    private static func topTen(_ searcher: IndexSearcher, _ queries: [QueryWorkload.Query]) throws -> [[SearchHit]] {
        try queries.map { try searcher.search(request($0)).hits }
    }

    /// Same keys in the same order, weights equal within tolerance; within a run of equal weights (ordered by
    /// document id, which differs between layouts) only the set must agree, and a run the page cuts only its weights.
    static func sameRanking(_ got: [SearchHit], _ expected: [SearchHit]) -> Bool {
        guard got.count == expected.count else { return false }
        var start = 0
        while start < expected.count {
            var end = start + 1
            while end < expected.count, abs(expected[end].score - expected[start].score) < 1e-9 { end += 1 }
            for index in start..<end where abs(got[index].score - expected[index].score) > 1e-9 * max(1, abs(expected[index].score)) {
                return false
            }
            if end < expected.count, Set(got[start..<end].map(\.key.description)) != Set(expected[start..<end].map(\.key.description)) {
                return false
            }
            start = end
        }
        return true
    }

    /// One warm-up pass, then one measured pass.
    private static func latency(_ searcher: IndexSearcher, _ queries: [QueryWorkload.Query]) throws -> LatencySummary {
        for query in queries { _ = try searcher.search(request(query)) }
        var samples: [Double] = []
        for query in queries { samples.append(try Stopwatch.seconds { _ = try searcher.search(request(query)) }) }
        return LatencySummary(samples: samples)
    }
}

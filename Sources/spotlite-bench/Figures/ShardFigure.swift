import Foundation
import Spotlite

/// Figure 9: the sharded index. Spotlite's rebuild with 1, 2 and 4 shards (one writer thread per shard) against the
/// single-threaded raw loop of figure 2 (same documents, same write scheme), each in a child process, in the same
/// run; then the same ad-hoc OR queries as figure 5 on each index, and on the 2-shard index compacted shard by shard,
/// to see what sharding costs a search and whether a compaction after the rebuild pays for itself.
enum ShardFigure {
    struct Build: Codable, Sendable {
        var shards: Int
        var seconds: Double
        var samples: [Double]
        /// Median over runs of this build's time divided by the raw loop's time in the same run.
        var relativeToRaw: Double
        var cpuRelativeToRaw: Double
        var peakResidentBytes: Int
        var query: LatencySummary
        /// p50 of this index's queries divided by the 1-shard index's p50.
        var p50RelativeToOneShard: Double
    }

    struct Result: FigureResult {
        var runs: Int
        var documents: Int
        var rawSeconds: Double
        var builds: [Build]
        var compactionSeconds: Double
        var compactedQuery: LatencySummary
        var compactedP50RelativeToUncompacted: Double

        static let rebuildTarget = 0.6
        static let latencyTarget = 1.2

        var rows: [TableRow] {
            var rows = [TableRow("9 shards", "raw loop, \(documents) docs, one thread (median of \(runs))", Format.seconds(rawSeconds))]
            for build in builds {
                rows.append(TableRow("9 shards", "rebuild with \(build.shards) shard\(build.shards == 1 ? "" : "s") / raw loop (CPU \(Format.ratio(build.cpuRelativeToRaw)); peak RSS \(Format.bytes(build.peakResidentBytes)))",
                                     "\(Format.seconds(build.seconds)) = \(Format.ratio(build.relativeToRaw))",
                                     target: build.shards > 1 ? "≤ 0.6×" : "",
                                     met: build.shards > 1 ? build.relativeToRaw <= Self.rebuildTarget : nil))
            }
            for build in builds {
                rows.append(TableRow("9 shards", "OR queries on \(build.shards) shard\(build.shards == 1 ? "" : "s"): p50 / 1 shard (mean \(Format.milliseconds(build.query.mean)), p99 \(Format.milliseconds(build.query.p99)))",
                                     "\(Format.milliseconds(build.query.p50)) = \(Format.ratio(build.p50RelativeToOneShard))",
                                     target: build.shards > 1 ? "≤ 1.2×" : "",
                                     met: build.shards > 1 ? build.p50RelativeToOneShard <= Self.latencyTarget : nil))
            }
            rows.append(TableRow("9 shards", "2 shards compacted after the rebuild (\(Format.seconds(compactionSeconds)) more): p50 / uncompacted",
                                 "\(Format.milliseconds(compactedQuery.p50)) = \(Format.ratio(compactedP50RelativeToUncompacted))"))
            return rows
        }
    }

    static let shardCounts = [1, 2, 4]

    static func run(_ context: BenchContext) throws -> Result {
        _ = try context.store()
        var raw: [Double] = []
        var times = Array(repeating: [Double](), count: shardCounts.count)
        var ratios = Array(repeating: [Double](), count: shardCounts.count)
        var cpuRatios = Array(repeating: [Double](), count: shardCounts.count)
        var peaks = Array(repeating: 0, count: shardCounts.count)
        var rawOptions = RawIndexer.Options()
        rawOptions.noSync = true
        func indexPath(_ shards: Int) -> String { context.path("index-\(shards)-shards") }
        for run in 0..<context.settings.slowRuns {
            let rawRun = try ChildRawBuild.run(corpusPath: context.corpus.path, configurationPath: context.configurationPath,
                                               entity: context.entity.name, indexPath: context.path("raw-index"),
                                               limit: nil, options: rawOptions)
            raw.append(rawRun.seconds)
            for (index, shards) in shardCounts.enumerated() {
                try? FileManager.default.removeItem(atPath: indexPath(shards))
                let build = try ChildRebuild.run(configurationPath: context.configurationPath, storePath: context.storePath,
                                                 indexPath: indexPath(shards), shards: shards)
                times[index].append(build.seconds)
                ratios[index].append(build.seconds / rawRun.seconds)
                cpuRatios[index].append(build.cpuSeconds / rawRun.cpuSeconds)
                peaks[index] = max(peaks[index], build.peakResidentBytes)
            }
            Progress.note(String(format: "shard run %d/%d: raw %.2f s; %@", run + 1, context.settings.slowRuns, rawRun.seconds,
                                 zip(shardCounts, times).map { String(format: "%d shards %.2f s", $0, $1.last!) }.joined(separator: ", ")))
        }

        // The 2-shard index compacted shard by shard (in parallel would be the product's way; one after the other
        // here gives the total work).
        let compacted = context.path("index-2-shards-compacted")
        try? FileManager.default.removeItem(atPath: compacted)
        let source = try liveGeneration(of: indexPath(2))
        let compactedGeneration = compacted + "/gen-000001"
        try FileManager.default.createDirectory(atPath: compactedGeneration, withIntermediateDirectories: true)
        let compactionSeconds = try Stopwatch.seconds {
            for shard in 0..<2 {
                try XapianDatabase(path: source + "/shard-\(shard)").compact(to: compactedGeneration + "/shard-\(shard)")
            }
        }
        try FileManager.default.copyItem(atPath: source + "/XAPIANDB", toPath: compactedGeneration + "/XAPIANDB")
        try Data("auto gen-000001\n".utf8).write(to: URL(fileURLWithPath: compacted + "/XAPIANDB"))

        let queries = QueryWorkload.adHoc(records: context.corpus.records, textFields: context.textFields,
                                          count: context.settings.queries)
        var latencies: [LatencySummary] = []
        for shards in shardCounts {
            latencies.append(try latency(indexPath: indexPath(shards), queries: queries, context: context))
        }
        let compactedLatency = try latency(indexPath: compacted, queries: queries, context: context)
        let builds = shardCounts.indices.map { index in
            Build(shards: shardCounts[index], seconds: Statistics.median(times[index]), samples: times[index],
                  relativeToRaw: Statistics.median(ratios[index]), cpuRelativeToRaw: Statistics.median(cpuRatios[index]),
                  peakResidentBytes: peaks[index], query: latencies[index],
                  p50RelativeToOneShard: latencies[index].p50 / latencies[0].p50)
        }
        return Result(runs: raw.count, documents: context.corpus.records.count, rawSeconds: Statistics.median(raw),
                      builds: builds, compactionSeconds: compactionSeconds, compactedQuery: compactedLatency,
                      compactedP50RelativeToUncompacted: compactedLatency.p50 / latencies[1].p50)
    }

    /// The OR queries through the query API (no snippets), one warm-up pass then one measured pass; the indexes are
    /// searched in turn, so each has the page cache to itself while measured.
    private static func latency(indexPath: String, queries: [QueryWorkload.Query], context: BenchContext) throws -> LatencySummary {
        let searcher = try IndexSearcher(configuration: context.configuration, indexPath: indexPath)
        for query in queries { _ = try searcher.search(SearchRequest(query.text, snippet: SnippetOptions(length: 0), defaultOperator: .or)) }
        var samples: [Double] = []
        for query in queries {
            samples.append(try Stopwatch.seconds {
                _ = try searcher.search(SearchRequest(query.text, snippet: SnippetOptions(length: 0), defaultOperator: .or))
            })
        }
        return LatencySummary(samples: samples)
    }

    private static func liveGeneration(of index: String) throws -> String {
        guard let stub = try? String(contentsOfFile: index + "/XAPIANDB", encoding: .utf8),
              let name = stub.split(whereSeparator: \.isWhitespace).last else {
            throw BenchError("no live generation in \(index)")
        }
        return index + "/" + name
    }
}

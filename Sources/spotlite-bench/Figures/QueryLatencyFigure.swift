import Foundation
import Spotlite

/// Figure 5: latency of two- and three-word queries through Spotlite's query API (``IndexSearcher``, top 10, no
/// snippets) and through SQLite FTS5 (`MATCH` ordered by `bm25()` with the same field weights, top 10, keys fetched),
/// as OR-queries and as AND-queries. Each pass runs every query once per engine and mode; the statistics are
/// medians over passes, and the FTS5/Spotlite ratio is taken within each pass.
enum QueryLatencyFigure {
    struct Result: FigureResult {
        var passes: Int
        var queries: Int
        var spotliteOr: LatencySummary
        var spotliteAnd: LatencySummary
        /// The same index searched through the engine alone: a parser without spelling correction, top 10, hits'
        /// data fetched but not decoded. The gap to `spotliteOr` is what the query API adds.
        var engineOr: LatencySummary
        var engineAnd: LatencySummary
        /// The engine alone, OR, parsing with Xapian's spelling-correction flag as the query API does.
        var engineOrSpelling: LatencySummary
        /// The engine alone, OR, with the proximity boost chained into the query (OP_NEAR pairs under AND_MAYBE, as
        /// the query API did before), so that the matcher reads positions for every match holding two of the words.
        var engineOrProximityEveryMatch: LatencySummary?
        /// The engine alone, OR, with the proximity boost as the query API applies it: re-ranking the best matches.
        var engineOrProximityReranked: LatencySummary?
        /// The engine alone, OR, asked for the matches the default ranking asks the matcher for (one past the
        /// re-ranking depth, at least 100 looked at for an exact small total), without the boost: for attribution.
        var engineOrDeepMatch: LatencySummary?
        var proximityDepth: Int?
        var fts5Or: LatencySummary
        var fts5And: LatencySummary
        /// FTS5 mean / Spotlite mean, OR-queries (median over passes).
        var speedupOr: Double
        var speedupAnd: Double
        /// Queries Spotlite answered with no hit (AND-queries always have one: the record the words came from).
        var emptyAndResults: Int

        static let meanTarget = 0.001
        static let speedupTarget = 10.0

        var proximityRows: [TableRow] {
            guard let every = engineOrProximityEveryMatch, let reranked = engineOrProximityReranked,
                  let depth = proximityDepth else { return [] }
            func line(_ summary: LatencySummary) -> String {
                "mean \(Format.milliseconds(summary.mean)) = \(Format.ratio(summary.mean / engineOr.mean)), p50 \(Format.milliseconds(summary.p50)) = \(Format.ratio(summary.p50 / engineOr.p50)), p99 \(Format.milliseconds(summary.p99))"
            }
            var rows = [
                TableRow("5 query", "Xapian alone OR + proximity on every match (before) / OR", line(every)),
                TableRow("5 query", "Xapian alone OR + proximity re-ranking the best \(depth) / OR", line(reranked)),
            ]
            if let deep = engineOrDeepMatch {
                rows.append(TableRow("5 query", "Xapian alone OR, top \(depth + 1) of at least \(IndexSearcher.exactTotalThreshold) looked at, no boost / OR", line(deep)))
            }
            return rows
        }

        var rows: [TableRow] {
            func line(_ summary: LatencySummary) -> String {
                "mean \(Format.milliseconds(summary.mean)), p50 \(Format.milliseconds(summary.p50)), p95 \(Format.milliseconds(summary.p95)), p99 \(Format.milliseconds(summary.p99))"
            }
            return [
                TableRow("5 query", "Spotlite OR, \(queries) queries (median of \(passes) passes)", line(spotliteOr),
                         target: "mean ≤ 1 ms", met: spotliteOr.mean <= Self.meanTarget),
                TableRow("5 query", "Spotlite AND", line(spotliteAnd), target: "mean ≤ 1 ms",
                         met: spotliteAnd.mean <= Self.meanTarget),
                TableRow("5 query", "Xapian alone OR (same index, no API)", line(engineOr)),
                TableRow("5 query", "Spotlite OR / Xapian alone OR: mean, p99",
                         "\(Format.ratio(spotliteOr.mean / engineOr.mean)), \(Format.ratio(spotliteOr.p99 / engineOr.p99))",
                         target: "≤ 1.15×", met: spotliteOr.mean <= 1.15 * engineOr.mean && spotliteOr.p99 <= 1.15 * engineOr.p99),
                TableRow("5 query", "Xapian alone AND", line(engineAnd)),
                TableRow("5 query", "Xapian alone OR + FLAG_SPELLING_CORRECTION", line(engineOrSpelling)),
            ] + proximityRows + [
                TableRow("5 query", "FTS5 OR", line(fts5Or)),
                TableRow("5 query", "FTS5 AND", line(fts5And)),
                TableRow("5 query", "FTS5 / Spotlite, OR (mean)", Format.ratio(speedupOr), target: "≥ 10×",
                         met: speedupOr >= Self.speedupTarget),
                TableRow("5 query", "FTS5 / Spotlite, AND (mean)", Format.ratio(speedupAnd)),
            ]
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        let fts = try context.fts()
        let searcher = try IndexSearcher(configuration: context.configuration, indexPath: context.indexPath)
        let engine = try XapianDatabase(path: context.liveGenerationPath())
        let stemmer = context.configuration.indexer.stemmerName
        let parser = try XapianQueryParser(language: stemmer == "none" ? nil : stemmer,
                                           stopwords: context.configuration.indexer.stopwords == "none" ? .none : .english)
        let spellingParser = try XapianQueryParser(language: stemmer == "none" ? nil : stemmer,
                                                   stopwords: context.configuration.indexer.stopwords == "none" ? .none : .english)
        try spellingParser.setDatabase(engine)
        // Unstemmed words for the proximity rows: stemmed terms carry no positions.
        let wordsParser = try XapianQueryParser(language: nil,
                                                stopwords: context.configuration.indexer.stopwords == "none" ? .none : .english)
        let proximity = context.configuration.ranking.proximity
        let queries = QueryWorkload.adHoc(records: context.corpus.records, textFields: context.textFields,
                                          count: context.settings.queries)
        guard !queries.isEmpty else {
            throw BenchError("no queries could be drawn from the corpus: its text fields hold too few words")
        }
        var passes: [[String: LatencySummary]] = []
        var emptyAnd = 0
        for pass in 0..<context.settings.slowRuns {
            var samples: [String: [Double]] = [:]
            emptyAnd = 0
            for query in queries {
                let text = query.text
                samples["spotliteOr", default: []].append(try Stopwatch.seconds {
                    _ = try searcher.search(SearchRequest(text, snippet: SnippetOptions(length: 0), defaultOperator: .or))
                })
                var hits = 0
                samples["spotliteAnd", default: []].append(try Stopwatch.seconds {
                    hits = try searcher.search(SearchRequest(text, snippet: SnippetOptions(length: 0),
                                                             defaultOperator: .and)).hits.count
                })
                if hits == 0 { emptyAnd += 1 }
                for (name, op) in [("engineOr", XapianQueryParser.DefaultOperator.or), ("engineAnd", .and)] {
                    samples[name, default: []].append(try Stopwatch.seconds {
                        try parser.setDefaultOperator(op)
                        _ = try engine.search(try parser.parse(text), limit: 10)
                    })
                }
                if let proximity {
                    try parser.setDefaultOperator(.or)
                    samples["engineOrProximityEveryMatch", default: []].append(try Stopwatch.seconds {
                        let boosted = try parser.parse(text).withProximity(of: try wordsParser.parse(text),
                                                                           window: proximity.window, weight: proximity.weight)
                        _ = try engine.search(boosted, limit: 10)
                    })
                    samples["engineOrDeepMatch", default: []].append(try Stopwatch.seconds {
                        _ = try engine.search(try parser.parse(text), limit: proximity.depth + 1,
                                              checkAtLeast: max(10, IndexSearcher.exactTotalThreshold))
                    })
                    samples["engineOrProximityReranked", default: []].append(try Stopwatch.seconds {
                        let boost = XapianProximity(words: try wordsParser.parse(text), window: proximity.window,
                                                    weight: proximity.weight, depth: proximity.depth)
                        _ = try engine.search(try parser.parse(text), limit: 10, proximity: boost)
                    })
                }
                samples["engineOrSpelling", default: []].append(try Stopwatch.seconds {
                    _ = try engine.search(try spellingParser.parse(text, flags: [.standard, .spellingCorrection]), limit: 10)
                })
                samples["fts5Or", default: []].append(try Stopwatch.seconds {
                    _ = try fts.search(words: query.words, matchAll: false)
                })
                samples["fts5And", default: []].append(try Stopwatch.seconds {
                    _ = try fts.search(words: query.words, matchAll: true)
                })
            }
            let summaries = samples.mapValues(LatencySummary.init(samples:))
            passes.append(summaries)
            Progress.note(String(format: "query pass %d/%d: Spotlite OR mean %.3f ms, AND %.3f ms; FTS5 OR %.3f ms, AND %.3f ms",
                                 pass + 1, context.settings.slowRuns, summaries["spotliteOr"]!.mean * 1000,
                                 summaries["spotliteAnd"]!.mean * 1000, summaries["fts5Or"]!.mean * 1000,
                                 summaries["fts5And"]!.mean * 1000))
        }
        func median(_ name: String) -> LatencySummary { LatencySummary(medianOf: passes.map { $0[name]! }) }
        return Result(
            passes: passes.count, queries: queries.count, spotliteOr: median("spotliteOr"),
            spotliteAnd: median("spotliteAnd"), 
            engineOr: median("engineOr"), engineAnd: median("engineAnd"),
            engineOrSpelling: median("engineOrSpelling"),
            engineOrProximityEveryMatch: proximity == nil ? nil : median("engineOrProximityEveryMatch"),
            engineOrProximityReranked: proximity == nil ? nil : median("engineOrProximityReranked"),
            engineOrDeepMatch: proximity == nil ? nil : median("engineOrDeepMatch"),
            proximityDepth: proximity?.depth, fts5Or: median("fts5Or"), fts5And: median("fts5And"),
            speedupOr: Statistics.median(passes.map { $0["fts5Or"]!.mean / $0["spotliteOr"]!.mean }),
            speedupAnd: Statistics.median(passes.map { $0["fts5And"]!.mean / $0["spotliteAnd"]!.mean }),
            emptyAndResults: emptyAnd)
    }
}

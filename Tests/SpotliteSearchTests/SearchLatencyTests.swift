import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// Query latency on a real index, for profiling (e.g. under `perf record`). Runs only when given an index and
/// queries:
///
///     SPOTLITE_LATENCY_CONFIG=path/to/spotlite.toml SPOTLITE_LATENCY_QUERIES=queries.txt \
///       swift test -c release -Xswiftc -enable-testing --skip-build --filter SearchLatencyTests
///
/// The configuration names a store and an index built beforehand (`spotlite import`, `spotlite index update`);
/// the queries file has one query per line. Timing assertions are deliberately loose: the figures are printed.
@Suite("Search latency on a real index",
       .enabled(if: ProcessInfo.processInfo.environment["SPOTLITE_LATENCY_CONFIG"] != nil), .blockingWork)
struct SearchLatencyTests {
    @Test("mean latency of the queries, with and without snippets")
    func latency() throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try SpotliteConfiguration(contentsOf: try #require(environment["SPOTLITE_LATENCY_CONFIG"]))
        let queries = try String(contentsOfFile: try #require(environment["SPOTLITE_LATENCY_QUERIES"]), encoding: .utf8)
            .split(whereSeparator: \.isNewline).map(String.init)
        try #require(!queries.isEmpty)
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        let searcher = try IndexSearcher(configuration: configuration, store: store)
        let rounds = Int(environment["SPOTLITE_LATENCY_ROUNDS"] ?? "") ?? 3
        let clock = ContinuousClock()
        let variants: [(String, SnippetOptions, Bool)] = [
            ("without snippets", SnippetOptions(length: 0), true), ("with snippets", SnippetOptions(), true),
            ("without snippets or spelling", SnippetOptions(length: 0), false),
        ]
        for (label, options, spelling) in variants {
            for query in queries.prefix(100) { _ = try searcher.search(SearchRequest(query, snippet: options, correctsSpelling: spelling)) }
            var durations: [Duration] = []
            durations.reserveCapacity(queries.count * rounds)
            for _ in 0..<rounds {
                for query in queries {
                    let started = clock.now
                    let results = try searcher.search(SearchRequest(query, snippet: options, correctsSpelling: spelling))
                    durations.append(clock.now - started)
                    #expect(results.total >= 0)
                }
            }
            durations.sort()
            let mean = durations.reduce(Duration.zero, +) / durations.count
            let percentile = { (fraction: Double) in durations[min(durations.count - 1, Int(Double(durations.count) * fraction))] }
            print("\(label): \(durations.count) searches, mean \(mean), p50 \(percentile(0.5)), p95 \(percentile(0.95)), p99 \(percentile(0.99))")
            #expect(mean < .milliseconds(50), "far slower than any reasonable machine would be")
        }
    }
}

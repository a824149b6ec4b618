import Foundation
import Spotlite
import SpotliteTooling
#if canImport(Glibc)
import Glibc
#endif

/// Figure 12: `spotlite serve`. The server runs in a child process (`spotlite-bench child-serve`: the server library
/// with live indexing, as the command runs it) over the suite's store and index.
///
/// - Overhead: the 1,000 queries of figure 5, each asked twice in turn, of the library in this process
///   (``IndexSearcher/search(_:)`` with the server's request: top 10, snippets cut from the store) and of the server
///   (`GET /search?q=…&limit=10` on one kept-open connection, timed from the request's first byte sent to the
///   answer's last byte read: HTTP, the server's search and its JSON); which goes first alternates from query to
///   query. The ratio is taken within each run, then the median over runs. The client reads only the status code,
///   `Content-Length` and `Server-Timing` of an answer's head (as `wrk` does), so that its own work is small.
/// - Processor time, which the machine's load does not change as it changes latency: the library's per query (this
///   thread's clock), the server process's per request (all its threads, from `/proc`) and the client's, and how
///   often the server's threads went to sleep per request.
/// - Freshness: a child process (`spotlite-bench child-writer`) inserts probe records one per transaction through the
///   store's API, a pause apart, stamping each commit; meanwhile this process asks `GET /search` for the next probe
///   every poll interval until the probe is the first hit. A probe's latency is that moment minus its commit stamp.
/// - With `--serve-semantic` (needs `[embeddings]`): the vectors of every record are built first, then the server
///   keeps them current too, and the probes (each a text of random words of the corpus) are asked for by their text
///   with `mode=semantic`, found when they are among the first ten hits.
enum ServeFigure {
    struct Freshness: Codable, Sendable {
        var mode: String
        var probes: Int
        var found: Int
        var pollMilliseconds: Int
        var intervalMilliseconds: Int
        var latency: LatencySummary
        /// The live embedder's rounds meanwhile (semantic mode): how many, and their mean milliseconds by stage
        /// (the server's `/metrics`).
        var embedderRounds: Int?
        var embedderStages: [String: Double]?
        /// The mean milliseconds of the polls' own search in the server (`Server-Timing`), query embedding included.
        var searchMilliseconds: Double?
    }

    struct Result: FigureResult {
        var runs: Int
        var queries: Int
        /// The library's search in this process; statistic by statistic, the median over runs.
        var library: LatencySummary
        /// The same requests through the server, as its client times them.
        var server: LatencySummary
        /// The search's own time inside the server (its `Server-Timing` header).
        var serverSearch: LatencySummary
        /// Server over library, p50 and p99, median of the per-run ratios.
        var ratioP50: Double
        var ratioP99: Double
        /// Processor time per query, mean over the run, median over runs: the library's search (this thread), the
        /// server process's for a request (every thread, from `/proc`), and this client's for a request (sending,
        /// waiting in the kernel, reading the status line and headers).
        var libraryCPU: Double
        var serverCPU: Double
        var clientCPU: Double
        /// The server's threads put to sleep per request (voluntary context switches of every thread).
        var serverSleeps: Double
        var freshness: Freshness
        var semanticFreshness: Freshness?

        static let ratioTarget = 1.3
        static let freshnessTarget = 0.100

        var rows: [TableRow] {
            func pair(_ summary: LatencySummary) -> String {
                "\(Format.milliseconds(summary.p50)) / \(Format.milliseconds(summary.p99))"
            }
            var rows = [
                TableRow("12 serve", "library search, \(queries) queries, top 10 with snippets (median of \(runs)): p50 / p99", pair(library)),
                TableRow("12 serve", "same through GET /search, one connection: p50 / p99", pair(server)),
                TableRow("12 serve", "of which the server's search (Server-Timing): p50 / p99", pair(serverSearch)),
                TableRow("12 serve", "server / library, p50", Format.ratio(ratioP50), target: "≤ 1.3×", met: ratioP50 <= Self.ratioTarget),
                TableRow("12 serve", "server / library, p99", Format.ratio(ratioP99), target: "≤ 1.3×", met: ratioP99 <= Self.ratioTarget),
                TableRow("12 serve", "processor per query, mean: library search / server process / client",
                         "\(Format.milliseconds(libraryCPU)) / \(Format.milliseconds(serverCPU)) / \(Format.milliseconds(clientCPU))"),
                TableRow("12 serve", "server threads put to sleep per request", String(format: "%.2f", serverSleeps)),
            ]
            for freshness in [freshness] + (semanticFreshness.map { [$0] } ?? []) {
                let allFound = freshness.found == freshness.probes
                rows.append(TableRow(
                    "12 serve", "commit → GET /search\(freshness.mode == "keyword" ? "" : "?mode=\(freshness.mode)") finds it, \(freshness.probes) probes \(freshness.intervalMilliseconds) ms apart, polled every \(freshness.pollMilliseconds) ms: p50 (p99)",
                    "\(Format.milliseconds(freshness.latency.p50)) (\(Format.milliseconds(freshness.latency.p99))), \(freshness.found) found",
                    target: "≤ 100 ms", met: allFound && freshness.latency.p50 <= Self.freshnessTarget))
                if let stages = freshness.embedderStages, let rounds = freshness.embedderRounds {
                    let parts = ServeFigure.embedderStageNames.map { String(format: "%@ %.1f", $0, stages[$0] ?? 0) }
                    rows.append(TableRow(
                        "12 serve", "of which the live embedder, mean ms per round over \(rounds) rounds (then the poll's search, \(String(format: "%.1f", freshness.searchMilliseconds ?? 0)) ms)",
                        parts.joined(separator: ", ")))
                }
            }
            return rows
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        let store = try context.store()
        let queries = QueryWorkload.adHoc(records: context.corpus.records, textFields: context.textFields,
                                          count: context.settings.queries)
        guard !queries.isEmpty else {
            throw BenchError("no queries could be drawn from the corpus: its text fields hold too few words")
        }
        let (overhead, keyword) = try ServedIndex.with(context, semantic: false) { served in
            let overhead = try measureOverhead(context, store: store, queries: queries, served: served)
            let freshness = try measureFreshness(context, port: served.port, mode: "keyword")
            return (overhead, freshness)
        }
        var semantic: Freshness?
        if context.settings.serveSemantic {
            guard context.configuration.embeddings != nil, !context.configuration.embeddedFields.isEmpty else {
                throw BenchError("--serve-semantic needs a configuration with [embeddings] and embed fields (docs/embeddings.md)")
            }
            Progress.note("serve: embedding every record before serving with embeddings")
            let seconds = try await Stopwatch.seconds {
                _ = try await SemanticIndex(configuration: context.configuration).update(store: store)
            }
            Progress.note(String(format: "serve: vectors built in %.1f s", seconds))
            semantic = try ServedIndex.with(context, semantic: true) { served in
                try measureFreshness(context, port: served.port, mode: "semantic")
            }
        }
        return Result(
            runs: overhead.library.count, queries: queries.count, library: LatencySummary(medianOf: overhead.library),
            server: LatencySummary(medianOf: overhead.server), serverSearch: LatencySummary(medianOf: overhead.serverSearch),
            ratioP50: Statistics.median(overhead.ratios.map(\.p50)), ratioP99: Statistics.median(overhead.ratios.map(\.p99)),
            libraryCPU: Statistics.median(overhead.libraryCPU), serverCPU: Statistics.median(overhead.serverCPU),
            clientCPU: Statistics.median(overhead.clientCPU), serverSleeps: Statistics.median(overhead.serverSleeps),
            freshness: keyword, semanticFreshness: semantic)
    }

    private struct Overhead {
        var library: [LatencySummary] = []
        var server: [LatencySummary] = []
        var serverSearch: [LatencySummary] = []
        var ratios: [(p50: Double, p99: Double)] = []
        var libraryCPU: [Double] = []
        var serverCPU: [Double] = []
        var clientCPU: [Double] = []
        var serverSleeps: [Double] = []
    }

    private static func measureOverhead(_ context: BenchContext, store: SpotliteStore, queries: [QueryWorkload.Query],
                                        served: ServedIndex) throws -> Overhead {
        let port = served.port
        // The server's searchers cut snippets from the store: so does this one.
        let searcher = try IndexSearcher(configuration: context.configuration, indexPath: context.indexPath, store: store)
        let client = KeepAliveHTTPClient(port: port)
        let paths = queries.map { "/search?q=" + $0.words.joined(separator: "%20") + "&limit=10" }
        let requests = queries.map { SearchRequest($0.text, limit: 10) }
        var libraryCPU = 0.0, clientCPU = 0.0
        func askServer(_ index: Int) throws -> (seconds: Double, search: Double) {
            let processor = ProcessActivity.threadCPUSeconds()
            let started = Stopwatch.nanoseconds()
            let answer = try client.get(paths[index])
            let seconds = Double(Stopwatch.nanoseconds() - started) / 1e9
            clientCPU += ProcessActivity.threadCPUSeconds() - processor
            guard answer.status == 200 else {
                throw BenchError("GET \(paths[index]) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
            return (seconds, answer.serverSearchSeconds ?? .nan)
        }
        func askLibrary(_ index: Int) throws -> Double {
            let processor = ProcessActivity.threadCPUSeconds()
            let seconds = try Stopwatch.seconds { _ = try searcher.search(requests[index]) }
            libraryCPU += ProcessActivity.threadCPUSeconds() - processor
            return seconds
        }
        // Both warmed on the same queries first: the index's pages are in memory for either.
        for index in paths.indices.prefix(100) {
            _ = try askServer(index)
            _ = try askLibrary(index)
        }
        var overhead = Overhead()
        for run in 0..<context.settings.slowRuns {
            var library: [Double] = [], server: [Double] = [], serverSearch: [Double] = []
            libraryCPU = 0
            clientCPU = 0
            let serverBefore = ProcessActivity.of(served.pid)
            for index in paths.indices {
                if (index + run) % 2 == 0 {
                    library.append(try askLibrary(index))
                    let answer = try askServer(index)
                    server.append(answer.seconds)
                    serverSearch.append(answer.search)
                } else {
                    let answer = try askServer(index)
                    server.append(answer.seconds)
                    serverSearch.append(answer.search)
                    library.append(try askLibrary(index))
                }
            }
            let librarySummary = LatencySummary(samples: library), serverSummary = LatencySummary(samples: server)
            // The server's processor time over the run is its requests': it waits for the next one while this
            // process searches by itself (its live indexer has nothing to do; Hummingbird's date wakes once a second).
            if let serverBefore, let serverAfter = ProcessActivity.of(served.pid) {
                overhead.serverCPU.append((serverAfter.cpuSeconds - serverBefore.cpuSeconds) / Double(paths.count))
                overhead.serverSleeps.append(Double(serverAfter.sleeps - serverBefore.sleeps) / Double(paths.count))
            }
            overhead.libraryCPU.append(libraryCPU / Double(paths.count))
            overhead.clientCPU.append(clientCPU / Double(paths.count))
            overhead.library.append(librarySummary)
            overhead.server.append(serverSummary)
            let searchSummary = LatencySummary(samples: serverSearch.filter(\.isFinite))
            overhead.serverSearch.append(searchSummary)
            overhead.ratios.append((serverSummary.p50 / librarySummary.p50, serverSummary.p99 / librarySummary.p99))
            Progress.note(String(format: "serve run %d/%d: library p50 %.3f ms p99 %.3f ms; server p50 %.3f ms p99 %.3f ms; Server-Timing mean %.3f ms; processor per query: library %.3f ms, server %.3f ms, client %.3f ms; server sleeps per request %.2f",
                                 run + 1, context.settings.slowRuns, librarySummary.p50 * 1000, librarySummary.p99 * 1000,
                                 serverSummary.p50 * 1000, serverSummary.p99 * 1000, searchSummary.mean * 1000,
                                 overhead.libraryCPU.last! * 1000,
                                 (overhead.serverCPU.last ?? .nan) * 1000, overhead.clientCPU.last! * 1000,
                                 overhead.serverSleeps.last ?? .nan))
        }
        return overhead
    }

    /// Probes committed by a child process, each searched through the server until it is found.
    private static func measureFreshness(_ context: BenchContext, port: Int, mode: String) throws -> Freshness {
        let probes = context.settings.serveProbes
        let interval = mode == "keyword" ? 200 : 400
        // A semantic search embeds its query first: asked less often, so that the polls leave the server's cores
        // to the embedder they wait for.
        let poll = mode == "keyword" ? 5 : 20
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let entity = context.entity.name
        var arguments = [
            "child-writer", "--config", context.configurationPath, "--store", context.storePath, "--entity", entity,
            "--field", try context.descriptiveField, "--count", String(probes), "--interval-ms", String(interval),
            "--tag", tag,
        ]
        var texts: [String] = []
        if mode != "keyword" {
            texts = probeTexts(context, count: probes)
            let path = context.path("serve-probes-\(tag).txt")
            try Data((texts.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
            arguments += ["--text-file", path]
        }
        let outputPath = context.path("serve-writer-\(tag).out")
        let client = KeepAliveHTTPClient(port: port)
        let embedderBefore = try mode == "keyword" ? nil : embedderTotals(client)
        var searchSeconds: [Double] = []
        let writer = try ChildProcess(executable: ChildProcess.currentExecutable, arguments: arguments,
                                      output: .file(outputPath))
        var found: [Int: UInt64] = [:]
        var next = 0
        var writerEnded: UInt64?
        // Until every probe is found, or 5 s after the writer ended.
        while next < probes {
            if writerEnded == nil, writer.poll() != nil { writerEnded = Stopwatch.nanoseconds() }
            if let writerEnded, Stopwatch.nanoseconds() - writerEnded > 5_000_000_000 { break }
            let key = ChildWriter.key(tag: tag, index: next)
            let path = mode == "keyword"
                ? "/search?q=\(ChildWriter.word(tag: tag, index: next))&limit=1"
                : "/search?q=\(texts[next].split(separator: " ").joined(separator: "%20"))&limit=10&mode=\(mode)"
            let answer = try client.get(path)
            guard answer.status == 200 else {
                writer.kill(SIGTERM)
                _ = writer.wait()
                throw BenchError("GET \(path) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
            if let seconds = answer.serverSearchSeconds { searchSeconds.append(seconds) }
            if hitKeys(answer.body).contains(key) {
                found[next] = Stopwatch.nanoseconds()
                next += 1
            } else {
                usleep(useconds_t(poll * 1000))
            }
        }
        let termination = writer.wait()
        guard termination.succeeded else {
            throw BenchError("the writer child process failed (\(termination)); its error is above")
        }
        var commits: [Int: UInt64] = [:]
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 4, let index = Int(parts[0]), let stamp = UInt64(parts[1]) { commits[index] = stamp }
        }
        guard commits.count == probes else {
            throw BenchError("the writer child reported \(commits.count) commits of \(probes)")
        }
        let latencies = found.compactMap { index, time in commits[index].map { Double(time > $0 ? time - $0 : 0) / 1e9 } }
        let summary = LatencySummary(samples: latencies)
        Progress.note(String(format: "serve freshness (%@): %d/%d found, p50 %.1f ms, p99 %.1f ms", mode, found.count,
                             probes, summary.p50 * 1000, summary.p99 * 1000))
        var freshness = Freshness(mode: mode, probes: probes, found: found.count, pollMilliseconds: poll,
                                  intervalMilliseconds: interval, latency: summary)
        if let embedderBefore, let after = try embedderTotals(client) {
            let rounds = Int(after["rounds"] ?? 0) - Int(embedderBefore["rounds"] ?? 0)
            freshness.embedderRounds = rounds
            var stages: [String: Double] = [:]
            for stage in embedderStageNames {
                stages[stage] = rounds > 0 ? ((after[stage] ?? 0) - (embedderBefore[stage] ?? 0)) * 1000 / Double(rounds) : 0
            }
            freshness.embedderStages = stages
            freshness.searchMilliseconds = searchSeconds.isEmpty ? nil : searchSeconds.reduce(0, +) * 1000 / Double(searchSeconds.count)
            Progress.note("serve freshness (\(mode)): the live embedder's \(rounds) rounds, mean ms by stage: "
                + embedderStageNames.map { String(format: "%@ %.1f", $0, stages[$0] ?? 0) }.joined(separator: ", ")
                + String(format: "; the polls' search in the server %.1f ms on average", freshness.searchMilliseconds ?? 0))
        }
        return freshness
    }

    /// The stages of the live embedder's rounds, as `/metrics` names them.
    static let embedderStageNames = ["reading", "embedding", "committing", "finishing"]

    /// The live embedder's rounds and seconds by stage from `/metrics` (`rounds` and each stage name); nil when the
    /// server reports none.
    private static func embedderTotals(_ client: KeepAliveHTTPClient) throws -> [String: Double]? {
        let answer = try client.get("/metrics")
        guard answer.status == 200 else { return nil }
        var totals: [String: Double] = [:]
        for line in String(decoding: answer.body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            if parts[0] == "spotlite_embedder_rounds_total" { totals["rounds"] = value }
            for stage in embedderStageNames where parts[0] == "spotlite_embedder_seconds_total{stage=\"\(stage)\"}" {
                totals[stage] = value
            }
        }
        return totals["rounds"] == nil ? nil : totals
    }

    /// The keys of an answer's hits (as text).
    private static func hitKeys(_ body: [UInt8]) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let hits = object["hits"] as? [[String: Any]] else { return [] }
        return hits.compactMap { hit in hit["key"].map { "\($0)" } }
    }

    /// `count` texts of eight words each, drawn from the corpus with a fixed seed: apart from one another, so that a
    /// probe is the nearest vector to its own text.
    private static func probeTexts(_ context: BenchContext, count: Int) -> [String] {
        var generator = SeededGenerator(seed: 0x5EED_0012)
        var texts: [String] = []
        while texts.count < count {
            var words: [String] = []
            while words.count < 8 {
                let record = context.corpus.records[Int.random(in: 0..<context.corpus.records.count, using: &generator)]
                let candidates = QueryWorkload.distinctWords(context.textFields.compactMap { record[$0] }.joined(separator: " "))
                if let word = candidates.randomElement(using: &generator) { words.append(word) }
            }
            texts.append(words.joined(separator: " "))
        }
        return texts
    }
}

/// The child process serving the suite's index, for the length of a closure.
private struct ServedIndex {
    let port: Int
    let pid: pid_t

    static func with<T>(_ context: BenchContext, semantic: Bool, _ body: (ServedIndex) throws -> T) throws -> T {
        let outputPath = context.path("serve-\(semantic ? "semantic" : "keyword").out")
        let errorPath = outputPath + ".err"
        let child = try ChildProcess(
            executable: ChildProcess.currentExecutable,
            arguments: ["child-serve", "--config", context.configurationPath, "--store", context.storePath,
                        "--index", context.indexPath] + (semantic ? [] : ["--keyword-only"]),
            output: .file(outputPath), error: .file(errorPath))
        defer {
            // Stopped as `spotlite serve` is: SIGTERM, then SIGKILL if it is still there 30 s later.
            child.kill(SIGTERM)
            let stopBy = Stopwatch.nanoseconds() + 30_000_000_000
            while child.poll() == nil {
                if Stopwatch.nanoseconds() > stopBy {
                    child.kill(SIGKILL)
                    child.waitForExit()
                    break
                }
                usleep(10_000)
            }
        }
        let deadline = Stopwatch.nanoseconds() + 120_000_000_000
        while true {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let range = output.range(of: "Listening on http://127.0.0.1:"),
               let port = Int(output[range.upperBound...].prefix { $0.isNumber }) {
                return try body(ServedIndex(port: port, pid: child.pid))
            }
            if child.poll() != nil || Stopwatch.nanoseconds() > deadline {
                let error = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
                throw BenchError("the server child process did not start: \(error.isEmpty ? "no Listening line within 120 s" : error.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
            usleep(20_000)
        }
    }
}

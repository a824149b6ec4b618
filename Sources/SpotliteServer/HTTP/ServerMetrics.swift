import SpotliteEmbeddings
import Synchronization

/// Request counts and latencies by route, written out in Prometheus' text format by `/metrics`.
final class ServerMetrics: Sendable {
    /// Upper bounds of the latency histogram's buckets, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct Histogram {
        var counts = [Int](repeating: 0, count: ServerMetrics.buckets.count)
        var count = 0
        var sum = 0.0

        mutating func add(_ seconds: Double) {
            for (index, bound) in ServerMetrics.buckets.enumerated() where seconds <= bound { counts[index] += 1 }
            count += 1
            sum += seconds
        }
    }

    /// The labels of a request count; written out as Prometheus labels only when `/metrics` is asked for.
    private struct RequestLabels: Hashable {
        var route: String
        var method: String
        var status: Int

        var text: String { "route=\"\(route)\",method=\"\(method)\",status=\"\(status)\"" }
    }

    private struct State {
        var requests: [RequestLabels: Int] = [:]
        var latency: [String: Histogram] = [:]
    }

    private let state = Mutex(State())

    /// The routes metrics name: the paths the server answers, `other` for the rest, so that a scan of random paths
    /// cannot grow the metrics without bound.
    static func route(of path: String) -> String {
        if path.hasPrefix("/records/") { return "/records" }
        return routes.contains(path) ? path : "other"
    }

    private static let routes: Set<String> = ["/", "/search", "/status", "/health", "/metrics", "/events", "/openapi.json"]

    /// Counts and times one request, in place: no label text is built and no histogram copied per request.
    func record(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestLabels(route: route, method: method, status: status), default: 0] += 1
            state.latency[route, default: Histogram()].add(seconds)
        }
    }

    /// The metrics as Prometheus text, with the index's `documents` and `token` (nil: unknown), and the live
    /// embedder's time by stage when it runs.
    func text(documents: Int?, token: Int64?, embedder: EmbeddingRoundTimings.Totals? = nil) -> String {
        var lines: [String] = []
        state.withLock { state in
            lines.append("# HELP spotlite_http_requests_total HTTP requests answered, by route, method and status.")
            lines.append("# TYPE spotlite_http_requests_total counter")
            for (labels, count) in state.requests.map({ ($0.key.text, $0.value) }).sorted(by: { $0.0 < $1.0 }) {
                lines.append("spotlite_http_requests_total{\(labels)} \(count)")
            }
            lines.append("# HELP spotlite_http_request_duration_seconds Time to answer HTTP requests, by route.")
            lines.append("# TYPE spotlite_http_request_duration_seconds histogram")
            for route in state.latency.keys.sorted() {
                let histogram = state.latency[route]!
                for (index, bound) in Self.buckets.enumerated() {
                    lines.append("spotlite_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(histogram.counts[index])")
                }
                lines.append("spotlite_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)")
                lines.append("spotlite_http_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)")
                lines.append("spotlite_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)")
            }
        }
        lines.append("# HELP spotlite_index_documents Documents in the index.")
        lines.append("# TYPE spotlite_index_documents gauge")
        if let documents { lines.append("spotlite_index_documents \(documents)") }
        lines.append("# HELP spotlite_index_token The history token the index reflects.")
        lines.append("# TYPE spotlite_index_token gauge")
        if let token { lines.append("spotlite_index_token \(token)") }
        if let embedder {
            lines.append("# HELP spotlite_embedder_rounds_total Rounds of the live embedder (vectors kept current).")
            lines.append("# TYPE spotlite_embedder_rounds_total counter")
            lines.append("spotlite_embedder_rounds_total \(embedder.rounds)")
            lines.append("# HELP spotlite_embedder_seconds_total Time of the live embedder's rounds, by stage.")
            lines.append("# TYPE spotlite_embedder_seconds_total counter")
            for (stage, seconds) in [("reading", embedder.reading), ("embedding", embedder.embedding),
                                     ("committing", embedder.committing), ("finishing", embedder.finishing)] {
                lines.append("spotlite_embedder_seconds_total{stage=\"\(stage)\"} \(seconds)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

import Hummingbird

/// Counts every request by route and status, and times it, for `/metrics`.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = ContinuousClock()
        let started = clock.now
        let response = try await next(request, context)
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.record(route: ServerMetrics.route(of: request.uri.path), method: request.method.rawValue,
                       status: response.status.code, seconds: seconds)
        return response
    }
}

import Hummingbird

/// Requires `Authorization: Bearer KEY` on every path but the open ones (the page, the health check and the API
/// description), when the server has a key. The comparison takes the same time wherever the first difference is.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: [UInt8]
    let openPaths: Set<String>

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !key.isEmpty, !openPaths.contains(request.uri.path) else { return try await next(request, context) }
        let given = request.headers[.authorization].flatMap { value -> [UInt8]? in
            guard value.hasPrefix("Bearer ") else { return nil }
            return Array(value.dropFirst("Bearer ".count).utf8)
        }
        guard let given, Self.constantTimeEqual(given, key) else {
            throw Problem(.unauthorized, given == nil
                ? "this server needs an API key: send the header Authorization: Bearer KEY"
                : "the API key is not this server's; send the key it was started with (--api-key or SPOTLITE_API_KEY)",
                headers: [.wwwAuthenticate: "Bearer"])
        }
        return try await next(request, context)
    }

    /// Whether `a` equals `b`, reading every byte of the longer whatever they hold.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        difference |= a.count == b.count ? 0 : 1
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}

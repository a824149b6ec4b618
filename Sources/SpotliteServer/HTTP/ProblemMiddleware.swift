import Hummingbird
import Logging

/// Turns every error under it into a problem+json answer: ours carry their sentence; Hummingbird's (no such route,
/// a body over the limit) get one; anything else is logged, without a stack trace, and answered 500.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The paths the server answers, and their methods, for 405 rather than 404.
    let methods: [String: [HTTPRequest.Method]]

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return problem.response
        } catch let error as HTTPError {
            return problem(for: error, request: request).response
        } catch {
            context.logger.error("request failed: \(String(describing: type(of: error))): \(error)")
            return Problem(.internalServerError, "the server failed to answer (\(String(describing: type(of: error)))); the server's log has the details").response
        }
    }

    private func problem(for error: HTTPError, request: Request) -> Problem {
        switch error.status {
        case .notFound:
            if let allowed = methods[request.uri.path] {
                let names = allowed.map(\.rawValue).joined(separator: ", ")
                return Problem(.methodNotAllowed, "\(request.uri.path) answers \(names), not \(request.method.rawValue)",
                               headers: [.allow: names])
            }
            return Problem(.notFound, "nothing at \(Problem.shown(request.uri.path)); the paths this server answers are described at /openapi.json")
        case .contentTooLarge:
            return Problem(.contentTooLarge, "the request body is over \(SearchParameters.maximumBodyBytes / 1024) KiB; send a smaller JSON object, or the parameters in the query string")
        default:
            return Problem(error.status, error.body ?? error.status.reasonPhrase)
        }
    }
}

import Foundation
import SpotliteEmbeddings
import SpotliteHybrid
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import SpotliteJSON
import SpotliteSearch
import SpotliteStore

/// `spotlite serve` as a library: the index over HTTP (a JSON API, a search page, metrics and index events), kept
/// current by live indexing in the same process, so an app can host it as the command does.
///
/// Read-only: nothing it answers writes to the store. It listens on loopback unless given an API key, which every
/// request but the page, `/health` and `/openapi.json` must then send as `Authorization: Bearer KEY`.
public struct SearchServer: Sendable {
    /// Where and how the server listens.
    public struct Options: Sendable {
        /// The address to bind (default loopback).
        public var host = "127.0.0.1"
        /// The port (0: any free one; the address passed to `onListening` says which).
        public var port = 7700
        /// The key clients send as `Authorization: Bearer KEY`; required for any host but loopback.
        public var apiKey: String?
        /// Keep the index current from history while serving (as `spotlite index watch`).
        public var watches = true
        /// Searches that run at once, each with its own Xapian handles (default: one per core, at least 2).
        public var searchers = max(2, ProcessInfo.processInfo.activeProcessorCount)
        /// Seconds a connection may send nothing while a request is read or none is under way.
        public var idleTimeout = 30.0
        /// Seconds a request's head may take to arrive, from the connection or the previous answer.
        public var headTimeout = 10.0
        /// Seconds a request's body may take to arrive, from its head.
        public var bodyTimeout = 30.0

        /// The defaults: loopback port 7700, live indexing, no key.
        public init() {}
    }

    /// Why a server cannot start.
    public enum StartError: Error, CustomStringConvertible, Sendable {
        /// A host other than loopback without an API key.
        case apiKeyRequired(host: String)
        /// A port outside 0…65535.
        case invalidPort(Int)

        public var description: String {
            switch self {
            case let .apiKeyRequired(host):
                "serving on \(host) makes the index reachable from other machines, so it needs an API key: pass --api-key KEY or set SPOTLITE_API_KEY (or serve on 127.0.0.1)"
            case let .invalidPort(port):
                "--port must be from 0 to 65535, not \(port)"
            }
        }
    }

    let configuration: SpotliteConfiguration
    let store: SpotliteStore
    let indexer: SpotliteIndexer
    let options: Options

    /// A server of the index the configuration names; `indexer` indexes it while serving when `options.watches`, and
    /// answers `/status` either way.
    ///
    /// - Throws: ``StartError`` for a host other than loopback without a key, or a port out of range.
    public init(configuration: SpotliteConfiguration, store: SpotliteStore, indexer: SpotliteIndexer,
                options: Options = Options()) throws {
        if !Self.isLoopback(options.host), (options.apiKey ?? "").isEmpty {
            throw StartError.apiKeyRequired(host: options.host)
        }
        guard (0...65535).contains(options.port) else { throw StartError.invalidPort(options.port) }
        self.configuration = configuration
        self.store = store
        self.indexer = indexer
        self.options = options
    }

    /// Whether `host` names this machine only.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The paths the server answers, and their methods.
    static let methods: [String: [HTTPRequest.Method]] = [
        "/": [.get], "/search": [.get, .post], "/status": [.get], "/health": [.get], "/metrics": [.get],
        "/events": [.get], "/openapi.json": [.get],
    ]

    /// Serves until SIGINT or SIGTERM, then stops after the requests in progress (event streams end) and stops live
    /// indexing after its batch in progress.
    ///
    /// - Parameter onListening: called once the server listens, with its address (`http://HOST:PORT`).
    /// - Throws: ``SearchError`` when live indexing cannot start (another process indexes); the server's own errors
    ///   (the port is taken).
    public func run(logger: Logger = Logger(label: "spotlite.serve"),
                    onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let startToken = (try? await indexer.status())?.token?.rawValue
        if options.watches { try await indexer.start() }
        let events = IndexEvents(indexer: options.watches ? indexer : nil, token: startToken)
        let service = try SearchService(configuration: configuration, store: store, indexer: indexer, events: events,
                                        searchers: options.searchers)
        // The vectors follow the store too, from their own position, while the server runs.
        let embedding = options.watches ? try service.semantic.map { try HistoryConsumerDriver(store: store, consumer: $0.embedder) } : nil
        await embedding?.start()
        let page = SearchPage.html(settings: SearchPage.settings(configuration: configuration, modes: service.modes))
        let router = makeRouter(service, page: page)
        let options = self.options
        let host = options.host
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                EventLoopHTTP1Channel(channel: HTTP1Channel(responder: responder, configuration: .init(
                    additionalChannelHandlers: [RequestDeadlineHandler(headTimeout: .seconds(options.headTimeout),
                                                                       bodyTimeout: .seconds(options.bodyTimeout))],
                    idleTimeout: .seconds(options.idleTimeout))))
            },
            configuration: .init(address: .hostname(host, port: options.port), serverName: "Spotlite"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                onListening("http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            },
            logger: logger)
        let indexing = LiveIndexing(indexer: options.watches ? indexer : nil, embedding: embedding)
        // Stopped in reverse order: event streams end first, so the server's wait for requests in progress ends;
        // then live indexing, after its batch in progress.
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: indexing), .init(service: app), .init(service: events)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            await indexer.stop()
            await embedding?.stop()
            throw error
        }
    }

    private func makeRouter(_ service: SearchService, page: String) -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(MetricsMiddleware(metrics: service.metrics))
        router.middlewares.add(ProblemMiddleware(methods: Self.methods))
        router.middlewares.add(APIKeyMiddleware(key: Array((options.apiKey ?? "").utf8),
                                                openPaths: ["/", "/health", "/openapi.json"]))
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8",
                                            .init("Content-Security-Policy")!: SearchPage.contentSecurityPolicy],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
        }
        router.get("/search") { request, _ in
            let parameters = try SearchParameters(queryString: request.uri.query)
            return try await service.search(parameters)
        }
        router.post("/search") { request, _ in
            if let length = request.headers[.contentLength].flatMap(Int.init), length > SearchParameters.maximumBodyBytes {
                throw HTTPError(.contentTooLarge)
            }
            let body = try await request.body.collect(upTo: SearchParameters.maximumBodyBytes)
            return try await service.search(try SearchParameters(json: Data(buffer: body)))
        }
        router.get("/records/:entity/:key") { _, context in
            let entity = try context.parameters.require("entity")
            let key = try context.parameters.require("key")
            return try await service.record(entity: entity.removingPercentEncoding ?? entity,
                                            key: key.removingPercentEncoding ?? key)
        }
        router.get("/status") { _, _ in try await service.status() }
        router.get("/health") { _, _ in await service.health() }
        router.get("/metrics") { _, _ in await service.metricsText() }
        router.get("/events") { _, _ in
            let stream = service.events.subscribe()
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                            body: ResponseBody { writer in
                                for await event in stream { try await writer.write(ByteBuffer(bytes: event)) }
                                try await writer.finish(nil)
                            })
        }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        return router
    }
}

/// Live indexing as a service of the server's group: started before the server listens, stopped after it.
private struct LiveIndexing: Service {
    let indexer: SpotliteIndexer?
    let embedding: HistoryConsumerDriver<EmbeddingIndexer>?

    func run() async throws {
        try? await gracefulShutdown()
        await indexer?.stop()
        await embedding?.stop()
    }
}

extension TimeAmount {
    static func seconds(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }
}

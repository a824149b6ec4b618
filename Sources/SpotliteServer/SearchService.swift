import Foundation
import HTTPTypes
import Hummingbird
import SpotliteEmbeddings
import SpotliteHybrid
import SpotliteJSON
import SpotliteSearch
import SpotliteStore

/// What the HTTP routes answer, apart from HTTP: searches on the reader pools, records from the store, the index's
/// status and health, and metrics.
final class SearchService: Sendable {
    let configuration: SpotliteConfiguration
    let store: SpotliteStore
    let indexer: SpotliteIndexer
    let events: IndexEvents
    let metrics = ServerMetrics()
    private let readers: ReaderPool
    /// Searchers that answer from the shards they can reach (`allow_partial=true`).
    private let partialReaders: ReaderPool
    private let records: RecordReader
    /// The model and vectors of `[embeddings]`; nil without them (keyword mode only).
    let semantic: SemanticIndex?
    /// Whether shards of the index are on other machines (`tcp://`): searches then wait for the network.
    let searchesRemoteShards: Bool

    /// The modes this server answers in, the configuration's first: semantic and hybrid only with embeddings.
    var modes: [String] { semantic == nil ? [SearchMode.keyword.rawValue]
        : [configuration.searchMode.rawValue] + SearchParameters.modes.filter { $0 != configuration.searchMode.rawValue } }

    init(configuration: SpotliteConfiguration, store: SpotliteStore, indexer: SpotliteIndexer, events: IndexEvents,
         searchers: Int) throws {
        self.configuration = configuration
        self.store = store
        self.indexer = indexer
        self.events = events
        readers = try ReaderPool(count: searchers) {
            try IndexSearcher(configuration: configuration, store: store)
        }
        partialReaders = try ReaderPool(count: searchers) {
            try IndexSearcher(configuration: configuration, store: store, allowsPartialResults: true)
        }
        records = RecordReader(configuration: configuration, store: store)
        searchesRemoteShards = configuration.shards.locations?.contains {
            if case .remote = $0 { return true } else { return false }
        } ?? false
        semantic = configuration.embeddings == nil || configuration.embeddedFields.isEmpty
            ? nil : try SemanticIndex(configuration: configuration)
    }

    /// The mode a request asks for, or the configuration's; a semantic or hybrid one needs embeddings.
    func mode(of parameters: SearchParameters) throws(Problem) -> SearchMode {
        let mode = parameters.mode.flatMap(SearchMode.init(rawValue:)) ?? configuration.searchMode
        if mode.needsEmbeddings, semantic == nil {
            throw Problem(.badRequest, "mode \(mode.rawValue) needs embeddings, which this server does not have; use mode=keyword, or add [embeddings] to the configuration (docs/embeddings.md)")
        }
        return mode
    }

    /// `request` answered in `mode` by `searcher` (and the vectors), with the library's errors as answers.
    func results(of request: SearchRequest, mode: SearchMode, on searcher: IndexSearcher) throws -> SearchResults {
        do {
            return try HybridSearcher(keyword: searcher, semantic: semantic).search(request, mode: mode)
        } catch let error as SearchError {
            throw Self.problem(for: error)
        } catch let error as HybridSearchError {
            switch error {
            case .vectorsNotBuilt, .vectorsOfAnotherModel: throw Problem(.serviceUnavailable, error.description)
            default: throw Problem(.badRequest, error.description)
            }
        } catch let error as EmbeddingError {
            throw Problem(.internalServerError, error.description)
        }
    }

    /// `/search`: the JSON of `spotlite search --json`, with the search's time in a `Server-Timing` header.
    func search(_ parameters: SearchParameters) async throws -> Response {
        let request = try parameters.request()
        let mode = try mode(of: parameters)
        let pool = parameters.allowPartial ? partialReaders : readers
        let answer: @Sendable (IndexSearcher) throws -> ([UInt8], Double) = { searcher in
            let results = try self.results(of: request, mode: mode, on: searcher)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(8192)
            results.appendJSON(to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
            return (bytes, results.seconds)
        }
        // A semantic or hybrid search embeds its query with the model the live embedder also uses, under its lock;
        // a search of shards on other machines waits for the network.
        let (bytes, seconds) = try await onSearcher(of: pool, waits: mode != .keyword, answer)
        return Response(status: .ok,
                        headers: [.contentType: "application/json",
                                  Self.serverTiming: Self.serverTimingValue(seconds: seconds)],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static let serverTiming = HTTPField.Name("Server-Timing")!

    /// `search;dur=MS`, in milliseconds with three decimals, without Foundation's formatter (a cost on every answer).
    static func serverTimingValue(seconds: Double) -> String {
        let microseconds = max(0, Int((seconds * 1_000_000).rounded()))
        let fraction = String(1000 + microseconds % 1000).dropFirst()
        return "search;dur=\(microseconds / 1000).\(fraction)"
    }

    /// `body` with a searcher of `pool`: on the task's own thread when it only computes, on a thread outside the
    /// cooperative pool when it `waits` (or when shards on other machines make every search wait for the network).
    private func onSearcher<T: Sendable>(of pool: ReaderPool, waits: Bool = false,
                                         _ body: @escaping @Sendable (IndexSearcher) throws -> T) async throws -> T {
        waits || searchesRemoteShards ? try await pool.withSearcherWaiting(body) : try await pool.withSearcher(body)
    }

    /// `/records/{entity}/{key}`.
    func record(entity: String, key: String) async throws -> Response {
        let records = self.records
        let data = try await Self.blocking { try records.record(entity: entity, key: key) }
        return Self.json(data)
    }

    /// `/status`: the JSON of `spotlite index status --json`.
    func status() async throws -> Response {
        let status: IndexStatus
        do {
            status = try await indexer.status()
        } catch let error as SearchError {
            throw Self.problem(for: error)
        }
        return Self.json(JSONDocument.line(status.jsonObject))
    }

    /// `/health`: 200 when the index can be searched, 503 with the reason otherwise.
    func health() async -> Response {
        do {
            _ = try await onSearcher(of: readers) { try $0.documentCount() }
            return Self.json(JSONDocument.line(["status": "ok"]))
        } catch {
            let reason = (error as? SearchError)?.commandLineDescription ?? "\(error)"
            return Self.json(JSONDocument.line(["status": "unavailable", "reason": reason]), status: .serviceUnavailable)
        }
    }

    /// `/metrics`.
    func metricsText() async -> Response {
        let documents = try? await onSearcher(of: readers) { try $0.documentCount() }
        let text = metrics.text(documents: documents, token: events.lastToken, embedder: semantic?.embedderTimings.totals)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A library error as an answer: the request's fault (400), the index's (503), or the server's (500).
    static func problem(for error: SearchError) -> Problem {
        switch error {
        case .invalidQuery, .overBudget, .unknownEntity, .unknownField, .invalidFilter, .invalidRanking:
            return Problem(.badRequest, error.commandLineDescription)
        case .indexMissing, .indexLocked, .shardUnavailable, .indexCorrupt:
            return Problem(.serviceUnavailable, error.commandLineDescription)
        default:
            return Problem(.internalServerError, error.commandLineDescription)
        }
    }

    static func json(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Runs blocking work (SQLite) outside Swift's cooperative pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

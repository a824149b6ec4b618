import Foundation
import MCP
import SpotliteEmbeddings
import SpotliteHybrid
import SpotliteJSON
import SpotliteSearch
import SpotliteStore

/// `spotlite mcp` as a library: a Model Context Protocol server on standard input and output whose tools search the
/// index (`search`), read a record (`get_record`) and report the index's state (`index_status`). A call with bad
/// arguments answers a tool error with the command line's sentence; it never ends the server.
public struct SearchToolServer: Sendable {
    /// The most hits one `search` call returns: a model reads every one.
    public static let maximumLimit = 50

    let configuration: SpotliteConfiguration
    let store: SpotliteStore
    let indexer: SpotliteIndexer
    let version: String

    /// Tools over the index the configuration names; `indexer` answers `index_status` (it does not index).
    public init(configuration: SpotliteConfiguration, store: SpotliteStore, indexer: SpotliteIndexer,
                version: String = "0.1.0") {
        self.configuration = configuration
        self.store = store
        self.indexer = indexer
        self.version = version
    }

    /// Serves on standard input and output until the client closes standard input.
    public func run() async throws {
        let tools = try SearchTools(configuration: configuration, store: store, indexer: indexer)
        let server = Server(name: "spotlite", version: version,
                            instructions: "Search a Spotlite index: use search for records matching words (Xapian query syntax), get_record for one record's fields, index_status to see how current the index is.",
                            capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: tools.descriptions) }
        await server.withMethodHandler(CallTool.self) { call in await tools.call(call.name, arguments: call.arguments ?? [:]) }
        try await server.start(transport: StdioTransport())
        await server.waitUntilCompleted()
    }
}

/// The tools' descriptions and their work.
struct SearchTools: Sendable {
    let configuration: SpotliteConfiguration
    let indexer: SpotliteIndexer
    let readers: ReaderPool
    let records: RecordReader
    /// The model and vectors of `[embeddings]`; nil without them (keyword mode only).
    let semantic: SemanticIndex?

    init(configuration: SpotliteConfiguration, store: SpotliteStore, indexer: SpotliteIndexer) throws {
        self.configuration = configuration
        self.indexer = indexer
        readers = try ReaderPool(count: 2) { try IndexSearcher(configuration: configuration, store: store) }
        records = RecordReader(configuration: configuration, store: store)
        semantic = configuration.embeddings == nil || configuration.embeddedFields.isEmpty
            ? nil : try SemanticIndex(configuration: configuration)
    }

    /// The modes the `search` tool answers in: semantic and hybrid only with embeddings.
    var modes: [String] { semantic == nil ? [SearchMode.keyword.rawValue]
        : [configuration.searchMode.rawValue] + SearchParameters.modes.filter { $0 != configuration.searchMode.rawValue } }

    var descriptions: [Tool] {
        let entities = Value.array(configuration.entities.map { .string($0.name) })
        return [
            Tool(name: "search", title: "Search the index",
                 description: "Find records matching a query in Xapian's syntax: words, \"phrases\", AND/OR/NOT, +must/-mustnot, wildcards foo*, field prefixes name:foo, keyword filters section:utils, ranges size:10..20. Returns the best hits with their stored fields and a snippet.",
                 inputSchema: .object([
                    "type": "object",
                    "properties": .object([
                        "query": .object(["type": "string", "description": "The query."]),
                        "entity": .object(["type": "string", "enum": entities, "description": "Only records of this entity."]),
                        "filters": .object(["type": "array", "items": .object(["type": "string"]), "description": "Keyword filters, each FIELD:VALUE."]),
                        "limit": .object(["type": "integer", "minimum": 1, "maximum": .int(SearchToolServer.maximumLimit), "default": 10]),
                        "mode": .object(["type": "string", "enum": .array(modes.map { .string($0) }), "default": .string(configuration.searchMode.rawValue),
                                          "description": "keyword: by the words; semantic: by meaning (embeddings); hybrid: both, fused."]),
                    ]),
                    "required": .array(["query"]),
                    "additionalProperties": false,
                 ]),
                 annotations: .init(readOnlyHint: true, openWorldHint: false)),
            Tool(name: "get_record", title: "Read a record",
                 description: "Every stored column of one record, by entity and key (as search hits give them).",
                 inputSchema: .object([
                    "type": "object",
                    "properties": .object([
                        "entity": .object(["type": "string", "enum": entities]),
                        "key": .object(["type": "string"]),
                    ]),
                    "required": .array(["entity", "key"]),
                    "additionalProperties": false,
                 ]),
                 annotations: .init(readOnlyHint: true, openWorldHint: false)),
            Tool(name: "index_status", title: "Index status",
                 description: "The index's documents and history token against the store's: whether recent changes are searchable yet.",
                 inputSchema: .object(["type": "object", "properties": .object([:]), "additionalProperties": false]),
                 annotations: .init(readOnlyHint: true, openWorldHint: false)),
        ]
    }

    /// A tool error: the sentence, as text, flagged as an error.
    struct Failure: Error {
        var sentence: String
    }

    func call(_ name: String, arguments: [String: Value]) async -> CallTool.Result {
        do {
            switch name {
            case "search": return try await search(arguments)
            case "get_record": return try await record(arguments)
            case "index_status": return try await status(arguments)
            default:
                throw Failure(sentence: "unknown tool \(name.debugDescription); the tools are search, get_record and index_status")
            }
        } catch let failure as Failure {
            return CallTool.Result(content: [.text(failure.sentence)], isError: true)
        } catch let problem as Problem {
            return CallTool.Result(content: [.text(problem.detail)], isError: true)
        } catch let error as SearchError {
            return CallTool.Result(content: [.text(error.commandLineDescription)], isError: true)
        } catch {
            return CallTool.Result(content: [.text("\(error)")], isError: true)
        }
    }

    private func check(_ arguments: [String: Value], known: [String]) throws {
        for name in arguments.keys.sorted() where !known.contains(name) {
            throw Failure(sentence: "unknown argument \(name.debugDescription); the arguments are \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
    }

    private func string(_ arguments: [String: Value], _ name: String, required: Bool) throws -> String? {
        guard let value = arguments[name], value != .null else {
            if required { throw Failure(sentence: "\(name) is missing; give it as a string") }
            return nil
        }
        guard let text = value.stringValue else { throw Failure(sentence: "\(name) must be a string, not \(value)") }
        return text
    }

    private func search(_ arguments: [String: Value]) async throws -> CallTool.Result {
        try check(arguments, known: ["query", "entity", "filters", "limit", "mode"])
        let query = try string(arguments, "query", required: true)!
        let entity = try string(arguments, "entity", required: false)
        var filters: [SearchFilter] = []
        if let value = arguments["filters"], value != .null {
            guard let array = value.arrayValue, let texts = Optional(array.compactMap(\.stringValue)), texts.count == array.count else {
                throw Failure(sentence: "filters must be an array of FIELD:VALUE strings, not \(value)")
            }
            filters = try texts.map(SearchFilter.init(parsing:))
        }
        var limit = 10
        if let value = arguments["limit"], value != .null {
            guard let number = value.intValue ?? value.doubleValue.flatMap({ Int(exactly: $0) }) else {
                throw Failure(sentence: "limit must be a whole number, not \(value)")
            }
            limit = number
        }
        guard (1...SearchToolServer.maximumLimit).contains(limit) else {
            throw Failure(sentence: "limit must be from 1 to \(SearchToolServer.maximumLimit), not \(limit)")
        }
        let modeName = try string(arguments, "mode", required: false) ?? configuration.searchMode.rawValue
        guard let mode = SearchMode(rawValue: modeName) else {
            throw Failure(sentence: "mode must be keyword, semantic or hybrid, not \(modeName.debugDescription)")
        }
        if mode.needsEmbeddings, semantic == nil {
            throw Failure(sentence: "mode \(modeName) needs embeddings, which this index does not have; use mode keyword")
        }
        let request = SearchRequest(query, entities: entity.map { [$0] } ?? [], filters: filters, limit: limit)
        let semantic = self.semantic
        let (json, text) = try await readers.withSearcherWaiting { searcher in
            let results = try HybridSearcher(keyword: searcher, semantic: semantic).search(request, mode: mode)
            var bytes: [UInt8] = []
            results.appendJSON(to: &bytes)
            return (Data(bytes), Self.summary(results, configuration: configuration))
        }
        return try CallTool.Result(content: [.text(text)], structuredContent: try JSONDecoder().decode(Value.self, from: json))
    }

    /// The hits as a model reads them: one line each, then its snippet.
    static func summary(_ results: SearchResults, configuration: SpotliteConfiguration) -> String {
        var lines: [String] = []
        if let corrected = results.corrected { lines.append("No results for \"\(results.query)\"; showing results for \"\(corrected)\".") }
        lines.append("About \(results.total) result\(results.total == 1 ? "" : "s")" + (results.hits.isEmpty ? "." : ":"))
        for hit in results.hits {
            let entity = configuration.entity(named: hit.entity)
            let headline = entity?.fields.first { $0.type == .text && $0.store && $0.name != entity?.key }?.name
            var line = "\(hit.rank). \(hit.entity) \(hit.key.description)"
            if let headline, let value = hit.fields[headline] { line += " — \(value.description)" }
            lines.append(line)
            if !hit.snippet.isEmpty { lines.append("   \(hit.snippet)") }
        }
        return lines.joined(separator: "\n")
    }

    private func record(_ arguments: [String: Value]) async throws -> CallTool.Result {
        try check(arguments, known: ["entity", "key"])
        let entity = try string(arguments, "entity", required: true)!
        let key: String
        if let number = arguments["key"]?.intValue { key = String(number) } else { key = try string(arguments, "key", required: true)! }
        let records = self.records
        let json = try await SearchService.blocking { try records.record(entity: entity, key: key) }
        return try CallTool.Result(content: [.text(String(decoding: json, as: UTF8.self))],
                               structuredContent: try JSONDecoder().decode(Value.self, from: json))
    }

    private func status(_ arguments: [String: Value]) async throws -> CallTool.Result {
        try check(arguments, known: [])
        let status = try await indexer.status()
        let json = JSONDocument.line(status.jsonObject)
        let summary = "\(status.documents) documents at token \(status.token?.rawValue ?? 0); the store is at token \(status.storeToken?.rawValue ?? 0), \(status.pendingTransactions) transaction\(status.pendingTransactions == 1 ? "" : "s") not indexed yet."
        return try CallTool.Result(content: [.text(summary)], structuredContent: try JSONDecoder().decode(Value.self, from: json))
    }
}

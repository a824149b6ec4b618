import Foundation
import SpotliteTestSupport
import Testing

/// `spotlite serve` with `[embeddings]`: the `mode` parameter, the page's mode switch, and vectors kept current
/// while serving.
@Suite("spotlite serve: keyword, semantic and hybrid modes", .blockingWork)
struct ServeModeTests {
    /// The default model as `make deps` installs it, or `$SPOTLITE_MODEL_DIR`.
    static var model: String {
        if let path = ProcessInfo.processInfo.environment["SPOTLITE_MODEL_DIR"], !path.isEmpty { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Index/models/all-MiniLM-L6-v2").path
    }

    static func indexedTool(embeddings: Bool) throws -> CommandLineTool {
        try #require(FileManager.default.fileExists(atPath: model + "/model.safetensors"),
                     "The embedding model is not installed at \(model): run `make deps`, or set SPOTLITE_MODEL_DIR")
        var configuration = CommandLineTool.packageConfiguration
        if embeddings {
            configuration = configuration
                .replacingOccurrences(of: "[entities.Package]\nkey = \"name\"\n", with: "[entities.Package]\nkey = \"name\"\nembed = [\"summary\", \"description\"]\n")
                + "\n[embeddings]\nmodel = \"\(model)\"\n"
        }
        let tool = try CommandLineTool(configuration: configuration)
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        let update = try tool.run(["index", "update"])
        #expect(update.status == 0, "\(update.stderr)")
        return tool
    }

    @Test("/search?mode=semantic|hybrid answers as `spotlite search --mode … --json`, byte for byte; a bad mode is a 400")
    func modes() throws {
        let tool = try Self.indexedTool(embeddings: true)
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch"])
        defer { server.stop() }
        for mode in ["semantic", "hybrid", "keyword"] {
            let expected = try tool.run(["search", "--mode", mode, "photo", "editing", "--json", "--limit", "3"])
            #expect(expected.status == 0, "\(mode): \(expected.stderr)")
            let got = try server.http.get("/search?q=photo%20editing&limit=3&mode=\(mode)")
            #expect(got.status == 200 && got.text == expected.stdout, "GET mode=\(mode)")
            let posted = try server.http.post("/search", json: #"{"q": "photo editing", "limit": 3, "mode": "\#(mode)"}"#)
            #expect(posted.status == 200 && posted.text == expected.stdout, "POST mode=\(mode)")
        }
        let semantic = try server.http.get("/search?q=photo%20editing&mode=semantic&limit=1").json()
        let hit = try #require((semantic["hits"] as? [[String: Any]])?.first)
        #expect(hit["key"] as? String == "gimp" && hit["similarity"] as? Double != nil && hit["keyword_rank"] is NSNull)
        let filtered = try server.http.get("/search?q=photo%20editing&mode=semantic&filter=section%3Adatabase").json()
        #expect(Set((filtered["hits"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String }) == ["sqlite3", "postgresql"])
        let bad = try server.http.get("/search?q=photo&mode=fuzzy")
        #expect(bad.status == 400 && bad.text.contains("keyword, semantic or hybrid"))
        let page = try server.http.get("/").text
        #expect(page.contains("\"modes\":[\"keyword\",\"semantic\",\"hybrid\"]"))
    }

    @Test("Without [embeddings] semantic is a 400 saying so, and the page shows no mode switch")
    func withoutEmbeddings() throws {
        let tool = try Self.indexedTool(embeddings: false)
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch"])
        defer { server.stop() }
        let refused = try server.http.get("/search?q=photo&mode=semantic")
        #expect(refused.status == 400 && refused.text.contains("needs embeddings"))
        #expect(try server.http.get("/").text.contains("\"modes\":[\"keyword\"]"))
    }

    @Test("While serving, a record the sqlite3 shell inserts is soon found by its meaning")
    func liveVectors() throws {
        let tool = try Self.indexedTool(embeddings: true)
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool)
        defer { server.stop() }
        let inserted = try tool.sqlite("INSERT INTO Package (name, summary, description, section) VALUES ('sourdough-timer', 'Proofing schedules for levain and dough', 'Tracks fermentation of a starter and tells when to shape and score.', 'misc')")
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let found = try eventually {
            let answer = try server.http.get("/search?q=baking%20loaves%20of%20bread&mode=semantic&limit=1").json()
            return (answer["hits"] as? [[String: Any]])?.first?["key"] as? String == "sourdough-timer"
        }
        #expect(found)
        // /metrics tells where the live embedder's rounds spent their time.
        let metrics = try server.http.get("/metrics").text
        let rounds = metrics.split(separator: "\n").first { $0.hasPrefix("spotlite_embedder_rounds_total ") }
            .flatMap { Int($0.split(separator: " ")[1]) }
        #expect((rounds ?? 0) >= 1, "\(metrics)")
        for stage in ["reading", "embedding", "committing", "finishing"] {
            #expect(metrics.contains("spotlite_embedder_seconds_total{stage=\"\(stage)\"} "), "\(stage)")
        }
    }

    @Test("spotlite mcp: the search tool takes mode semantic and hybrid, with the hits of `spotlite search --mode`")
    func mcpModes() throws {
        let tool = try Self.indexedTool(embeddings: true)
        defer { tool.remove() }
        let client = try MCPCommandTests.Client(tool: tool)
        defer { _ = client.finish() }
        _ = try client.request("initialize", [
            "protocolVersion": "2025-03-26", "capabilities": [:] as [String: Any],
            "clientInfo": ["name": "spotlite-tests", "version": "1"],
        ])
        try client.send(["jsonrpc": "2.0", "method": "notifications/initialized"])
        let listed = try client.request("tools/list")
        let tools = try #require((listed["result"] as? [String: Any])?["tools"] as? [[String: Any]])
        let search = try #require(tools.first { $0["name"] as? String == "search" })
        let mode = ((search["inputSchema"] as? [String: Any])?["properties"] as? [String: Any])?["mode"] as? [String: Any]
        #expect(mode?["enum"] as? [String] == ["keyword", "semantic", "hybrid"])
        for name in ["semantic", "hybrid"] {
            let found = try client.call("search", ["query": "photo editing", "limit": 3, "mode": name])
            #expect(found["isError"] as? Bool != true, "\(found)")
            let structured = try #require(found["structuredContent"] as? [String: Any])
            let expected = try #require(try tool.run(["search", "--mode", name, "photo editing", "--limit", "3", "--json"]).json() as? [String: Any])
            #expect(NSDictionary(dictionary: structured).isEqual(to: expected), "mode \(name)")
        }
        let bad = try client.call("search", ["query": "photo", "mode": "fuzzy"])
        #expect(bad["isError"] as? Bool == true && MCPCommandTests.text(bad).contains("keyword, semantic or hybrid"))
    }
}

import Foundation
import SpotliteTestSupport
import Testing

/// `spotlite mcp` driven by a client speaking the Model Context Protocol (JSON-RPC, one message a line) over the
/// process's pipes, as an assistant does.
@Suite("spotlite mcp", .blockingWork)
struct MCPCommandTests {
    /// The client side: requests written to the server's stdin, answers read from its stdout by id.
    final class Client {
        let process = Process()
        let input = Pipe(), output = Pipe(), errors = Pipe()
        private var buffer = Data()
        private var nextID = 0

        init(tool: CommandLineTool) throws {
            process.executableURL = URL(fileURLWithPath: CommandLineTool.binary)
            process.arguments = ["mcp", "--config", tool.path("config/spotlite.toml")]
            process.currentDirectoryURL = tool.directory
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        func send(_ message: [String: Any]) throws {
            var data = try JSONSerialization.data(withJSONObject: message)
            data.append(UInt8(ascii: "\n"))
            input.fileHandleForWriting.write(data)
        }

        /// Sends a request and returns its answer (messages in between, notifications, are skipped).
        func request(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
            nextID += 1
            let id = nextID
            try send(["jsonrpc": "2.0", "id": id, "method": method, "params": params])
            while true {
                let message = try readMessage()
                if message["id"] as? Int == id { return message }
            }
        }

        /// A `tools/call`: its result.
        func call(_ tool: String, _ arguments: [String: Any]) throws -> [String: Any] {
            let answer = try request("tools/call", ["name": tool, "arguments": arguments])
            return try #require(answer["result"] as? [String: Any], "\(answer)")
        }

        private func readMessage() throws -> [String: Any] {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer = Data(buffer[(newline + 1)...])
                    if line.isEmpty { continue }
                    return try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty {
                    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    throw LoopbackHTTP.Failure(description: "the server closed its output: \(stderr)")
                }
                buffer.append(chunk)
            }
        }

        /// Closes stdin and waits for the server to end (bounded).
        func finish() -> Int32? {
            try? input.fileHandleForWriting.close()
            let ended = eventually(timeout: 20) { !process.isRunning }
            if !ended { process.terminate() }
            process.waitUntilExit()
            return ended ? process.terminationStatus : nil
        }
    }

    static func text(_ result: [String: Any]) -> String {
        ((result["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
    }

    @Test("initialize, list the tools, search, read a record and the status; bad arguments are tool errors")
    func protocolSession() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let client = try Client(tool: tool)
        defer { _ = client.finish() }

        let initialized = try client.request("initialize", [
            "protocolVersion": "2025-03-26", "capabilities": [:] as [String: Any],
            "clientInfo": ["name": "spotlite-tests", "version": "1"],
        ])
        let info = try #require((initialized["result"] as? [String: Any])?["serverInfo"] as? [String: Any], "\(initialized)")
        #expect(info["name"] as? String == "spotlite")
        try client.send(["jsonrpc": "2.0", "method": "notifications/initialized"])

        let listed = try client.request("tools/list")
        let tools = try #require((listed["result"] as? [String: Any])?["tools"] as? [[String: Any]])
        #expect(Set(tools.compactMap { $0["name"] as? String }) == ["search", "get_record", "index_status"])

        let found = try client.call("search", ["query": "search", "limit": 2])
        #expect(found["isError"] as? Bool != true, "\(found)")
        let structured = try #require(found["structuredContent"] as? [String: Any])
        let expected = try #require(try tool.run(["search", "search", "--limit", "2", "--json"]).json() as? [String: Any])
        #expect(NSDictionary(dictionary: structured).isEqual(to: expected), "the hits of spotlite search --json")
        #expect(Self.text(found).hasPrefix("About \(expected["total"] as? Int ?? -1) results:\n1. Package "), "\(Self.text(found))")

        let filtered = try client.call("search", ["query": "database", "entity": "Package", "filters": ["section:database"]])
        #expect(((filtered["structuredContent"] as? [String: Any])?["hits"] as? [Any])?.count == 2)

        let record = try client.call("get_record", ["entity": "Package", "key": "sqlite3"])
        #expect(((record["structuredContent"] as? [String: Any])?["fields"] as? [String: Any])?["version"] as? String == "3.40.1-2")

        let status = try client.call("index_status", [:])
        #expect((status["structuredContent"] as? [String: Any])?["documents"] as? Int == 5)
        #expect(Self.text(status).hasPrefix("5 documents at token "))

        // Bad arguments: tool errors with the command line's sentences, and the server goes on.
        let cli = try tool.run(["search", "vim AND"])
        let errors: [(String, [String: Any], String)] = [
            ("search", ["query": "vim AND"], String(cli.stderr.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("spotlite: ".count))),
            ("search", ["query": "vim", "limit": 80], "limit must be from 1 to 50, not 80"),
            ("search", ["limit": 3], "query is missing; give it as a string"),
            ("search", ["query": "vim", "colour": "red"], "unknown argument \"colour\"; the arguments are query, entity, filters, limit, mode"),
            ("search", ["query": "vim", "mode": "semantic"], "mode semantic needs embeddings, which this index does not have; use mode keyword"),
            ("search", ["query": "vim", "filters": ["section"]], "the filter \"section\" has no value"),
            ("get_record", ["entity": "Package", "key": "nothing"], "no Package with name \"nothing\""),
            ("get_record", ["entity": "Nope", "key": "x"], "no entity \"Nope\"; the entities are Package"),
            ("no_such_tool", [:], "unknown tool \"no_such_tool\"; the tools are search, get_record and index_status"),
        ]
        for (name, arguments, sentence) in errors {
            let result = try client.call(name, arguments)
            #expect(result["isError"] as? Bool == true, "\(name) \(arguments)")
            #expect(Self.text(result).hasPrefix(sentence), "\(name) \(arguments): \(Self.text(result))")
        }
        #expect(try client.call("search", ["query": "sqlite"])["isError"] as? Bool != true, "still serving")
        #expect(client.finish() == 0)
    }
}

import Foundation
import SpotliteTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `spotlite serve` as a user runs it: the real binary on a free 127.0.0.1 port, every endpoint, every class of bad
/// request, live indexing and a clean stop.
@Suite("spotlite serve", .blockingWork)
struct ServeCommandTests {
    /// A scratch directory with the packages imported and indexed.
    static func indexedTool() throws -> CommandLineTool {
        let tool = try CommandLineTool()
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        return tool
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    @Test("/search answers with the JSON of `spotlite search --json`, byte for byte, by GET and by POST")
    func searchMatchesTheCommand() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch"])
        defer { server.stop() }
        let cases: [(cli: [String], query: String, json: String)] = [
            (["search", "search", "--json"], "q=search", #"{"q": "search"}"#),
            (["search", "database", "--facet", "section", "--limit", "1", "--json"], "q=database&facet=section&limit=1",
             #"{"q": "database", "facet": ["section"], "limit": 1}"#),
            (["search", "--filter", "section:utils", "--sort=-size", "--json"], "filter=section%3Autils&sort=-size",
             #"{"filter": ["section:utils"], "sort": "-size"}"#),
            (["search", "--prefix", "ripg", "--json"], "q=ripg&prefix=true", #"{"q": "ripg", "prefix": true}"#),
            (["search", "datbase", "--json"], "q=datbase", #"{"q": "datbase"}"#),
        ]
        for (arguments, query, json) in cases {
            let expected = try tool.run(arguments)
            #expect(expected.status == 0, "\(arguments): \(expected.stderr)")
            let got = try server.http.get("/search?" + query)
            #expect(got.status == 200)
            #expect(got.headers["content-type"] == "application/json")
            #expect(got.text == expected.stdout, "GET \(query)")
            #expect(got.headers["server-timing"]?.hasPrefix("search;dur=") == true)
            let posted = try server.http.post("/search", json: json)
            #expect(posted.status == 200)
            #expect(posted.text == expected.stdout, "POST \(json)")
        }
        // A query string as a form writes it: + is a space, %2B a plus, in names and values alike.
        let spaced = try server.http.get("/search?q=sqlite%20database&limit=3")
        #expect(try server.http.get("/search?q=sqlite+database&limit=3").text == spaced.text)
        #expect(try server.http.get("/search?%71=sqlite+database&limit=3").text == spaced.text)
        #expect(try server.http.get("/search?q=c%2B%2B&limit=1").status == 200)
        #expect(try server.http.get("/search?q=100%zz").status == 400)
        // Snippets for a page: HTML with the matched words marked, on request only.
        let marked = try server.http.get("/search?q=search&highlight=true").json()
        let snippets = (marked["hits"] as? [[String: Any]] ?? []).compactMap { $0["snippet"] as? String }
        #expect(snippets.contains { $0.contains("<mark>") })
    }

    @Test("many clients at once: every search answers with the command's bytes, none is lost or mixed up")
    func concurrentSearches() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch"])
        defer { server.stop() }
        let queries = ["search", "database", "editor", "ripgrep", "photo editing", "datbase", "sqlite database", "web server"]
        var expected: [String] = []
        for query in queries {
            let output = try tool.run(["search", query, "--json", "--limit", "5"])
            #expect(output.status == 0, "\(query): \(output.stderr)")
            expected.append(output.stdout)
        }
        // More clients than the server has searchers, each asking every query, in an order of its own.
        let clients = 16
        let answers = Mutex<[(client: Int, query: Int, status: Int, text: String)]>([])
        let failures = Mutex<[String]>([])
        let http = server.http
        DispatchQueue.concurrentPerform(iterations: clients) { client in
            for step in 0..<queries.count {
                let index = (client + step) % queries.count
                do {
                    let answer = try http.get("/search?q=\(Self.percentEncoded(queries[index]))&limit=5")
                    answers.withLock { $0.append((client, index, answer.status, answer.text)) }
                } catch {
                    failures.withLock { $0.append("client \(client), \(queries[index]): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let received = answers.withLock { $0 }
        #expect(received.count == clients * queries.count)
        for answer in received {
            #expect(answer.status == 200 && answer.text == expected[answer.query],
                    "client \(answer.client) asked \(queries[answer.query].debugDescription)")
        }
    }

    @Test("/records, /status, /health, /metrics, /openapi.json and the page")
    func otherEndpoints() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch"])
        defer { server.stop() }
        let http = server.http

        let record = try http.get("/records/Package/sqlite3")
        #expect(record.status == 200)
        let object = try record.json()
        #expect(object["entity"] as? String == "Package" && object["key"] as? String == "sqlite3")
        #expect((object["fields"] as? [String: Any])?["version"] as? String == "3.40.1-2")
        #expect((object["fields"] as? [String: Any])?["size"] as? Int == 80)
        let missing = try http.get("/records/Package/nosuchpackage")
        #expect(missing.status == 404 && missing.headers["content-type"] == "application/problem+json")
        #expect(try missing.json()["detail"] as? String == "no Package with name \"nosuchpackage\"")
        #expect(try http.get("/records/Nothing/x").json()["detail"] as? String == "no entity \"Nothing\"; the entities are Package")

        let status = try http.get("/status")
        #expect(status.status == 200)
        let command = try tool.run(["index", "status", "--json"])
        let served = try status.json(), printed = try #require(try command.json() as? [String: Any])
        for key in ["index", "documents", "token", "store_token", "pending_transactions", "fingerprint"] {
            #expect("\(served[key] ?? "nil")" == "\(printed[key] ?? "nil")", "\(key)")
        }
        #expect(Set(served.keys) == Set(printed.keys))

        let health = try http.get("/health")
        #expect(health.status == 200 && health.text == "{\"status\":\"ok\"}\n")

        let metrics = try http.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains("spotlite_http_requests_total{route=\"/health\",method=\"GET\",status=\"200\"} 1"))
        #expect(metrics.text.contains("spotlite_http_request_duration_seconds_bucket{route=\"/status\",le=\"+Inf\"} 1"))
        #expect(metrics.text.contains("spotlite_index_documents 5"))
        #expect(metrics.text.contains("spotlite_index_token "))

        let openapi = try http.get("/openapi.json").json()
        #expect(openapi["openapi"] as? String == "3.1.0")
        let paths = Set((openapi["paths"] as? [String: Any] ?? [:]).keys)
        #expect(paths == ["/", "/search", "/records/{entity}/{key}", "/status", "/health", "/metrics", "/events", "/openapi.json"])

        let page = try http.get("/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        #expect(page.text.contains("\"facets\":[\"section\"]"))
        #expect(!page.text.contains("http://") && !page.text.contains("https://"), "nothing from another host")
    }

    @Test("bad requests get their 4xx with the command line's sentence, and the server keeps answering")
    func badRequests() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch", "--request-timeout", "2"])
        defer { server.stop() }
        let http = server.http
        func problem(_ answer: LoopbackHTTP.Answer, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            #expect(answer.status == status, "\(answer.text)", sourceLocation: sourceLocation)
            #expect(answer.headers["content-type"] == "application/problem+json", sourceLocation: sourceLocation)
            let object = try answer.json()
            #expect(object["status"] as? Int == status && object["type"] as? String == "about:blank", sourceLocation: sourceLocation)
            #expect(object["title"] is String, sourceLocation: sourceLocation)
            return object["detail"] as? String ?? ""
        }
        func cliSentence(_ arguments: [String]) throws -> String {
            let output = try tool.run(arguments)
            #expect(output.status != 0)
            return String(output.stderr.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("spotlite: ".count))
        }

        #expect(try problem(http.post("/search", json: "{\"q\": \"vim\""), 400).hasPrefix("the body is not valid JSON ("))
        #expect(try problem(http.post("/search", json: "[1]"), 400).hasPrefix("the body is JSON but not an object"))
        #expect(try problem(http.get("/search?q=vim&colour=red"), 400).hasPrefix("unknown parameter \"colour\"; the parameters are q, entity"))
        #expect(try problem(http.post("/search", json: "{\"q\": \"vim\", \"lmit\": 3}"), 400).hasPrefix("unknown parameter \"lmit\""))
        #expect(try problem(http.get("/search?q=vim&limit=20000"), 400) == "limit must be ≤ 10,000, not 20000; page through more hits with offset")
        #expect(try cliSentence(["search", "vim", "--limit", "20000"]).hasPrefix("--limit must be ≤ 10,000, not 20000; page through more hits with --offset"))
        #expect(try problem(http.get("/search?q=vim&limit=ten"), 400) == "limit must be a whole number, not \"ten\"")
        #expect(try problem(http.post("/search", json: "{\"q\": \"vim\", \"limit\": \"3\"}"), 400) == "limit must be a whole number in a JSON body, not the string \"3\"")
        #expect(try problem(http.post("/search", json: "{\"entity\": \"Package\"}"), 400) == "entity must be an array of strings in a JSON body, not the string \"Package\"")
        #expect(try problem(http.get("/search"), 400) == "give a query (q=vim), a filter or an entity")
        #expect(try problem(http.get("/search?q=vim&mode=semantic"), 400).hasPrefix("mode semantic needs embeddings"))
        // A query that cannot be parsed, and a filter without a value: the command line's own sentences.
        for (query, arguments) in [("q=vim%20AND", ["search", "vim AND"]), ("q=vim&filter=section", ["search", "vim", "--filter", "section"]),
                                   ("q=name%3Avim&sort=colour", ["search", "name:vim", "--sort", "colour"])] {
            #expect(try problem(http.get("/search?" + query), 400) == cliSentence(arguments), "\(query)")
        }
        // A body over 64 KiB, announced or not.
        let large = "{\"q\": \"" + String(repeating: "a", count: 70_000) + "\"}"
        #expect(try problem(http.post("/search", json: large), 413).hasPrefix("the request body is over 64 KiB"))
        // Paths that try to leave the API name nothing else.
        for path in ["/records/../../etc/passwd", "/records/Package/..%2F..%2Fetc%2Fpasswd", "/../../etc/passwd", "/records/%2e%2e/passwd"] {
            let answer = try http.get(path)
            #expect(answer.status == 404, "\(path): \(answer.status)")
            #expect(!answer.text.contains("root:"), "\(path)")
        }
        #expect(try problem(http.request("DELETE", "/search"), 405) == "/search answers GET, POST, not DELETE")
        #expect(try http.request("DELETE", "/search").headers["allow"] == "GET, POST")
        #expect(try problem(http.get("/nothing-here"), 404).hasPrefix("nothing at /nothing-here"))
        #expect(try http.get("/health").status == 200, "still answering")
    }

    @Test("a request trickling in byte by byte is cut off while the server answers everyone else")
    func tricklingClient() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch", "--request-timeout", "2"])
        defer { server.stop() }
        let http = server.http
        let socket = try http.connect(timeout: 10)
        defer { close(socket) }
        let request = Array(("GET /search?q=vim HTTP/1.1\r\nHost: x\r\nX-Slow: " + String(repeating: "y", count: 100) + "\r\n\r\n").utf8)
        let started = Date()
        var closedAfter: Double?
        var answeredOthers = 0
        for byte in request {
            guard LoopbackHTTP.send(socket, Data([byte])) else {
                closedAfter = Date().timeIntervalSince(started)
                break
            }
            if try http.get("/search?q=sqlite").status == 200 { answeredOthers += 1 }
            usleep(100_000)
            var probe = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&probe, 1, 0) > 0 {
                var byte: UInt8 = 0
                if recv(socket, &byte, 1, 0) <= 0 {
                    closedAfter = Date().timeIntervalSince(started)
                    break
                }
            }
        }
        let after = try #require(closedAfter, "the trickling connection was never closed")
        #expect(after >= 1.5 && after < 8, "closed after \(after) s")
        #expect(answeredOthers >= 10)
    }

    @Test("1,000 connections opened and left idle: the server answers everyone else, and closes them in time")
    func idleConnections() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch", "--request-timeout", "2"])
        defer { server.stop() }
        let http = server.http
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let count = min(1_000, Int(limit.rlim_cur) - 100)
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for _ in 0..<count { sockets.append(try http.connect(timeout: 10)) }
        #expect(try http.get("/search?q=sqlite").status == 200, "answered with \(count) idle connections open")
        let closedAll = eventually(timeout: 30) {
            sockets.allSatisfy { socket in
                var byte: UInt8 = 0
                return recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) == 0
            }
        }
        #expect(closedAll, "every idle connection was closed by the server")
        #expect(try http.get("/health").status == 200)
    }

    @Test("an API key is required when given, compared as sent; another host without one is refused")
    func apiKey() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let refused = try tool.run(["serve", "--host", "0.0.0.0", "--port", "0", "--no-watch"])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("spotlite: serving on 0.0.0.0 makes the index reachable from other machines, so it needs an API key"))
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch", "--api-key", "s3cret-key"])
        defer { server.stop() }
        let http = server.http
        #expect(try http.get("/search?q=vim").status == 401)
        #expect(try http.get("/search?q=vim").headers["www-authenticate"] == "Bearer")
        #expect(try http.get("/search?q=vim", headers: ["Authorization": "Bearer s3cret-kez"]).status == 401)
        #expect(try http.get("/search?q=vim", headers: ["Authorization": "Bearer s3cret-key-and-more"]).status == 401)
        #expect(try http.get("/status", headers: ["Authorization": "s3cret-key"]).status == 401)
        #expect(try http.get("/search?q=vim", headers: ["Authorization": "Bearer s3cret-key"]).status == 200)
        #expect(try http.get("/health").status == 200, "open: load balancers check it")
        #expect(try http.get("/").status == 200, "open: the page asks for the key")
    }

    @Test("live indexing: a commit by another process is an event and searchable; SIGTERM stops it cleanly")
    func liveIndexingAndStop() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool)
        defer { server.stop() }
        let http = server.http
        let events = try http.connect(timeout: 30)
        defer { close(events) }
        #expect(LoopbackHTTP.send(events, Data("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        func readUntil(_ marker: String) -> Bool {
            while !String(decoding: received, as: UTF8.self).contains(marker) {
                let count = recv(events, &buffer, buffer.count, 0)
                if count <= 0 { return false }
                received.append(contentsOf: buffer[0..<count])
            }
            return true
        }
        #expect(readUntil(": connected"))
        #expect(String(decoding: received, as: UTF8.self).contains("text/event-stream"))
        try tool.write(#"{"name": "zstd", "section": "utils", "summary": "fast lossless compression", "version": "1.5"}"# + "\n", to: "more.jsonl")
        #expect(try tool.run(["import", "more.jsonl", "--entity", "Package"]).status == 0)
        #expect(readUntil("event: index\ndata: {"), "\(String(decoding: received, as: UTF8.self))")
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.contains("\"indexed\":1"), "\(text)")
        #expect(try http.get("/search?q=zstd").json()["total"] as? Int == 1)
        // The open event stream does not hold the stop up.
        let stopping = Date()
        server.signal(SIGTERM)
        #expect(eventually(timeout: 20) { !server.isRunning })
        #expect(Date().timeIntervalSince(stopping) < 15)
        #expect(server.exitStatus == 0, "\(server.errorOutput)")
        #expect(!server.errorOutput.contains("Fatal error"))
    }
}

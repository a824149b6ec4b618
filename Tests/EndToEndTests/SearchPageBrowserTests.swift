import Foundation
import SpotliteReplication
import SpotliteSearch
import SpotliteTestSupport
import SpotliteTooling
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The search page in a real browser: Debian's headless Chromium driven through chromedriver (WebDriver over HTTP on
/// loopback), typing as a person does.
@Suite("Search page in a browser", .blockingWork)
struct SearchPageBrowserTests {
    static let chromedriver = "/usr/bin/chromedriver"
    static let chromium = "/usr/bin/chromium"

    /// Packages whose names start like "click", and others, in several sections.
    static let packages = [
        #"{"name": "clickhouse-server", "section": "database", "summary": "column-oriented database system (server)", "description": "ClickHouse is a column-oriented database management system for online analytical processing.", "version": "18.16.1", "size": 9000}"#,
        #"{"name": "clickhouse-client", "section": "database", "summary": "column-oriented database system (client)", "description": "ClickHouse is a column-oriented database management system; this is its command line client.", "version": "18.16.1", "size": 700}"#,
        #"{"name": "click", "section": "python", "summary": "Python composable command line interface toolkit", "description": "Click is a Python package for creating beautiful command line interfaces; clicking through options.", "version": "8.1", "size": 300}"#,
        #"{"name": "xdotool", "section": "x11", "summary": "simulate (generate) X11 keyboard/mouse input events", "description": "Lets you simulate keyboard input and mouse activity: click, move, type.", "version": "3.2", "size": 80}"#,
        #"{"name": "sqlite3", "section": "database", "summary": "Command line interface for SQLite 3", "description": "A shell for SQLite databases.", "version": "3.40", "size": 80}"#,
        #"{"name": "postgresql", "section": "database", "summary": "object-relational SQL database", "description": "A relational database server.", "version": "15", "size": 40}"#,
        #"{"name": "vim", "section": "editors", "summary": "Vi IMproved - enhanced vi editor", "description": "Vim is a text editor.", "version": "9.0", "size": 3900}"#,
    ].joined(separator: "\n") + "\n"

    /// A WebDriver session on a chromedriver of this test's own.
    final class Browser {
        let driver: SessionProcess
        let http: LoopbackHTTP
        let session: String

        init(directory: CommandLineTool) throws {
            for program in [SearchPageBrowserTests.chromedriver, SearchPageBrowserTests.chromium]
            where !FileManager.default.isExecutableFile(atPath: program) {
                throw LoopbackHTTP.Failure(description: "\(program) is missing: install Debian's chromium and chromium-driver (make deps does)")
            }
            let port = try LoopbackPort.free()
            let log = directory.path("chromedriver.log")
            driver = try SessionProcess(executable: SearchPageBrowserTests.chromedriver,
                                        arguments: ["--port=\(port)", "--allowed-ips=127.0.0.1"],
                                        outputPath: log, lifetime: .seconds(300))
            http = LoopbackHTTP(port: port)
            let http = self.http
            let ready = eventually(timeout: 30) { ((try? http.get("/status"))?.status ?? 0) == 200 }
            guard ready else { throw LoopbackHTTP.Failure(description: "chromedriver did not start: \(driver.output)") }
            let capabilities = """
                {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {"binary": "\(SearchPageBrowserTests.chromium)",
                  "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,820",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--user-data-dir=\(directory.path("chromium-profile"))"]}}}}
                """
            let created = try Self.value(http.post("/session", json: capabilities))
            session = try #require((created as? [String: Any])?["sessionId"] as? String)
        }

        static func value(_ answer: LoopbackHTTP.Answer) throws -> Any {
            let object = try answer.json()
            guard answer.status == 200 else { throw LoopbackHTTP.Failure(description: "WebDriver \(answer.status): \(answer.text)") }
            return object["value"] ?? NSNull()
        }

        @discardableResult
        func command(_ method: String, _ path: String, _ json: String? = nil) throws -> Any {
            let answer = try http.request(method, "/session/\(session)\(path)",
                                          headers: json == nil ? [:] : ["Content-Type": "application/json"],
                                          body: json.map { Data($0.utf8) })
            return try Self.value(answer)
        }

        func open(_ url: String) throws { try command("POST", "/url", #"{"url": "\#(url)"}"#) }

        func element(_ selector: String) throws -> String {
            let found = try command("POST", "/element", #"{"using": "css selector", "value": "\#(selector)"}"#)
            return try #require((found as? [String: Any])?.values.first as? String)
        }

        func type(_ text: String, into element: String) throws {
            let escaped = String(data: try JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]), encoding: .utf8)!
            try command("POST", "/element/\(element)/value", #"{"text": \#(escaped.dropFirst().dropLast())}"#)
        }

        func click(_ element: String) throws { try command("POST", "/element/\(element)/click", "{}") }

        /// Runs `script` in the page and returns its value.
        @discardableResult
        func run(_ script: String) throws -> Any {
            let body = try JSONSerialization.data(withJSONObject: ["script": script, "args": []] as [String: Any])
            return try command("POST", "/execute/sync", String(decoding: body, as: UTF8.self))
        }

        /// The keys of the results shown, in order.
        func shownKeys() throws -> [String] {
            try run("return [...document.querySelectorAll('li.hit')].map(item => item.dataset.key)") as? [String] ?? []
        }

        func screenshot() throws -> Data {
            let encoded = try #require(try command("GET", "/screenshot") as? String)
            return try #require(Data(base64Encoded: encoded))
        }

        func close() {
            _ = try? command("DELETE", "")
            driver.stop()
        }
    }

    /// A scratch folder with the packages imported and indexed, for a server to serve.
    static func indexedPackages() throws -> CommandLineTool {
        let tool = try CommandLineTool()
        try tool.write(packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        return tool
    }

    @Test("typing clickh shows ClickHouse first; a facet filters; arrows and enter pick a result")
    func searchAsYouType() throws {
        let tool = try Self.indexedPackages()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch"])
        defer { server.stop() }
        let browser = try Browser(directory: tool)
        defer { browser.close() }

        try browser.open("http://127.0.0.1:\(server.port)/")
        let input = try browser.element("#q")
        #expect(try browser.run("return document.getElementById('mode').hidden") as? Bool == true,
                "no mode switch without embeddings")
        try browser.type("clickh", into: input)
        #expect(eventually(timeout: 20) { (try? browser.shownKeys().first?.hasPrefix("clickhouse")) == true },
                "\((try? browser.shownKeys()) ?? [])")
        let keys = try browser.shownKeys()
        #expect(Set(keys.prefix(2)) == ["clickhouse-server", "clickhouse-client"], "\(keys)")
        let marked = try browser.run("return document.querySelector('li.hit .snippet mark')?.textContent ?? ''") as? String
        #expect(marked?.lowercased().hasPrefix("clickh") == true, "highlighted snippet: \(marked ?? "nil")")
        let summary = try browser.run("return document.getElementById('stats').textContent") as? String ?? ""
        #expect(summary.hasPrefix("About 2 results in ") && summary.hasSuffix(" ms"), "\(summary)")

        // Widen the query, then narrow it with a facet.
        try browser.run("const q = document.getElementById('q'); q.value = ''; q.dispatchEvent(new Event('input'))")
        try browser.type("click", into: input)
        #expect(eventually(timeout: 20) { ((try? browser.shownKeys())?.count ?? 0) >= 3 })
        let facet = try browser.element("aside button[data-filter='section:python']")
        let count = try browser.run("return document.querySelector(\"aside button[data-filter='section:python'] .count\").textContent") as? String
        #expect(count == "1")
        try browser.click(facet)
        #expect(eventually(timeout: 20) { (try? browser.shownKeys()) == ["click"] }, "\((try? browser.shownKeys()) ?? [])")
        #expect(try browser.run("return document.getElementById('filters').textContent") as? String == "section:python ×")
        try browser.click(try browser.element("#filters .chip"))
        #expect(eventually(timeout: 20) { ((try? browser.shownKeys())?.count ?? 0) >= 3 })

        // Keyboard: down moves the selection, enter opens the record.
        try browser.type("\u{E015}", into: input)
        #expect(try browser.run("return [...document.querySelectorAll('li.hit')].findIndex(item => item.classList.contains('selected'))") as? Int == 1)
        try browser.type("\u{E007}", into: input)
        #expect(eventually(timeout: 20) {
            ((try? browser.run("return document.getElementById('detail').textContent")) as? String ?? "").contains("\"entity\": \"Package\"")
        })
        if let path = ProcessInfo.processInfo.environment["SPOTLITE_PAGE_SCREENSHOT"] {
            try browser.screenshot().write(to: URL(fileURLWithPath: path))
        }
        let screenshot = try browser.screenshot()
        #expect(screenshot.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
    }

    @Test("answers arriving out of order are dropped: the page shows the last query's results")
    func outOfOrderAnswers() throws {
        let tool = try Self.indexedPackages()
        defer { tool.remove() }
        let server = try ServeProcess(tool: tool, arguments: ["--no-watch"])
        defer { server.stop() }
        let browser = try Browser(directory: tool)
        defer { browser.close() }
        try browser.open("http://127.0.0.1:\(server.port)/")
        // The first answer is held back until after the second has been shown.
        try browser.run("""
            const realFetch = window.fetch; let calls = 0;
            window.fetch = (url, options) => {
              calls += 1;
              const answer = realFetch(url, options);
              return calls === 1 ? new Promise(resolve => setTimeout(() => resolve(answer), 1500)) : answer;
            };
            const q = document.getElementById('q');
            q.value = 'vim'; q.dispatchEvent(new Event('input'));
            setTimeout(() => { q.value = 'sqlite'; q.dispatchEvent(new Event('input')); }, 300);
            """)
        #expect(eventually(timeout: 20) { (try? browser.shownKeys()) == ["sqlite3"] })
        Thread.sleep(forTimeInterval: 2)
        #expect(try browser.shownKeys() == ["sqlite3"], "the late answer for vim was dropped")
    }
}

import Foundation
import SpotliteTestSupport
import Testing

/// `spotlite search --queries FILE|-`: one answer per query line, written as the queries are read.
@Suite("Batch search from a file or a pipe", .serialized, .blockingWork)
struct CommandBatchSearchTests {
    /// A tool with the sample packages imported and indexed.
    static func indexedTool() throws -> CommandLineTool {
        let tool = try CommandLineTool()
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        return tool
    }

    /// Reads from `handle` until a newline arrives; nil when nothing complete came within `timeout` seconds or the
    /// stream ended (a tool that holds its answers back until the end of its input would hang the test otherwise).
    static func readLine(from handle: FileHandle, pending: inout [UInt8], timeout: Int32 = 60_000) -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, timeout) > 0 else { return nil }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            pending += chunk
        }
    }

    @Test("through a pipe, each query is answered before the next one is written")
    func conversation() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTool.binary)
        process.arguments = ["search", "--queries", "-", "--json"]
        process.currentDirectoryURL = tool.directory
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var pending: [UInt8] = []
        for (query, key) in [("xapian", "xapian-tools"), ("sqlite", "sqlite3"), ("raster graphics", "gimp")] {
            input.fileHandleForWriting.write(Data((query + "\n").utf8))
            let line = try #require(Self.readLine(from: output.fileHandleForReading, pending: &pending),
                                    "no answer to \(query) while the input is still open")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["query"] as? String == query)
            #expect(((object["hits"] as? [[String: Any]])?.first)?["key"] as? String == key)
        }
        try input.fileHandleForWriting.close()
        #expect(Self.readLine(from: output.fileHandleForReading, pending: &pending) == nil, "nothing after the last answer")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
    }

    @Test("a file: blank lines skipped, Windows line endings accepted, a last line without a newline answered")
    func file() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        try tool.write("xapian\r\n\n   \nsqlite\ngimp", to: "queries.txt")
        let json = try tool.run(["search", "--queries", "queries.txt", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let queries = try json.jsonLines().map { ($0 as? [String: Any])?["query"] as? String }
        #expect(queries == ["xapian", "sqlite", "gimp"])
        let human = try tool.run(["search", "--queries", "queries.txt"])
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.components(separatedBy: "About ").count == 4, "one summary line per query")
        // Many queries: the answers come out complete and in order, whatever the buffering.
        let many = (0..<400).map { ["xapian", "sqlite", "gimp", "postgresql"][$0 % 4] }
        try tool.write(many.joined(separator: "\n") + "\n", to: "many.txt")
        let batch = try tool.run(["search", "--queries", "many.txt", "--json"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try batch.jsonLines().map { ($0 as? [String: Any])?["query"] as? String } == many)
    }

    @Test("a line that is not UTF-8 stops the batch with its line number, after the answers before it")
    func notUTF8() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        try tool.write(Data("xapian\n".utf8) + Data([0x66, 0xE9, 0x65, 0x0A]) + Data("sqlite\n".utf8), to: "queries.txt")
        let result = try tool.run(["search", "--queries", "queries.txt", "--json"])
        expectOneLineError(result, mentioning: ["line 2", "UTF-8"])
        #expect(try result.jsonLines().count == 1, "the first query was answered")
    }

    @Test("a missing file or a directory is a one-line error")
    func unreadable() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        expectOneLineError(try tool.run(["search", "--queries", "missing.txt"]), mentioning: ["missing.txt", "no such file"])
        try FileManager.default.createDirectory(atPath: tool.path("folder"), withIntermediateDirectories: true)
        expectOneLineError(try tool.run(["search", "--queries", "folder"]), mentioning: ["folder", "directory"])
    }

    @Test("--jobs: queries run at once answer exactly as one at a time, in the order of the lines")
    func jobs() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        // Hits, a spelling correction, nothing found, repeated: more lines than one batch holds.
        let lines = (0..<600).map { ["xapian", "sqlite editor", "raster graphics", "xapain", "zzzunknown", "gimp"][$0 % 6] }
        try tool.write(lines.joined(separator: "\n") + "\n", to: "many.txt")
        for format in [["--json"], []] {
            let one = try tool.run(["search", "--queries", "many.txt", "--jobs", "1"] + format)
            #expect(one.status == 0, "\(one.stderr)")
            for jobs in ["2", "5"] {
                let several = try tool.run(["search", "--queries", "many.txt", "--jobs", jobs] + format)
                #expect(several.status == 0, "\(several.stderr)")
                // Human output says how long each search took; JSON does not.
                if format.isEmpty {
                    func withoutTimes(_ text: String) -> String {
                        text.replacing(/\ in [0-9.,]+ *[mµ]?s\./, with: "")
                    }
                    #expect(withoutTimes(several.stdout) == withoutTimes(one.stdout), "--jobs \(jobs)")
                } else {
                    #expect(several.stdout == one.stdout, "--jobs \(jobs), byte for byte")
                }
            }
        }
    }

    @Test("--jobs: a query that cannot be run stops the batch with its line number, after the answers before it")
    func jobsFailure() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        let lines = (0..<50).map { $0 == 37 ? "editor AND" : ["xapian", "gimp", "sqlite"][$0 % 3] }
        try tool.write(lines.joined(separator: "\n") + "\n", to: "queries.txt")
        let result = try tool.run(["search", "--queries", "queries.txt", "--json", "--jobs", "4"])
        expectOneLineError(result, mentioning: ["line 38"])
        #expect(try result.jsonLines().map { ($0 as? [String: Any])?["query"] as? String } == Array(lines[..<37]),
                "the answers before the failing line, in order, and none after")
    }

    @Test("--jobs out of range or without --queries is a usage error")
    func jobsUsage() throws {
        let tool = try Self.indexedTool()
        defer { tool.remove() }
        try tool.write("xapian\n", to: "queries.txt")
        expectOneLineError(try tool.run(["search", "--queries", "queries.txt", "--jobs", "0"]), mentioning: ["--jobs", "1"])
        expectOneLineError(try tool.run(["search", "--queries", "queries.txt", "--jobs", "65"]), mentioning: ["--jobs", "64"])
        expectOneLineError(try tool.run(["search", "xapian", "--jobs", "2"]), mentioning: ["--jobs", "--queries"])
    }
}

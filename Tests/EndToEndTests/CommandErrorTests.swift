import Foundation
import SpotliteTestSupport
import Testing

/// Every error is one line on stderr starting with `spotlite: `, naming the problem and the way out, with a
/// non-zero exit status and nothing half-written.
@Suite("Errors of the spotlite binary", .serialized, .blockingWork)
struct CommandErrorTests {
    @Test func missingConfigurationFile() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        expectOneLineError(try tool.run(["index", "status", "--config", "nope.toml"]), mentioning: ["nope.toml"])
    }

    @Test func malformedConfigurationNamesFileAndKey() throws {
        let tool = try CommandLineTool(configuration: """
            [entities.Package]
            key = "name"
            [entities.Package.fields]
            size = { type = "integer" }
            """)
        defer { tool.remove() }
        let output = try tool.run(["index", "update"])
        expectOneLineError(output, mentioning: ["config/spotlite.toml", "entities.Package.fields.size.type", "expected"])
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index/store.sqlite")), "nothing created")
    }

    @Test func unknownEntityAndField() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        expectOneLineError(try tool.run(["import", "packages.jsonl", "--entity", "Nope"]), mentioning: ["Nope", "Package"])
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        expectOneLineError(try tool.run(["search", "x", "--filter", "colour:red"]), mentioning: ["colour"])
        expectOneLineError(try tool.run(["search", "x", "--sort", "summary"]), mentioning: ["summary", "sortable"])
        expectOneLineError(try tool.run(["search", "x", "--entity", "Nope"]), mentioning: ["Nope"])
    }

    @Test func missingStore() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        for command in [["index", "update"], ["search", "xapian"], ["history", "list"], ["index", "status"]] {
            expectOneLineError(try tool.run(command), mentioning: ["no store", "import"])
        }
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index/store.sqlite")))
    }

    @Test func indexLockedByAnotherProcess() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        let watch = try tool.start(["index", "watch"])
        defer { watch.signal(SIGKILL); _ = watch.finish() }
        #expect(eventually(timeout: 30) { FileManager.default.fileExists(atPath: tool.path("Index/search/XAPIANDB")) })
        let output = try tool.run(["index", "update"])
        expectOneLineError(output, mentioning: ["being updated by another process"])
        // Searching is not blocked by the writer.
        #expect(try tool.run(["search", "xapian"]).status == 0)
    }

    @Test func unparsableQuery() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        for query in ["invoice AND", "x NOT", "a OR", "size:abc..def"] {
            let output = try tool.run(["search", query])
            expectOneLineError(output, mentioning: ["cannot parse the query"])
        }
    }

    @Test func malformedJSONLineStopsWithItsNumberAndKeepsEarlierBatches() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let lines = CommandLineTool.packages.split(separator: "\n").map(String.init)
        let input = (lines[0..<4] + ["{\"name\": \"broken\", "] + lines[4...]).joined(separator: "\n") + "\n"
        try tool.write(input, to: "bad.jsonl")
        let output = try tool.run(["import", "bad.jsonl", "--entity", "Package", "--batch", "2"])
        expectOneLineError(output, mentioning: ["line 5"])
        let stats = try #require(try tool.run(["history", "stats", "--json"]).json() as? [String: Any])
        #expect(stats["transactions"] as? Int == 2, "the two full batches before line 5 stay committed")
        #expect(stats["changes"] as? Int == 4)
    }

    @Test func nonUTF8Input() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        var data = Data(#"{"name": "ok", "summary": "fine"}"#.utf8) + Data("\n".utf8)
        data += Data(#"{"name": "bad", "summary": ""#.utf8) + Data([0xFF, 0xFE]) + Data("\"}\n".utf8)
        try tool.write(data, to: "latin.jsonl")
        expectOneLineError(try tool.run(["import", "latin.jsonl", "--entity", "Package"]), mentioning: ["line 2", "UTF-8"])
    }

    @Test func pathThatCannotBeWritten() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        try tool.write("not a directory", to: "file")
        let output = try tool.run(["import", "packages.jsonl", "--entity", "Package", "--store", "file/store.sqlite"])
        expectOneLineError(output, mentioning: ["file/store.sqlite"])
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        expectOneLineError(try tool.run(["index", "update", "--index", "file/search"]), mentioning: ["file/search"])
    }

    @Test func usageErrorsAreOneLineToo() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        expectOneLineError(try tool.run(["search"]), mentioning: ["query"])
        expectOneLineError(try tool.run(["import", "x.jsonl"]), mentioning: ["--entity"])
        let help = try tool.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("index"))
    }
}

import Foundation
import Testing

/// Values out of range, numbers too big to store, reserved or empty authors and inputs that are not files: each a
/// one-line `spotlite:` error with a non-zero status, and nothing committed that should not be.
@Suite("Bounds of the spotlite binary's input", .serialized)
struct CommandBoundsTests {
    func expectOneLineError(_ output: CommandLineTool.Output, mentioning words: [String],
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status != 0, "non-zero exit", sourceLocation: sourceLocation)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr.hasPrefix("spotlite: "), "\(output.stderr)", sourceLocation: sourceLocation)
        for word in words {
            #expect(output.stderr.contains(word), "mentions \(word): \(output.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test("every numeric option says its range, negative values included")
    func numericOptionRanges() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        expectOneLineError(try tool.run(["import", "packages.jsonl", "--entity", "Package", "--batch", "99999999999999"]),
                           mentioning: ["--batch", "≤ 100,000"])
        expectOneLineError(try tool.run(["import", "packages.jsonl", "--entity", "Package", "--batch", "0"]),
                           mentioning: ["--batch", "≥ 1"])
        expectOneLineError(try tool.run(["import", "packages.jsonl", "--entity", "Package", "--batch", "-5"]),
                           mentioning: ["--batch", "≥ 1", "-5"])
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index/store.sqlite")), "nothing created")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        expectOneLineError(try tool.run(["search", "xapian", "--limit", "-1"]), mentioning: ["--limit", "≥ 0"])
        expectOneLineError(try tool.run(["search", "xapian", "--limit", "100000"]), mentioning: ["--limit", "≤ 10,000"])
        expectOneLineError(try tool.run(["search", "xapian", "--offset", "-3"]), mentioning: ["--offset", "≥ 0"])
        expectOneLineError(try tool.run(["search", "xapian", "--offset", "99999999999"]), mentioning: ["--offset", "≤"])
        expectOneLineError(try tool.run(["history", "list", "--limit", "-1"]), mentioning: ["--limit", "≥ 1"])
        expectOneLineError(try tool.run(["history", "list", "--after", "-1"]), mentioning: ["--after", "≥ 0"])
        #expect(try tool.run(["search", "xapian", "--limit", "0"]).status == 0)
        #expect(try tool.run(["history", "list", "--limit", "1", "--after", "0"]).status == 0)
    }

    @Test("an integer beyond 64 bits is refused with its line, not wrapped or rounded")
    func hugeIntegers() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        for (number, literal) in ["18446744073709551615", "-9223372036854775809", "123456789012345678901234567890"].enumerated() {
            try tool.write("""
                {"name": "fine", "size": 9223372036854775807}
                {"name": "big-\(number)", "size": \(literal)}

                """, to: "big.jsonl")
            let output = try tool.run(["import", "big.jsonl", "--entity", "Package", "--batch", "1"])
            expectOneLineError(output, mentioning: ["line 2", literal, "as a string"])
        }
        let stored = try tool.sqlite("SELECT name, size FROM Package ORDER BY name;")
        #expect(stored.stdout == "fine|9223372036854775807\n", "the first line is committed exactly, nothing else")
        // Inside strings, long digit runs are text and stay exact.
        try tool.write(#"{"name": "18446744073709551615", "summary": "n 18446744073709551615"}"# + "\n", to: "text.jsonl")
        #expect(try tool.run(["import", "text.jsonl", "--entity", "Package"]).status == 0)
    }

    @Test("empty and reserved authors are refused for writes")
    func authors() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        expectOneLineError(try tool.run(["import", "packages.jsonl", "--entity", "Package", "--author", ""]),
                           mentioning: ["author is empty"])
        for reserved in ["spotlite.indexer", "spotlite.migration", "spotlite.anything"] {
            expectOneLineError(try tool.run(["import", "packages.jsonl", "--entity", "Package", "--author", reserved]),
                               mentioning: [reserved, "reserved"])
        }
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index/store.sqlite")), "nothing created")
    }

    @Test("importing a directory says so")
    func importDirectory() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try FileManager.default.createDirectory(atPath: tool.path("data"), withIntermediateDirectories: true)
        expectOneLineError(try tool.run(["import", "data", "--entity", "Package"]), mentioning: ["data is a directory"])
    }

    @Test("a NUL in the query is refused")
    func nulQuery() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        try tool.write("xapian\nsql\u{0}gimp\n", to: "queries.txt")
        expectOneLineError(try tool.run(["search", "--queries", "queries.txt", "--json"]), mentioning: ["line 2", "NUL"])
    }
}

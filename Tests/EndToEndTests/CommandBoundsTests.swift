import Foundation
import SpotliteTestSupport
import Testing

/// Values out of range, numbers too big to store, reserved or empty authors and inputs that are not files: each a
/// one-line `spotlite:` error with a non-zero status, and nothing committed that should not be.
@Suite("Bounds of the spotlite binary's input", .serialized, .blockingWork)
struct CommandBoundsTests {
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
        // Also when the lines before it found nothing: the error is printed, not swallowed by the no-results exit.
        try tool.write("zzznothing\nsql\u{0}gimp\n", to: "queries.txt")
        expectOneLineError(try tool.run(["search", "--queries", "queries.txt", "--json"]), mentioning: ["line 2", "NUL"])
    }

    @Test("symbolic links in the index directory are refused, never written through")
    func symlinksInIndexDirectory() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        try tool.write("precious\n", to: "victim.txt")
        let lock = tool.path("Index/search/writer.lock")
        try FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: tool.path("victim.txt"))
        expectOneLineError(try tool.run(["index", "update"]), mentioning: ["writer.lock", "symbolic link"])
        #expect(try String(contentsOfFile: tool.path("victim.txt"), encoding: .utf8) == "precious\n")
        // A link where the temporary stub goes is removed, not followed.
        try FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createSymbolicLink(atPath: tool.path("Index/search/XAPIANDB.tmp"),
                                                   withDestinationPath: tool.path("victim.txt"))
        #expect(try tool.run(["index", "rebuild"]).status == 0)
        #expect(try String(contentsOfFile: tool.path("victim.txt"), encoding: .utf8) == "precious\n")
        #expect(try tool.run(["search", "xapian"]).status == 0)
    }

    @Test("a NUL in a configured path is refused, not cut short")
    func nulInConfiguredPath() throws {
        let configuration = CommandLineTool.packageConfiguration
            .replacingOccurrences(of: #"store.sqlite""#, with: #"store.sqlite\u0000.bak""#)
        try #require(configuration.contains(#"\u0000"#), "the test configuration names a store")
        let tool = try CommandLineTool(configuration: configuration)
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        expectOneLineError(try tool.run(["import", "packages.jsonl", "--entity", "Package"]), mentioning: ["spotlite.toml", "NUL"])
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index/store.sqlite")), "nothing created")
    }

    @Test("search, index status and history list work on a store file that is read-only for the user")
    func readOnlyStoreFile() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        try? FileManager.default.removeItem(atPath: tool.path("Index/store.sqlite-wal"))
        try? FileManager.default.removeItem(atPath: tool.path("Index/store.sqlite-shm"))
        // Root ignores file modes: the commands run as `nobody`, who owns the folders but may only read the store.
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = ["-R", "nobody:nogroup", tool.directory.path]
        try chown.run()
        chown.waitUntilExit()
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: tool.path("Index/store.sqlite"))
        let asNobody = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] : []
        for command in [["search", "xapian", "--json"], ["index", "status", "--json"], ["history", "list", "--json"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: asNobody.first ?? CommandLineTool.binary)
            process.arguments = Array(asNobody.dropFirst()) + (asNobody.isEmpty ? [] : [CommandLineTool.binary]) + command
            process.currentDirectoryURL = tool.directory
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(command): \(stderr)")
            #expect((try? JSONSerialization.jsonObject(with: stdout)) != nil, "\(command) printed JSON")
        }
    }
}

import Foundation
import SpotliteTestSupport
import Testing

/// Text the sqlite3 shell writes that Swift strings do not hold as they are: a NUL inside TEXT, a BLOB of invalid
/// UTF-8 in a text column. Indexed as what is there, never cut or dropped in silence.
@Suite("Commands: foreign text", .blockingWork)
struct CommandForeignTextTests {
    private func keys(_ tool: CommandLineTool, _ query: String) throws -> [String] {
        let found = try #require(try tool.run(["search", query, "--json"]).json() as? [String: Any])
        return ((found["hits"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }.sorted()
    }

    @Test("words after a NUL and a BLOB of invalid UTF-8 are indexed, by updates and rebuilds alike")
    func nulAndInvalidUTF8FromTheShellAreIndexed() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let shell = try tool.sqlite("""
            INSERT INTO Package (name, summary, section) VALUES ('nul-summary', 'nul ' || char(0) || ' afterword inside', 'odd');
            INSERT INTO Package (name, summary, section) VALUES ('blob-summary', CAST(X'626c6f6276616c7565ff2066696e65' AS BLOB), 'odd');
            """)
        #expect(shell.status == 0, "\(shell.stderr)")
        let update = try tool.run(["index", "update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(try keys(tool, "afterword") == ["nul-summary"], "the words after the NUL are found")
        #expect(try keys(tool, "fine") == ["blob-summary"], "the BLOB's text is indexed, its invalid byte replaced")
        #expect(try keys(tool, "section:odd") == ["blob-summary", "nul-summary"])
        let rebuilt = try tool.run(["index", "rebuild"])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(try keys(tool, "afterword") == ["nul-summary"])
        #expect(try keys(tool, "fine") == ["blob-summary"])
        // The stored summary shows the text with the NUL as a space.
        let shown = try #require(try tool.run(["search", "afterword", "--json"]).json() as? [String: Any])
        let fields = ((shown["hits"] as? [[String: Any]])?.first?["fields"] as? [String: Any]) ?? [:]
        #expect((fields["summary"] as? String)?.contains("afterword inside") == true, "\(fields)")
    }
}

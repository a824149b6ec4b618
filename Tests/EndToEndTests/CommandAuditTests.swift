import Foundation
import SpotliteTestSupport
import Testing

/// Error messages and edge cases of the command line found by an audit; each test ran red before its fix.
@Suite("Command-line audit: messages and edge cases", .serialized, .blockingWork)
struct CommandAuditTests {
    /// A store with the test packages imported and indexed.
    private func indexedTool(configuration: String = CommandLineTool.packageConfiguration) throws -> CommandLineTool {
        let tool = try CommandLineTool(configuration: configuration)
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        return tool
    }

    /// `--filter section` used to answer `unknown field "section"`, about a field that exists.
    @Test func aFilterWithoutAValueSaysSo() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        for (filter, problem) in [("section", "\"section\" has no value"), (":utils", "\":utils\" has no field"),
                                  ("section:", "\"section:\" has no value after the colon")] {
            let output = try tool.run(["search", "--filter", filter])
            expectOneLineError(output, mentioning: [problem, "FIELD:VALUE", "section:utils"])
            #expect(!output.stderr.contains("unknown field"), "\(output.stderr)")
            #expect(output.status == 3)
        }
    }

    /// `search --bogus` used to answer "give a query": the check that a query was given ran before the argument
    /// parser reported the unknown option.
    @Test func anUnknownOptionOfSearchIsReportedAsSuch() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        for arguments in [["search", "--bogus"], ["search", "--limit", "5", "--bogus"]] {
            let output = try tool.run(arguments)
            expectOneLineError(output, mentioning: ["Unknown option '--bogus'", "see `spotlite help search`"])
            #expect(!output.stderr.contains("give a query"), "\(output.stderr)")
            #expect(output.status == 2)
        }
        let nothing = try tool.run(["search", "--limit", "5"])
        expectOneLineError(nothing, mentioning: ["give a query", "see `spotlite help search`"])
        #expect(nothing.status == 2)
    }
}

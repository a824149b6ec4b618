import Foundation
import SpotliteTestSupport
import Testing

/// Error messages and edge cases of the command line found by an audit; each test ran red before its fix.
@Suite("Command-line audit: messages and edge cases", .serialized, .blockingWork)
struct CommandAuditTests {
    /// A store with the test packages imported and indexed.
    private func indexedTool(configuration: String = CommandLineTool.packageConfiguration,
                             packages: String = CommandLineTool.packages) throws -> CommandLineTool {
        let tool = try CommandLineTool(configuration: configuration)
        try tool.write(packages, to: "packages.jsonl")
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

extension CommandAuditTests {
    /// `size:10..20` on an index without such a number field used to search the words (suggesting `side:10..2.0`),
    /// or fail with Xapian's "Unknown range operation"; it names the field and the fields ranges take.
    @Test func aRangeOnAFieldThatTakesNoneNamesTheFieldsThatDo() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        let unknown = try tool.run(["search", "weight:10..20"])
        expectOneLineError(unknown, mentioning: ["no number or date field weight", "weight:10..20", "ranges take the number and date fields: size"])
        #expect(!unknown.stderr.contains("Unknown range operation") && unknown.status == 3, "\(unknown.stderr)")
        let text = try tool.run(["search", "name:1..2"])
        expectOneLineError(text, mentioning: ["name: is the prefix of a text field", "ranges take the number and date fields: size"])
        let keyword = try tool.run(["search", "section:1..2"])
        #expect(keyword.status == 1 && keyword.stderr.isEmpty, "a keyword's value may hold '..': \(keyword.stderr)")

        let withoutNumbers = CommandLineTool.packageConfiguration.replacingOccurrences(
            of: "size        = { type = \"number\", sortable = true }\n", with: "")
        let sizeless = CommandLineTool.packages.replacingOccurrences(of: #", "size": [0-9]+"#, with: "", options: .regularExpression)
        let plain = try indexedTool(configuration: withoutNumbers, packages: sizeless)
        defer { plain.remove() }
        let output = try plain.run(["search", "size:10..20"])
        expectOneLineError(output, mentioning: ["no number or date field size", "this configuration has no number or date fields"])
        #expect(output.stdout.isEmpty && !output.stderr.contains("Did you mean"), "\(output.stdout)")
    }

    /// `size:5..x` used to fail with Xapian's "Unknown range operation", naming neither the field nor the bound.
    @Test func aRangeWithABoundThatIsNoNumberNamesTheBound() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        for (query, bound) in [("size:5..x", "'x'"), ("utils size:abc..20", "'abc'")] {
            let output = try tool.run(["search", query])
            expectOneLineError(output, mentioning: [bound, "is not a number", "size is a number field", "e.g. size:10..20"])
            #expect(!output.stderr.contains("Unknown range operation") && output.status == 3, "\(output.stderr)")
        }
        let bare = try tool.run(["search", "10..20"])
        expectOneLineError(bare, mentioning: ["names no field", "FIELD:LOW..HIGH", "e.g. size:10..20"])
        let fine = try tool.run(["search", "size:100..", "--json"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}

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
            expectOneLineError(output, mentioning: ["Unknown option '--bogus'", "See `spotlite help search`."])
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

extension CommandAuditTests {
    /// The same file imported twice used to report every line as "updated"; nothing changed, and nothing was written.
    @Test func anImportOfUnchangedRecordsCountsThemAsUnchanged() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        let json = try tool.run(["import", "packages.jsonl", "--entity", "Package", "--json"])
        let summary = try #require(try json.json() as? [String: Any])
        #expect(summary["updated"] as? Int == 0 && summary["unchanged"] as? Int == 5, "\(json.stdout)")
        #expect(summary["token"] is NSNull && summary["transactions"] as? Int == 0, "\(json.stdout)")
        let human = try tool.run(["import", "packages.jsonl", "--entity", "Package"])
        #expect(human.stdout.contains("0 inserted, 0 updated, 5 unchanged, 0 deleted"), "\(human.stdout)")
    }
}

extension CommandAuditTests {
    /// Before the first build, `index status --json` used to give token 0 and 0 documents with nothing saying that
    /// there is no index.
    @Test func theStatusBeforeTheFirstBuildSaysThereIsNoIndex() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        let before = try #require(try tool.run(["index", "status", "--json"]).json() as? [String: Any])
        #expect(before["exists"] as? Bool == false && before["token"] as? Int == 0, "\(before)")
        #expect(before["rebuild_reason"] as? String == "there is no index yet", "\(before)")
        let human = try tool.run(["index", "status"])
        #expect(human.stdout.contains("not built yet") && human.stdout.contains("0 (no index yet)"), "\(human.stdout)")
        #expect(human.stdout.contains("Next update     rebuilds: there is no index yet"), "\(human.stdout)")
        #expect(try tool.run(["index", "update"]).status == 0)
        let after = try #require(try tool.run(["index", "status", "--json"]).json() as? [String: Any])
        #expect(after["exists"] as? Bool == true && after["rebuild_reason"] is NSNull, "\(after)")
        let built = try tool.run(["index", "status"]).stdout
        #expect(!built.contains("no index yet") && built.contains("Next update     nothing to apply"), "\(built)")
    }
}

extension CommandAuditTests {
    /// The first line of a printed hit used to show a field named `summary` only: with notes, whose text fields are
    /// a title and a body, it showed the key alone. It shows the entity's first stored text field other than the key.
    @Test func aHitsFirstLineShowsItsEntitysFirstStoredTextField() throws {
        let notes = """
            store = "../Index/store.sqlite"
            index = "../Index/search"

            [entities.Note]
            key = "id"

            [entities.Note.fields]
            body   = { type = "text" }
            folder = { type = "keyword", store = true }
            title  = { type = "text", prefix = "title", store = true }

            """
        let tool = try CommandLineTool(configuration: notes)
        defer { tool.remove() }
        try tool.write(#"{"id": "n1", "title": "Shopping list", "body": "milk and bread", "folder": "home"}"# + "\n",
                       to: "notes.jsonl")
        #expect(try tool.run(["import", "notes.jsonl", "--entity", "Note"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let output = try tool.run(["search", "bread", "--color", "never"])
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("1. n1  Note · ") == true && lines.first?.hasSuffix("  Shopping list") == true, "\(output.stdout)")
        #expect(lines.count > 1 && lines[1].contains("folder: home") && !lines[1].contains("title:"), "\(output.stdout)")

        // The packages keep their summary there (their key, name, is their first stored text field).
        let packages = try indexedTool()
        defer { packages.remove() }
        let gimp = try packages.run(["search", "gimp", "--color", "never"])
        #expect(gimp.stdout.hasPrefix("1. gimp  Package · ") && gimp.stdout.contains("  GNU Image Manipulation Program\n"), "\(gimp.stdout)")
    }
}

extension CommandAuditTests {
    /// `search` used to open the store for writing, running a write transaction at start (WAL header written and
    /// synced): behind another program's open write transaction it waited for the lock, then failed. It reads the
    /// store read-only now.
    @Test func searchReadsTheStoreWhileAnotherProgramHoldsItsWriteLock() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [tool.path("Index/store.sqlite")]
        let input = Pipe(), output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        try shell.run()
        defer {
            try? input.fileHandleForWriting.close()
            shell.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'holding';\n".utf8))
        var said = ""
        while !said.contains("holding") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            said += String(decoding: data, as: UTF8.self)
        }
        #expect(said.contains("holding"), "the shell holds the write lock")
        let search = try tool.run(["search", "database", "--json"])
        #expect(search.status == 0, "\(search.stderr)")
        let answer = try #require(try search.json() as? [String: Any])
        #expect((answer["hits"] as? [[String: Any]])?.first?["snippet"] as? String != "", "snippets come from the store's rows")
    }
}

extension CommandAuditTests {
    /// The commands, with the arguments each requires.
    private static let commands: [(path: [String], required: [String])] = [
        (["init"], []), (["import"], ["packages.jsonl", "--entity", "Package"]), (["index", "update"], []),
        (["index", "rebuild"], []), (["index", "watch"], []), (["index", "status"], []), (["index", "delete"], []),
        (["index", "replicate", "serve"], ["--port", "1"]),
        (["index", "replicate", "follow"], ["127.0.0.1:1", "--into", "replica"]),
        (["search"], ["xapian"]), (["history", "list"], []), (["history", "clean"], []), (["history", "stats"], []),
        (["history", "mark"], ["app"]), (["migrate", "status"], []), (["migrate", "run"], []), (["demo"], []),
        (["manual"], []),
    ]

    /// `import --bogus` used to answer "Missing expected argument '<file>'" (and `history mark --bogus` the same of
    /// '<author>'): the argument parser decodes and validates a command before it looks for unknown options.
    @Test func everyCommandReportsAnUnknownOptionBeforeAnythingElse() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        for (path, required) in Self.commands {
            let help = "`spotlite help \(path.joined(separator: " "))`"
            for arguments in [path + ["--bogus"], path + required + ["--bogus"], path + ["--bogus=1"] + required,
                              path + ["-Z"]] {
                let output = try tool.run(arguments)
                let option = arguments.contains("-Z") ? "'-Z'" : "'--bogus'"
                expectOneLineError(output, mentioning: ["Unknown option \(option)", help])
                #expect(output.status == 2, "\(arguments): \(output.stderr)")
            }
        }
        // The option's suggestion too, and an option's value or what follows `--` is no option.
        let typo = try tool.run(["import", "--entiy", "Package"])
        expectOneLineError(typo, mentioning: ["Unknown option '--entiy'. Did you mean '--entity'? See `spotlite help import`."])
        let afterTerminator = try tool.run(["import", "--entity", "Package", "--", "--bogus"])
        expectOneLineError(afterTerminator, mentioning: ["cannot read --bogus"])
        #expect(!afterTerminator.stderr.contains("Unknown option") && afterTerminator.status == 3, "\(afterTerminator.stderr)")
        let missing = try tool.run(["import", "--entity", "Package"])
        expectOneLineError(missing, mentioning: ["Missing expected argument '<file>'; see `spotlite help import`"])
        let value = try tool.run(["history", "list", "--limit", "0", "--bogus"])
        expectOneLineError(value, mentioning: ["Unknown option '--bogus'"])
    }

    /// A number or date the index cannot read (`"size": "big"`, a day that does not exist) left the record without
    /// that value in silence: outside every range, sorted as empty. The update says so, naming the records.
    @Test func valuesTheIndexCannotReadAreNamedByTheUpdate() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let odd = #"{"name": "odd", "version": "1", "summary": "An odd package", "section": "utils", "size": "big"}"#
        try tool.write(CommandLineTool.packages + odd + "\n", to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        let update = try tool.run(["index", "update"])
        #expect(update.status == 0, "\(update.stderr)")
        let warnings = update.stderr.split(separator: "\n").filter { $0.hasPrefix("spotlite: warning:") }
        #expect(warnings.count == 1 && warnings.first?.contains("1 value of number or date fields could not be read") == true
                && warnings.first?.contains(#"Package odd: size "big" is not a number"#) == true, "\(update.stderr)")
        let ranged = try #require(try tool.run(["search", "size:0..", "--json"]).json() as? [String: Any])
        #expect(ranged["total"] as? Int == 5, "the odd record has no size: \(ranged)")

        try tool.write(#"{"name": "odd", "size": 12}"# + "\n", to: "fix.jsonl")
        #expect(try tool.run(["import", "fix.jsonl", "--entity", "Package"]).status == 0)
        let fixed = try tool.run(["index", "update", "--json"])
        #expect(fixed.stderr.isEmpty, "\(fixed.stderr)")
        #expect((try fixed.json() as? [String: Any])?["unreadable_values"] as? Int == 0)
        let rebuilt = try #require(try tool.run(["index", "rebuild", "--json"]).json() as? [String: Any])
        #expect(rebuilt["unreadable_values"] as? Int == 0 && rebuilt["indexed"] as? Int == 6, "\(rebuilt)")
    }

    /// An array in an import line is stored as JSON text; a keyword field indexed that text as one value, so
    /// `"tags": ["use::editing", "role::program"]` made neither `tags:use::editing` nor `tags:role::program` find it.
    @Test func anArrayForAKeywordFieldIsOneValuePerElement() throws {
        let line = #"{"name": "arrays", "version": "1", "summary": "A package with arrays", "section": ["editors", "utils"], "tags": ["use::editing", "role::program"]}"#
        let tool = try indexedTool(packages: CommandLineTool.packages + line + "\n")
        defer { tool.remove() }
        for query in ["tags:use::editing", "tags:role::program", "section:editors", "section:utils"] {
            let output = try tool.run(["search", query, "--json"])
            let hits = (try output.json() as? [String: Any])?["hits"] as? [[String: Any]] ?? []
            #expect(hits.contains { $0["key"] as? String == "arrays" }, "\(query): \(output.stdout)\(output.stderr)")
        }
        let facets = try tool.run(["search", "arrays", "--facet", "section", "--json"])
        let counts = (try facets.json() as? [String: Any])?["facets"] as? [String: [String: Int]]
        #expect(counts?["section"] == ["editors": 1, "utils": 1], "\(facets.stdout)")
    }

    /// `spotlite search -vim` used to answer "give a query": the parser took `-vim` for a group of short options and
    /// passed over it. Xapian then read the query `-vim` as `vim`; it means every record without vim.
    @Test func aQueryThatOnlyExcludesIsTakenAfterTheTerminator() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        let bare = try tool.run(["search", "-database"])
        expectOneLineError(bare, mentioning: ["Unknown option '-database'. An argument starting with - goes after --, as in `spotlite search -- -database`. See `spotlite help search`."])
        #expect(bare.status == 2)
        let excluded = try tool.run(["search", "--json", "--", "-database", "-section:graphics"])
        #expect(excluded.status == 0, "\(excluded.stderr)")
        let hits = try #require((try excluded.json() as? [String: Any])?["hits"] as? [[String: Any]])
        #expect(hits.compactMap { $0["key"] as? String } == ["ripgrep"], "xapian-tools describes databases: \(excluded.stdout)")
    }

    /// `"size:1..2"` used to fail with Xapian's bare "Unknown range operation": a range inside double quotes.
    @Test func aRangeInsideQuotesSaysToWriteItOutside() throws {
        let tool = try indexedTool()
        defer { tool.remove() }
        for (query, range, outside) in [("\"size:1..2\"", "size:1..2", "outside the quotes, as size:1..2"),
                                         ("\"xapian tools\" \"size:1..200\"", "size:1..200", "as size:1..200"),
                                         ("\"1..2", "1..2", "with its field, e.g. size:10..20"),
                                         // Beside other words Xapian raised nothing and silently found nothing.
                                         ("\"xapian size:1..200\"", "size:1..200", "as size:1..200"),
                                         ("tools \"xapian size:..200 tools\"", "size:..200", "as size:..200")] {
            let output = try tool.run(["search", query])
            expectOneLineError(output, mentioning: ["the range \(range) is inside double quotes", outside])
            #expect(!output.stderr.contains("Unknown range operation") && output.status == 3, "\(output.stderr)")
        }
    }
}

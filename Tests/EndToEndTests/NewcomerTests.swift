import Foundation
import SpotliteTestSupport
import Testing

/// A newcomer's first hour (issue 17): the installed command alone, a JSON Lines file, and no editing.
@Suite("A newcomer's first hour", .serialized, .blockingWork)
struct NewcomerTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A scratch folder without any configuration, as a user's own folder is.
    static func emptyFolder() throws -> CommandLineTool {
        let tool = try CommandLineTool()
        try FileManager.default.removeItem(at: tool.directory.appendingPathComponent("config"))
        return tool
    }

    /// Runs `executable arguments…` in `directory` with `environment` added, to completion.
    static func run(_ executable: String, _ arguments: [String], in directory: URL,
                    environment: [String: String] = [:], removing removed: [String] = [],
                    stdin: Data? = nil) throws -> CommandLineTool.Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .filter { !removed.contains($0.key) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandLineTool.Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func installedBinaryGoesFromAJSONLinesFileToASearchWithoutEditing() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        // The install step of `make install`, with the binary these tests run (building release here would take
        // minutes): the same copies, man page and completions.
        let install = try Self.run("/usr/bin/make", ["install", "PREFIX=\(prefix.path)", "BINARY=\(CommandLineTool.binary)"],
                                   in: Self.packageRoot)
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        let spotlite = prefix.appendingPathComponent("bin/spotlite").path
        for file in ["share/man/man1/spotlite.1", "share/bash-completion/completions/spotlite",
                     "share/zsh/site-functions/_spotlite", "share/fish/vendor_completions.d/spotlite.fish"] {
            let text = (try? String(contentsOf: prefix.appendingPathComponent(file), encoding: .utf8)) ?? ""
            #expect(text.contains("spotlite"), "\(file) was installed")
        }
        let unit = try String(contentsOf: prefix.appendingPathComponent("lib/systemd/system/spotlite.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix.path)/bin/spotlite serve --config /etc/spotlite/spotlite.toml"))
        for option in ["DynamicUser=yes", "ProtectSystem=strict", "ReadOnlyPaths=/etc/spotlite", "ReadWritePaths=/var/lib/spotlite",
                       "NoNewPrivileges=yes", "KillSignal=SIGTERM"] {
            #expect(unit.contains("\n" + option + "\n"), "the unit sets \(option)")
        }
        #expect(!unit.contains("@BINDIR@"))
        let manual = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/spotlite.1"), encoding: .utf8)
        #expect(manual.hasPrefix(".TH SPOTLITE 1"))
        for command in ["spotlite init", "spotlite import", "spotlite index update", "spotlite search", "spotlite history list",
                        "EXIT STATUS", "EXAMPLES"] {
            #expect(manual.contains(command.replacingOccurrences(of: "-", with: "\\-")), "the man page covers \(command)")
        }

        let folder = try Self.emptyFolder()
        defer { folder.remove() }
        try folder.write(CommandLineTool.packages, to: "packages.jsonl")
        let initialized = try Self.run(spotlite, ["init", "--from", "packages.jsonl", "--entity", "Package"], in: folder.directory)
        #expect(initialized.status == 0, "\(initialized.stderr)")
        let next = initialized.stdout.split(separator: "\n").filter { $0.hasPrefix("  spotlite ") }
            .map { $0.dropFirst(2).split(separator: " ").map(String.init) }
        #expect(next.count == 3, "three next commands: \(initialized.stdout)")
        #expect(next.first == ["spotlite", "import", "packages.jsonl", "--entity", "Package"])
        // Run exactly what init printed.
        for command in next {
            let output = try Self.run(spotlite, Array(command.dropFirst()), in: folder.directory)
            #expect(output.status == 0, "\(command.joined(separator: " ")): \(output.stdout)\(output.stderr)")
            if command[1] == "import" { #expect(output.stdout.contains("Created store at")) }
            if command[1] == "search" { #expect(output.stdout.contains("1. "), "the suggested search finds something: \(output.stdout)") }
        }
        let found = try Self.run(spotlite, ["search", "xapian", "--json"], in: folder.directory)
        let hits = (try found.json() as? [String: Any])?["hits"] as? [[String: Any]]
        #expect(hits?.first?["key"] as? String == "xapian-tools")
    }

    @Test func initGuessesTypesAndKey() throws {
        let tool = try Self.emptyFolder()
        defer { tool.remove() }
        let lines = (1...40).map { number in
            #"{"uuid": "u-\#(number)", "title": "Note number \#(number) about things", "kind": "\#(["memo", "task"][number % 2])", "stars": \#(number % 5), "created": "2024-03-\#(String(format: "%02d", number % 28 + 1))", "link": "https://example.org/\#(number)", "body": "A longer body of text for note \#(number), with several words in it to read as prose."}"#
        }
        try tool.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        let output = try tool.run(["init", "--from", "notes.jsonl"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("entity Note with key uuid"), "the first unique field is the key; Note from notes.jsonl: \(output.stdout)")
        let toml = try String(contentsOfFile: tool.path("config/spotlite.toml"), encoding: .utf8)
        #expect(toml.contains(#"store = "../Index/store.sqlite""#), "relative to config/")
        func line(_ field: String) -> String { toml.split(separator: "\n").first { $0.hasPrefix(field + " ") }.map(String.init) ?? "" }
        #expect(line("title").contains(#"type = "text""#) && line("title").contains("weight = 2"))
        #expect(line("kind").contains(#"type = "keyword""#) && line("kind").contains("facet = true"))
        #expect(line("stars").contains(#"type = "number""#) && line("stars").contains("sortable = true"))
        #expect(line("created").contains(#"type = "date""#))
        #expect(line("link").contains(#"type = "stored""#))
        #expect(line("body").contains(#"type = "text""#))
        // It works without an edit: import, index, search, sort and facet on the guessed fields.
        #expect(try tool.run(["import", "notes.jsonl", "--entity", "Note"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let search = try #require(try tool.run(["search", "note", "--sort=-stars", "--facet", "kind", "--json"]).json() as? [String: Any])
        #expect(search["total"] as? Int == 40)
        #expect(((search["facets"] as? [String: Any])?["kind"] as? [String: Int])?["memo"] == 20)

        // An existing configuration is kept; --force replaces it; --key must name a unique field.
        let again = try tool.run(["init", "--from", "notes.jsonl"])
        #expect(again.status == 3 && again.stderr.contains("--force"), "\(again.stderr)")
        let badKey = try tool.run(["init", "--from", "notes.jsonl", "--key", "kind", "--force"])
        #expect(badKey.status == 3 && badKey.stderr.contains("--key kind"), "\(badKey.stderr)")
        let idFirst = #"{"name": "a", "id": 7}"# + "\n" + #"{"name": "b", "id": 8}"# + "\n"
        try tool.write(idFirst, to: "items.jsonl")
        let withID = try tool.run(["init", "--from", "items.jsonl", "--config", "items.toml"])
        #expect(withID.stdout.contains("key id"), "id is the key when present: \(withID.stdout)")
        #expect(withID.stdout.contains("--config items.toml"), "the next commands carry --config")
    }

    /// Integer ids made `init` leave the key out of the fields, so the store took it for text and `import` refused
    /// every line ("the key "id" must be a string"); arrays of tags became `stored`, not searchable.
    @Test func initTakesIntegerKeysAndArraysOfValuesAndTheImportWorks() throws {
        let tool = try Self.emptyFolder()
        defer { tool.remove() }
        let colours = ["red", "green", "blue"]
        let lines = (1...40).map { number in
            #"{"id": \#(number), "title": "Item \#(number)", "tags": ["\#(colours[number % 3])", "size-\#(number % 2)"], "meta": {"a": \#(number)}}"#
        }
        try tool.write(lines.joined(separator: "\n") + "\n", to: "items.jsonl")
        #expect(try tool.run(["init", "--from", "items.jsonl"]).status == 0)
        let toml = try String(contentsOfFile: tool.path("config/spotlite.toml"), encoding: .utf8)
        func line(_ field: String) -> String { toml.split(separator: "\n").first { $0.hasPrefix(field + " ") }.map(String.init) ?? "" }
        #expect(line("id").contains(#"type = "number""#), "\(toml)")
        #expect(line("tags").contains(#"type = "keyword""#) && line("tags").contains("facet = true"), "\(toml)")
        #expect(line("meta").contains(#"type = "stored""#), "\(toml)")
        let imported = try tool.run(["import", "items.jsonl", "--entity", "Item"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try tool.run(["index", "update"]).status == 0)
        let search = try #require(try tool.run(["search", "--filter", "tags:red", "--facet", "tags", "--json"]).json() as? [String: Any])
        #expect(search["total"] as? Int == 13)
        #expect((search["facets"] as? [String: [String: Int]])?["tags"] == ["red": 13, "size-0": 6, "size-1": 7], "\(search)")
    }

    @Test func pathsFollowTheConfigurationFileNotTheWorkingDirectory() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-elsewhere-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let search = try Self.run(CommandLineTool.binary, ["search", "xapian", "--config", tool.path("config/spotlite.toml")], in: elsewhere)
        #expect(search.status == 0, "\(search.stderr)")
        #expect(search.stdout.contains("xapian-tools"))
        let imported = try Self.run(CommandLineTool.binary, ["import", tool.path("packages.jsonl"), "--entity", "Package",
                                                             "--config", tool.path("config/spotlite.toml")], in: elsewhere)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!imported.stdout.contains("Created store"), "the existing store was used")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("Index").path), "nothing created in the working directory")
    }

    @Test func aFailedFirstImportLeavesNoStoreAndCompressedInputIsRead() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write("not json\n", to: "bad.jsonl")
        let bad = try tool.run(["import", "bad.jsonl", "--entity", "Package"])
        #expect(bad.status == 3 && bad.stderr.contains("line 1"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index")), "no store and no folder left behind")
        let missing = try tool.run(["import", "nope.jsonl", "--entity", "Package"])
        #expect(missing.status == 3 && missing.stderr.contains("nope.jsonl"))
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index")))

        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        for (program, suffix) in [("/usr/bin/xz", "xz"), ("/bin/gzip", "gz")] where FileManager.default.isExecutableFile(atPath: program) {
            let compress = try Self.run(program, ["-k", "-f", "packages.jsonl"], in: tool.directory)
            #expect(compress.status == 0)
            let output = try tool.run(["import", "packages.jsonl.\(suffix)", "--entity", "Package", "--json"])
            #expect(output.status == 0, "\(suffix): \(output.stderr)")
            let summary = try output.json() as? [String: Any]
            // The first compressed import inserts the five records; the next finds them there.
            #expect((summary?["inserted"] as? Int ?? 0) == (suffix == "xz" ? 5 : 0), "\(suffix): \(output.stdout)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/xz") {
            // A truncated xz file: the decompressor's error, not a confusing JSON one.
            let whole = try Data(contentsOf: URL(fileURLWithPath: tool.path("packages.jsonl.xz")))
            try tool.write(whole.prefix(whole.count / 2), to: "cut.jsonl.xz")
            let cut = try tool.run(["import", "cut.jsonl.xz", "--entity", "Package"])
            #expect(cut.status == 3, "\(cut.stderr)")
            #expect(cut.stderr.contains("decompressed") || cut.stderr.contains("line"), "\(cut.stderr)")
        }
        let piped = try tool.run(["import", "-", "--entity", "Package", "--json"],
                                 stdin: Data(#"{"name": "zstd", "summary": "fast compression"}"#.utf8 + [0x0A]))
        #expect((try piped.json() as? [String: Any])?["inserted"] as? Int == 1, "\(piped.stderr)")
    }

    @Test func typosGetSuggestionsAndExitStatusesAreDocumented() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        for (arguments, suggestion) in [(["serch", "xapian"], "spotlite search"), (["help", "serch"], "spotlite help search"),
                                        (["index", "updat"], "spotlite index update"), (["histroy", "list"], "spotlite history")] {
            let output = try tool.run(arguments)
            #expect(output.status == 2, "\(arguments): usage errors exit 2")
            #expect(output.stderr.contains("did you mean `\(suggestion)"), "\(arguments): \(output.stderr)")
            #expect(output.stderr.split(separator: "\n").count == 1)
        }
        #expect(try tool.run(["search", "--bogus"]).status == 2)
        let help = try tool.run(["help"])
        #expect(help.status == 0 && help.stdout.contains("EXIT STATUS") && help.stdout.contains("EXAMPLES"))
        for command in [["import"], ["index", "update"], ["search"], ["history", "list"], ["history", "clean"], ["init"]] {
            #expect(try tool.run(["help"] + command).stdout.contains("EXAMPLES"), "\(command) has examples")
        }

        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        #expect(try tool.run(["search", "xapian"]).status == 0)
        let nothing = try tool.run(["search", "zzyzzx", "--json"])
        #expect(nothing.status == 1, "nothing found exits 1, like grep")
        #expect((try nothing.json() as? [String: Any])?["total"] as? Int == 0, "and still prints its answer")
        #expect(nothing.stderr.isEmpty)
        #expect(try tool.run(["search", "x", "--entity", "Nope"]).status == 3)
    }

    @Test func wordsCountsAndMarksTellTheTruth() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let long = String(repeating: "long version text ", count: 10)
        try tool.write(#"{"name": "solo", "summary": "a single package", "section": "utils", "version": "\#(long)"}"# + "\n", to: "one.jsonl")
        let imported = try tool.run(["import", "one.jsonl", "--entity", "Package"])
        #expect(imported.stdout.contains("Created store at"))
        #expect(imported.stdout.contains("Imported 1 line into"), "\(imported.stdout)")
        #expect(imported.stdout.contains("1 history transaction by"), "\(imported.stdout)")
        let update = try tool.run(["index", "update", "--progress"])
        #expect(update.stdout.contains("1 document indexed"), "\(update.stdout)")
        let reasons = (update.stdout + update.stderr).components(separatedBy: "there is no index yet").count - 1
        #expect(reasons == 1, "the rebuild's reason is said once: \(update.stdout)\(update.stderr)")
        let search = try tool.run(["search", "single"])
        #expect(search.stdout.contains("About 1 result "), "\(search.stdout)")
        #expect(search.stdout.contains("…"), "a cut field is marked: \(search.stdout)")
        let counted = try tool.run(["search", "single", "--limit", "0"])
        #expect(!counted.stdout.contains("No results"), "--limit 0 counts without claiming nothing was found: \(counted.stdout)")
        #expect(counted.stdout.contains("About 1 result"))
        #expect(try tool.run(["history", "list"]).stdout.contains("1 change\n"))

        let status = try tool.run(["index", "status"])
        let json = try #require(try tool.run(["index", "status", "--json"]).json() as? [String: Any])
        #expect(status.stdout.contains(json["fingerprint"] as? String ?? "?"), "human and JSON status show one fingerprint")
        #expect(try tool.run(["index", "delete"]).stdout.hasPrefix("Deleted"))
        let twice = try tool.run(["index", "delete"])
        #expect(twice.status == 0 && twice.stdout.contains("nothing to delete"), "\(twice.stdout)")
        let fresh = try tool.run(["index", "status"])
        #expect(!fresh.stdout.contains("Fingerprint  -"), "\(fresh.stdout)")

        // Facets: how many values to show, and a mark when some are left out.
        let many = (1...15).map { #"{"name": "p\#($0)", "summary": "common word", "section": "s\#($0)"}"# }.joined(separator: "\n") + "\n"
        try tool.write(many, to: "many.jsonl")
        #expect(try tool.run(["import", "many.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let facets = try tool.run(["search", "common", "--facet", "section", "--facet-values", "3"])
        #expect(facets.stdout.contains("12 more values"), "\(facets.stdout)")
        let all = try tool.run(["search", "common", "--facet", "section", "--facet-values", "0"])
        #expect(all.stdout.contains("s15 (1)") && !all.stdout.contains("more value"), "\(all.stdout)")
    }

    @Test func colorFollowsTheOptionAndNO_COLOR() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        #expect(try tool.run(["search", "xapian", "--color", "always"]).stdout.contains("\u{1B}["))
        #expect(!(try tool.run(["search", "xapian", "--color", "never"]).stdout.contains("\u{1B}[")))
        // On a terminal (through script(1)): colors unless NO_COLOR or --color never. (`swift test` itself may set
        // NO_COLOR: the first run goes without it.)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let command = "\(CommandLineTool.binary) search xapian"
        let environment = ["TERM": "xterm"]
        let colored = try Self.run("/usr/bin/script", ["-qec", command, "/dev/null"], in: tool.directory, environment: environment,
                                   removing: ["NO_COLOR"])
        #expect(colored.stdout.contains("\u{1B}[1m"), "bold on a terminal")
        let plain = try Self.run("/usr/bin/script", ["-qec", command, "/dev/null"], in: tool.directory,
                                 environment: environment.merging(["NO_COLOR": "1"]) { $1 })
        #expect(plain.stdout.contains("xapian-tools") && !plain.stdout.contains("\u{1B}[1m"), "NO_COLOR: \(plain.stdout)")
        let never = try Self.run("/usr/bin/script", ["-qec", command + " --color never", "/dev/null"], in: tool.directory,
                                 environment: environment, removing: ["NO_COLOR"])
        #expect(!never.stdout.contains("\u{1B}[1m"))
    }

    @Test func historyListsWhatIsKeptStreamsAndCleansWithAMarkedAuthor() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        // Five transactions of one line each, then the index reads them all.
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package", "--batch", "1"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        // The configuration waits for author app, which never ran: clean deletes nothing.
        let waiting = try tool.run(["history", "clean", "--dry-run"])
        #expect(waiting.stdout.contains("Would delete 0 transactions, would keep 5"), "\(waiting.stdout)")
        let mark = try tool.run(["history", "mark", "app", "--token", "3"])
        #expect(mark.status == 0 && mark.stdout.contains("through token 3"), "\(mark.stdout)\(mark.stderr)")
        let cleaned = try #require(try tool.run(["history", "clean", "--json"]).json() as? [String: Any])
        #expect(cleaned["deleted_transactions"] as? Int == 3, "\(cleaned)")

        let kept = try #require(try tool.run(["history", "list", "--after", "3", "--json"]).json() as? [[String: Any]])
        #expect(kept.map { $0["token"] as? Int } == [4, 5], "history kept after a clean is listed")
        let all = try tool.run(["history", "list", "--json"])
        let allObjects = try all.json() as? [[String: Any]]
        #expect(all.status == 0 && allObjects?.count == 2, "\(all.stderr)")
        let older = try tool.run(["history", "list", "--after", "1", "--json"])
        let olderObjects = try older.json() as? [[String: Any]]
        #expect(older.status == 0 && olderObjects?.count == 2)
        #expect(older.stderr.contains("deleted"), "says that older history was deleted: \(older.stderr)")
        let lines = try tool.run(["history", "list", "--jsonl"]).jsonLines()
        #expect(lines.count == 2)
        #expect(NSArray(array: lines).isEqual(to: (try all.json() as? [Any]) ?? []), "--json and --jsonl carry the same objects")
        let nope = try tool.run(["history", "list", "--entity", "Nope"])
        #expect(nope.status == 3 && nope.stderr.contains("unknown entity \"Nope\""), "\(nope.stderr)")
    }
}

extension NewcomerTests {
    @Test func aColumnEmptyInTheSampleIsTextAndNeverTheTitle() throws {
        let tool = try Self.emptyFolder()
        defer { tool.remove() }
        let lines = (1...10).map { #"{"id": \#($0), "description": "", "summary": "Summary number \#($0) of a thing"}"# }
        try tool.write(lines.joined(separator: "\n") + "\n", to: "things.jsonl")
        #expect(try tool.run(["init", "--from", "things.jsonl"]).status == 0)
        let toml = try String(contentsOfFile: tool.path("config/spotlite.toml"), encoding: .utf8)
        let description = toml.split(separator: "\n").first { $0.hasPrefix("description ") } ?? ""
        let summary = toml.split(separator: "\n").first { $0.hasPrefix("summary ") } ?? ""
        #expect(description.contains(#"type = "text""#) && !description.contains("weight"), "\(description)")
        #expect(summary.contains("weight = 2"), "the summary is the title: \(summary)")
    }
}

import Foundation
import SpotliteTestSupport
import SpotliteTooling
import Testing

/// A full or read-only disk, a shard that cannot be reached, history deleted before the index read it: each said
/// in one line, with one exit status per cause in every command.
@Suite("Commands: faults", .blockingWork)
struct CommandFaultTests {
    /// The packages' configuration with the index (and, with `storeOnDisk`, the store) at absolute paths under `disk`.
    static func configuration(index: String, store: String = "../Index/store.sqlite",
                              maximumDuration: String = "7d") -> String {
        CommandLineTool.packageConfiguration
            .replacingOccurrences(of: #"store = "../Index/store.sqlite""#, with: "store = \"\(store)\"")
            .replacingOccurrences(of: #"index = "../Index/search""#, with: "index = \"\(index)\"")
            .replacingOccurrences(of: #"maximum_duration = "7d""#, with: "maximum_duration = \"\(maximumDuration)\"")
    }

    private func imported(_ tool: CommandLineTool) throws {
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        let imported = try tool.run(["import", "packages.jsonl", "--entity", "Package"])
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    @Test("index watch and serve say in one line when updates fail on a full disk, and in one when they succeed again",
          .enabled(if: SmallFileSystem.unavailableReason == nil, "needs root to mount a small tmpfs"),
          arguments: [["index", "watch"], ["serve", "--port", "0"]])
    func watchSaysWhenUpdatesFailAndWhenTheyRecover(command: [String]) throws {
        let scratch = try CommandLineTool()
        defer { scratch.remove() }
        let disk = try SmallFileSystem(megabytes: 2, at: scratch.path("disk"))
        let tool = try CommandLineTool(configuration: Self.configuration(index: disk.path + "/search"))
        defer { tool.remove() }
        try imported(tool)
        #expect(try tool.run(["index", "update"]).status == 0)
        let watcher = try tool.start(command)
        // Both follow history live once started; serve loads its readers first.
        Thread.sleep(forTimeInterval: 2)
        // Full: the next commit of the watcher fails, and its retries too, until the ballast goes.
        try disk.fill(leaving: 0)
        #expect(try tool.sqlite("INSERT INTO Package (name, summary) VALUES ('diskfull', 'written while the disk is full');").status == 0)
        Thread.sleep(forTimeInterval: 2)
        disk.release()
        let caughtUp = try eventually {
            ((try tool.run(["search", "diskfull", "--json"]).json() as? [String: Any])?["total"] as? Int) == 1
        }
        #expect(caughtUp, "the watcher applied the write once space returned")
        // The watcher looks at its updates' health four times a second.
        Thread.sleep(forTimeInterval: 1)
        watcher.signal(SIGTERM)
        let output = watcher.finish()
        #expect(output.status == 0, "\(output.stderr)")
        let failing = output.stderr.split(separator: "\n").filter { $0.contains("the index cannot be updated") }
        let recovered = output.stderr.split(separator: "\n").filter { $0.contains("the index is updated again") }
        #expect(failing.count == 1 && recovered.count == 1, "one line each in:\n\(output.stderr)")
        let check = try ChildProcess.run("/usr/bin/xapian-check", [disk.path + "/search"], error: .discard)
        #expect(check.status == 0 || check.status == 1, "xapian-check ran")
    }

    @Test("a read-only store exits 4 in search, index status and index update alike",
          .enabled(if: SmallFileSystem.unavailableReason == nil, "needs root to mount a small tmpfs"))
    func aReadOnlyStoreIsOneExitStatus() throws {
        let scratch = try CommandLineTool()
        defer { scratch.remove() }
        let disk = try SmallFileSystem(megabytes: 16, at: scratch.path("disk"))
        let tool = try CommandLineTool(configuration: Self.configuration(index: disk.path + "/search",
                                                                           store: disk.path + "/store.sqlite"))
        defer { tool.remove() }
        try imported(tool)
        #expect(try tool.run(["index", "update"]).status == 0)
        try tool.write(#"{"name": "later", "summary": "written before the disk turned read-only"}"# + "\n", to: "later.jsonl")
        #expect(try tool.run(["import", "later.jsonl", "--entity", "Package"]).status == 0)
        try disk.setReadOnly(true)
        defer { try? disk.setReadOnly(false) }
        for arguments in [["search", "editor"], ["index", "status"], ["index", "update"], ["history", "clean"],
                          ["import", "later.jsonl", "--entity", "Package"]] {
            let output = try tool.run(arguments)
            #expect(output.status == 4, "\(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
            #expect(!output.stderr.isEmpty && !output.stderr.contains("terminate called"), "\(output.stderr)")
        }
    }

    @Test("a shard that cannot be reached exits 4 in search, index status and index update alike")
    func anUnreachableShardIsOneExitStatus() throws {
        let scratch = try CommandLineTool()
        defer { scratch.remove() }
        let server = try XapianTcpServer(databasePath: scratch.path("shard"), port: try LoopbackPort.free())
        try server.start()
        defer { server.stop() }
        let configuration = CommandLineTool.packageConfiguration.replacingOccurrences(
            of: #"index = "../Index/search""#, with: "index = \"../Index/search\"\nshards = [\"\(server.location)\"]")
        let tool = try CommandLineTool(configuration: configuration)
        defer { tool.remove() }
        try imported(tool)
        let built = try tool.run(["index", "update"])
        #expect(built.status == 0, "\(built.stderr)")
        server.stop()
        try tool.write(#"{"name": "later", "summary": "written while the shard is down"}"# + "\n", to: "later.jsonl")
        #expect(try tool.run(["import", "later.jsonl", "--entity", "Package"]).status == 0)
        for arguments in [["index", "update"], ["search", "editor"], ["index", "status"]] {
            let output = try tool.run(arguments)
            #expect(output.status == 4, "\(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
            #expect(output.stderr.contains(server.hostAndPort), "the shard is named: \(output.stderr)")
            #expect(!output.stderr.contains("(context: ") && !output.stderr.contains("REMOTE:"),
                    "no Xapian internals in: \(output.stderr)")
        }
        // The status still says how far the index lags: the import made while the shard was down.
        let status = try tool.run(["index", "status", "--json"])
        let object = try #require(try status.json() as? [String: Any], "\(status.stdout)")
        #expect(object["pending_transactions"] as? Int == 1, "\(object)")
        #expect((object["lag_seconds"] as? Double).map { $0 >= 0 } == true, "\(object)")
        #expect(try tool.run(["index", "status"]).stdout.contains("(lag: the oldest was committed"))
    }

    @Test("history clean says what it keeps below the watermark: foreign writes and unlisted authors")
    func historyCleanSaysWhatItKeepsAndWhy() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try imported(tool)
        #expect(try tool.sqlite("INSERT INTO Package (name, summary) VALUES ('shell', 'written by the sqlite3 shell');").status == 0)
        // A listed author writes after it, so the foreign transaction is below the watermark, not at it (the
        // transaction at the watermark is kept whoever wrote it).
        try tool.write(#"{"name": "later", "summary": "imported after the shell's write"}"# + "\n", to: "later.jsonl")
        #expect(try tool.run(["import", "later.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        #expect(try tool.run(["history", "mark", "app"]).status == 0)
        let clean = try tool.run(["history", "clean", "--json"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let answer = try #require(try clean.json() as? [String: Any])
        #expect(answer["kept_foreign_transactions"] as? Int == 1, "\(answer)")
        #expect(answer["kept_unlisted_author_transactions"] as? Int == 0, "\(answer)")
        let again = try tool.run(["history", "clean"])
        #expect(again.stdout.contains("1 transaction by foreign writers") && again.stdout.contains("maximum_duration (7d)"),
                "\(again.stdout)")
    }

    @Test("index update resynchronises when the history it needs was deleted, and says so")
    func updateResynchronisesAfterExpiredHistory() throws {
        let tool = try CommandLineTool(configuration: Self.configuration(index: "../Index/search", maximumDuration: "1s"))
        defer { tool.remove() }
        try imported(tool)
        #expect(try tool.run(["index", "update"]).status == 0)
        #expect(try tool.sqlite("UPDATE Package SET summary = 'changed by the shell' WHERE name = 'sqlite3';").status == 0)
        Thread.sleep(forTimeInterval: 1.5)
        let clean = try tool.run(["history", "clean", "--json"])
        #expect(((try clean.json() as? [String: Any])?["deleted_transactions"] as? Int ?? 0) > 0, "\(clean.stdout)")
        let update = try tool.run(["index", "update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let summary = try #require(try update.json() as? [String: Any])
        #expect(summary["rebuilt"] as? Bool == true, "\(summary)")
        #expect((summary["reason"] as? String)?.contains("was deleted") == true, "\(summary)")
        let found = try #require(try tool.run(["search", "shell", "--json"]).json() as? [String: Any])
        #expect(found["total"] as? Int == 1, "\(found)")
    }

    /// `OR`, `AND` and `NOT` join words: a query of 1,000 words joined by `OR` is within the 1,000-word budget.
    @Test func booleanOperatorsDoNotCountTowardTheWordBudget() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try imported(tool)
        #expect(try tool.run(["index", "update"]).status == 0)
        let words = (0..<1000).map { "w\($0)" }
        let joined = try tool.run(["search", "--json", words.joined(separator: " OR ")])
        #expect(joined.status == 1, "searched, found nothing: \(joined.stderr)")
        let over = try tool.run(["search", "--json", (words + ["w1000"]).joined(separator: " OR ")])
        #expect(over.status == 3, "\(over.status)")
        #expect(over.stderr.contains("1001 words, more than 1000"), "\(over.stderr)")
    }

    @Test("an import that fills the disk names the store and how far it got",
          .enabled(if: SmallFileSystem.unavailableReason == nil, "needs root to mount a small tmpfs"))
    func importOnAFullDiskNamesTheStoreAndHowFarItGot() throws {
        let scratch = try CommandLineTool()
        defer { scratch.remove() }
        let disk = try SmallFileSystem(megabytes: 2, at: scratch.path("disk"))
        let store = disk.path + "/store.sqlite"
        let tool = try CommandLineTool(configuration: Self.configuration(index: disk.path + "/search", store: store))
        defer { tool.remove() }
        let filler = String(repeating: "words to fill the disk ", count: 40)
        let lines = (0..<4000).map { #"{"name": "p\#($0)", "summary": "package \#($0)", "description": "\#(filler)"}"# }
        try tool.write(lines.joined(separator: "\n") + "\n", to: "many.jsonl")
        let output = try tool.run(["import", "many.jsonl", "--entity", "Package", "--batch", "100"])
        #expect(output.status == 4, "\(output.stderr)")
        #expect(output.stderr.contains("the store \(store) failed during the import")
                && output.stderr.contains("committed before it are kept"), "\(output.stderr)")
    }
}

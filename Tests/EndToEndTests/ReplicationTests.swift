import Foundation
import SpotliteTestSupport
import Testing

/// Read replicas through the spotlite binary and Xapian's replication tools: `index replicate serve` on 127.0.0.1
/// and a free port, `index replicate follow` into a directory, `search --index` on the copy.
@Suite("Read replicas (xapian-replicate)", .serialized, .blockingWork)
struct ReplicationTests {
    /// The master: the package configuration, five packages imported and indexed.
    private func master() throws -> CommandLineTool {
        let tool = try CommandLineTool()
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        return tool
    }

    /// `follow --once --json` into `replica`, its round as a dictionary.
    private func followOnce(_ tool: CommandLineTool, _ server: ReplicationServerProcess,
                            into replica: String = "replica") throws -> [String: Any] {
        let output = try tool.run(["index", "replicate", "follow", server.address, "--into", replica, "--once", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        return try #require(try output.json() as? [String: Any])
    }

    private func masterToken(_ tool: CommandLineTool) throws -> Int? {
        (try tool.run(["index", "status", "--json"]).json() as? [String: Any])?["token"] as? Int
    }

    /// The keys of the hits of `query` on the index at `index` (the master's when nil). A replica is searched with
    /// a store path that does not exist: the replica host has no store.
    private func keys(_ tool: CommandLineTool, _ query: [String], index: String? = nil, polling: Bool = false) throws -> [String] {
        var arguments = ["search"] + query + ["--json", "--limit", "20"]
        if let index { arguments += ["--index", index, "--store", "no-store-here/store.sqlite"] }
        let output = try tool.run(arguments)
        if !polling { #expect(output.status == 0 || output.status == 1, "\(output.stderr)") }
        let hits = (try output.json() as? [String: Any])?["hits"] as? [[String: Any]] ?? []
        return hits.compactMap { $0["key"] as? String }
    }

    private static let queries: [[String]] = [
        ["database"], ["search"], ["section:utils"], ["name:sql*"], ["command", "line"], ["--filter", "section:database", "sql*"],
    ]

    @Test func replicaFollowsUpdatesAndARebuildAndAnswersLikeTheMaster() throws {
        let tool = try master()
        defer { tool.remove() }
        let server = try ReplicationServerProcess(tool: tool)
        defer { server.stop() }

        let first = try followOnce(tool, server)
        #expect(first["documents"] as? Int == 5)
        #expect(first["switched"] as? Bool == true, "the first round makes the copy live")
        #expect(first["token"] as? Int == (try masterToken(tool)))
        for query in Self.queries {
            let onMaster = try keys(tool, query)
            #expect(!onMaster.isEmpty || query == ["search"], "\(query)")
            #expect(try keys(tool, query, index: "replica") == onMaster, "\(query) on the replica")
        }

        // An update on the master (a write by another program, then `index update`) reaches the replica as
        // changesets: the index has been served, so the indexer keeps them.
        #expect(try tool.sqlite("INSERT INTO Package(name, summary, section) VALUES ('zstd', 'fast lossless compression algorithm', 'utils');").status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        #expect(try keys(tool, ["compression"], index: "replica").isEmpty, "not before the replica follows")
        let updated = try followOnce(tool, server)
        #expect(updated["documents"] as? Int == 6)
        #expect(updated["switched"] as? Bool == false)
        #expect(updated["full_copies"] as? Int == 0, "changesets, not full copies: \(updated)")
        #expect(updated["token"] as? Int == (try masterToken(tool)))
        #expect(try keys(tool, ["compression"], index: "replica") == ["zstd"])

        // A rebuild switches the master to a new generation; the replica copies it, then switches to it.
        let before = try #require(updated["generation"] as? String)
        #expect(try tool.run(["index", "rebuild"]).status == 0)
        #expect(eventually(timeout: 30) { server.events.contains { $0["event"] as? String == "published" } },
                "serve publishes the new generation: \(server.events)")
        let rebuilt = try followOnce(tool, server)
        let after = try #require(rebuilt["generation"] as? String)
        #expect(after != before)
        #expect(rebuilt["switched"] as? Bool == true)
        #expect(rebuilt["documents"] as? Int == 6)
        let generations = try FileManager.default.contentsOfDirectory(atPath: tool.path("replica")).filter { $0.hasPrefix("gen-") }
        #expect(generations == [after], "the replaced generation is removed: \(generations)")
        for query in Self.queries + [["compression"]] {
            #expect(try keys(tool, query, index: "replica") == (try keys(tool, query)), "\(query) after the rebuild")
        }
        #expect(server.stop() == 0, "serve exits 0 on SIGTERM: \(server.errorOutput)")
    }

    @Test func continuousFollowPicksUpCommitsAndStopsOnSIGTERM() throws {
        let tool = try master()
        defer { tool.remove() }
        let server = try ReplicationServerProcess(tool: tool)
        defer { server.stop() }
        let follower = try tool.start(["index", "replicate", "follow", server.address, "--into", "replica", "--interval", "0.1", "--json"])
        defer { follower.signal(SIGKILL) }
        #expect(eventually(timeout: 60) { (try? keys(tool, ["gimp"], index: "replica", polling: true)) == ["gimp"] })
        #expect(try tool.sqlite("INSERT INTO Package(name, summary, section) VALUES ('zstd', 'fast lossless compression algorithm', 'utils');").status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        #expect(eventually(timeout: 60) { (try? keys(tool, ["compression"], index: "replica", polling: true)) == ["zstd"] },
                "the follower copies the commit")
        #expect(try tool.run(["index", "rebuild"]).status == 0)
        let masterGeneration = try FileManager.default.contentsOfDirectory(atPath: tool.path("Index/search")).filter { $0.hasPrefix("gen-") }.max()
        #expect(eventually(timeout: 60) {
            (try? FileManager.default.contentsOfDirectory(atPath: tool.path("replica")).filter { $0.hasPrefix("gen-") }) == masterGeneration.map { [$0] }
        }, "the follower switches to the rebuilt generation")
        #expect(try keys(tool, ["compression"], index: "replica") == ["zstd"])
        follower.signal(SIGTERM)
        let output = follower.finish()
        #expect(output.status == 0, "exit 0 after SIGTERM: \(output.stderr)")
        let rounds = try output.jsonLines().compactMap { $0 as? [String: Any] }
        #expect(rounds.contains { $0["switched"] as? Bool == true && $0["documents"] as? Int == 6 }, "\(rounds)")
    }

    @Test func masterGoingAwayIsAClearErrorAndTheReplicaKeepsItsCopy() throws {
        let tool = try master()
        defer { tool.remove() }
        let server = try ReplicationServerProcess(tool: tool)
        defer { server.stop() }
        _ = try followOnce(tool, server)
        server.stop()

        let once = try tool.run(["index", "replicate", "follow", server.address, "--into", "replica", "--once"])
        expectOneLineError(once, mentioning: [server.address, "spotlite index replicate serve", "keeps its last copy"])
        #expect(once.status == 4)
        #expect(try keys(tool, ["gimp"], index: "replica") == ["gimp"], "searches keep answering from the last copy")

        // The continuous mode says so once, keeps the copy, and keeps trying.
        let follower = try tool.start(["index", "replicate", "follow", server.address, "--into", "replica", "--interval", "0.1"])
        defer { follower.signal(SIGKILL) }
        // What is tested is an absence (no second line while rounds keep failing), so rounds must be let happen:
        // about ten at --interval 0.1. No event marks a failed round; time is the only way.
        Thread.sleep(forTimeInterval: 1)
        follower.signal(SIGTERM)
        let output = follower.finish()
        #expect(output.status == 0, "\(output.stderr)")
        let complaints = output.stderr.split(separator: "\n").filter { $0.hasPrefix("spotlite: ") }
        #expect(complaints.count == 1, "one line per outage, not one per round: \(output.stderr)")
        #expect(complaints.first?.contains(server.address) == true)
    }

    @Test func badAddressesAndDirectoriesAreClearErrors() throws {
        let tool = try master()
        defer { tool.remove() }
        for address in ["127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:99999", ":7010", "[::1", "::1:7010"] {
            let output = try tool.run(["index", "replicate", "follow", address, "--into", "replica", "--once"])
            expectOneLineError(output, mentioning: ["bad replication address", "HOST:PORT"])
            #expect(output.status == 3, "\(address): \(output.stderr)")
        }
        // Nothing listens on a port just released.
        let closed = try ReplicationServerProcess.freePort()
        let refused = try tool.run(["index", "replicate", "follow", "127.0.0.1:\(closed)", "--into", "replica", "--once"])
        expectOneLineError(refused, mentioning: ["127.0.0.1:\(closed)", "Connection refused"])
        #expect(!FileManager.default.fileExists(atPath: tool.path("replica")), "a failed first copy leaves nothing behind")

        let server = try ReplicationServerProcess(tool: tool)
        defer { server.stop() }
        // A second server on the same port, and a follower pointed at the master's own index.
        let busy = try tool.run(["index", "replicate", "serve", "--port", String(server.port)])
        expectOneLineError(busy, mentioning: ["127.0.0.1:\(server.port)", "in use", "--port"])
        let ontoIndex = try tool.run(["index", "replicate", "follow", server.address, "--into", "Index/search", "--once"])
        expectOneLineError(ontoIndex, mentioning: ["not a Spotlite replica", "empty"])

        // A replica is read-only, follows one server, and refuses a configuration other than the master's.
        _ = try followOnce(tool, server)
        let update = try tool.run(["index", "update", "--index", "replica"])
        expectOneLineError(update, mentioning: ["read replica of \(server.address)", "master"])
        // On the replica host there is no store: update and status say why they do not apply there.
        let noStore = ["--index", "replica", "--store", "no-store-here/store.sqlite"]
        expectOneLineError(try tool.run(["index", "watch"] + noStore), mentioning: ["read replica of \(server.address)", "master"])
        let status = try tool.run(["index", "status"] + noStore)
        expectOneLineError(status, mentioning: ["read replica of \(server.address)", "on the master", "--once"])
        let other = try tool.run(["index", "replicate", "follow", "127.0.0.1:\(closed)", "--into", "replica", "--once"])
        expectOneLineError(other, mentioning: ["replica of \(server.address)"])
        try tool.write(CommandLineTool.packageConfiguration.replacingOccurrences(of: "weight = 4", with: "weight = 3"),
                       to: "config/other.toml")
        let mismatch = try tool.run(["search", "gimp", "--config", "config/other.toml", "--index", "replica"])
        expectOneLineError(mismatch, mentioning: ["configuration", "master"])
    }

    @Test func serveWithoutAnIndexIsAClearError() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let port = try ReplicationServerProcess.freePort()
        let output = try tool.run(["index", "replicate", "serve", "--port", String(port)])
        expectOneLineError(output, mentioning: ["no index", "spotlite index update"])
    }
}

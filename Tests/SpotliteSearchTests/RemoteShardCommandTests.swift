import Foundation
import SpotliteTooling
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// The commands that look after an index whose shards are on `xapian-tcpsrv` servers: `index status` with a shard
/// down, `index delete` (which empties the shards through their servers), and `index replicate serve` (which refuses).
@Suite("Remote shards: status, delete and replicate commands", .serialized, .blockingWork)
struct RemoteShardCommandTests {
    private func built(_ count: Int = 120) async throws -> (RemoteShardSandbox, String) {
        let spotlite = try ProgramRun.spotliteExecutable()
        let shards = try RemoteShardSandbox()
        try shards.write(ShardedIndexTests.generatedPackages(count: count))
        let built = try ProgramRun.run(spotlite, ["index", "update", "--config", shards.sandbox.configurationPath])
        #expect(built.status == 0, "\(built.standardError)")
        return (shards, spotlite)
    }

    private func remoteCount(_ server: XapianTcpServer) throws -> Int {
        try XapianDatabase(remote: XapianRemote(host: "127.0.0.1", port: server.port)).documentCount()
    }

    @Test("`index status` shows every shard; with one down it names it, still shows the others, and exits 4")
    func statusWithAShardDown() async throws {
        let (shards, spotlite) = try await built()
        let config = shards.sandbox.configurationPath
        let healthy = try ProgramRun.run(spotlite, ["index", "status", "--json", "--config", config])
        #expect(healthy.status == 0, "\(healthy.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(healthy.standardOutput.utf8)) as? [String: Any])
        let entries = try #require(object["shards"] as? [[String: Any]])
        #expect(entries.compactMap { $0["name"] as? String } == shards.servers.map(\.hostAndPort))
        #expect(entries.compactMap { $0["documents"] as? Int }.reduce(0, +) == 120)
        #expect(entries.allSatisfy { $0["available"] as? Bool == true && ($0["token"] as? Int ?? 0) > 0 })
        #expect(object["unavailable_shards"] as? [String] == [])

        let victim = shards.servers[1]
        victim.stop()
        let text = try ProgramRun.run(spotlite, ["index", "status", "--config", config])
        #expect(text.status == 4)
        #expect(text.standardOutput.contains("Shards") && text.standardOutput.contains("3 (1 unavailable)"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("unavailable: shard \(victim.hostAndPort) is unavailable"), "\(text.standardOutput)")
        for server in [shards.servers[0], shards.servers[2]] {
            #expect(text.standardOutput.contains(server.hostAndPort + "  "), "\(text.standardOutput)")
        }
        #expect(text.standardOutput.contains("unknown (a shard cannot be read"), "\(text.standardOutput)")
        let line = text.standardError.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("spotlite: shard \(victim.hostAndPort) is unavailable") && !line.contains("\n"), "\(line)")

        let json = try ProgramRun.run(spotlite, ["index", "status", "--json", "--config", config])
        #expect(json.status == 4)
        let down = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(down["unavailable_shards"] as? [String] == [victim.hostAndPort])
        #expect(down["token"] is NSNull)
        let shardEntries = try #require(down["shards"] as? [[String: Any]])
        #expect(shardEntries[1]["available"] as? Bool == false && (shardEntries[1]["error"] as? String)?.contains(victim.hostAndPort) == true)
        #expect(shardEntries[0]["available"] as? Bool == true && shardEntries[0]["documents"] is Int)

        // The library answers the same without throwing.
        let status = try IndexStatus(store: shards.sandbox.store, configuration: shards.sandbox.configuration)
        #expect(status.unavailableShards == [victim.hostAndPort] && status.token == nil && status.exists)
        guard case .shardUnavailable(victim.hostAndPort, _)? = status.shards[1].problem else {
            Issue.record("the shard's problem names it: \(String(describing: status.shards[1].problem))")
            return
        }
        #expect(status.shards[1].problem?.recovery == .startShardServer)
        #expect(status.documents == 120 - (entries[1]["documents"] as? Int ?? -1), "the other shards' documents")
    }

    @Test("`index delete` empties every shard through its server, then the next update builds again")
    func deleteEmptiesTheServers() async throws {
        let (shards, spotlite) = try await built()
        let config = shards.sandbox.configurationPath
        let deleted = try ProgramRun.run(spotlite, ["index", "delete", "--config", config])
        #expect(deleted.status == 0, "\(deleted.standardError)")
        let names = shards.servers.map(\.hostAndPort).joined(separator: ", ")
        #expect(deleted.standardOutput.contains("its 120 documents on 3 shards (\(names))"), "\(deleted.standardOutput)")
        for server in shards.servers {
            #expect(try remoteCount(server) == 0)
            let token = try XapianDatabase(remote: XapianRemote(host: "127.0.0.1", port: server.port)).metadata(forKey: IndexMetadata.tokenKey)
            #expect(token == nil || token == "", "the metadata went too: \(String(describing: token))")
        }
        #expect(shards.map == nil)
        #expect(!FileManager.default.fileExists(atPath: shards.sandbox.indexPath))

        let again = try ProgramRun.run(spotlite, ["index", "update", "--config", config])
        #expect(again.status == 0 && again.standardOutput.contains("there is no index yet"), "\(again.standardOutput) \(again.standardError)")
        #expect(try shards.servers.map(remoteCount).reduce(0, +) == 120)
    }

    @Test("`index delete` with a shard down deletes nothing and says what to do; --local-only leaves the servers alone")
    func deleteWithAShardDown() async throws {
        let (shards, spotlite) = try await built()
        let config = shards.sandbox.configurationPath
        let counts = try shards.servers.map(remoteCount)
        let victim = shards.servers[2]
        victim.stop()
        let refused = try ProgramRun.run(spotlite, ["index", "delete", "--config", config])
        #expect(refused.status == 4)
        let line = refused.standardError.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("spotlite: cannot empty shard \(victim.hostAndPort) of the index"), "\(line)")
        #expect(line.contains("--local-only") && line.contains("(nothing was deleted)") && !line.contains("\n"), "\(line)")
        #expect(try shards.servers.prefix(2).map(remoteCount) == Array(counts.prefix(2)), "nothing was deleted")
        #expect(shards.map != nil)

        let local = try ProgramRun.run(spotlite, ["index", "delete", "--local-only", "--config", config])
        #expect(local.status == 0, "\(local.standardError)")
        #expect(local.standardOutput.contains("left in place"), "\(local.standardOutput)")
        #expect(shards.map == nil)
        #expect(try shards.servers.prefix(2).map(remoteCount) == Array(counts.prefix(2)), "the documents stay on the servers")

        // The next build over the same servers rewrites them (generation tag and sweep): no duplicates.
        try victim.start()
        let rebuilt = try ProgramRun.run(spotlite, ["index", "update", "--config", config])
        #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
        #expect(try shards.servers.map(remoteCount) == counts)
        try await shards.local.makeIndexer().update()
        try shards.expectSameAnswers()
    }

    @Test("`index replicate serve` refuses an index whose shards are placed on servers, in one line")
    func replicateServeRefusesPlacedShards() async throws {
        let (shards, spotlite) = try await built(20)
        let port = try LoopbackPort.free()
        let serve = try RunningChild(spotlite, ["index", "replicate", "serve", "--config", shards.sandbox.configurationPath,
                                                "--host", "127.0.0.1", "--port", String(port)])
        let status = await serve.waitForExit(timeout: .seconds(60))
        #expect(status != nil && status != 0, "serve must refuse, not run")
        let line = serve.standardError.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("spotlite: ") && !line.contains("\n"), "\(line)")
        #expect(line.contains("placed at the locations of the configuration's `shards` list"), "\(line)")
    }
}

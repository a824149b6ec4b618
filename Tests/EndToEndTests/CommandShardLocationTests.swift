import Foundation
import SpotliteTestSupport
import Testing

/// Bad shard locations through the `spotlite` binary: refused when the file is loaded, in one line naming the file,
/// the key and the problem, with nothing created; a server that cannot be reached fails the first use, naming it.
@Suite("Shard locations through the spotlite binary", .serialized, .blockingWork)
struct CommandShardLocationTests {
    static let refused: [(label: String, shards: String, fragments: [String])] = [
        ("tcp:// without a port", #"["tcp://10.0.0.5"]"#, ["\"tcp://10.0.0.5\", which has no port (write tcp://HOST:PORT)"]),
        ("a port out of range", #"["tcp://10.0.0.5:70000"]"#, ["port 70000 is out of range", "port 1 to 65535"]),
        ("a port that is no number", #"["tcp://10.0.0.5:http"]"#, ["port \"http\" is not a number"]),
        ("an empty host", #"["tcp://:7001"]"#, ["which has no host"]),
        ("a count and locations mixed", #"[2, "tcp://10.0.0.5:7001"]"#, ["either a count alone", "write the count alone, or one location per shard"]),
        ("a duplicate", #"["tcp://10.0.0.5:7001", "tcp://10.0.0.6:7001", "tcp://10.0.0.5:7001/"]"#, ["the same shard as position 1", "give each shard its own database"]),
    ]

    @Test("a bad location is a one-line error at load time, for every command, and nothing is created",
          arguments: refused.indices)
    func badLocation(_ index: Int) throws {
        let (label, shards, fragments) = Self.refused[index]
        let tool = try CommandLineTool(configuration: "shards = \(shards)\n" + CommandLineTool.packageConfiguration)
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        for command in [["index", "update"], ["search", "xapian"], ["index", "status"], ["import", "packages.jsonl", "--entity", "Package"]] {
            let output = try tool.run(command)
            expectOneLineError(output, mentioning: ["config/spotlite.toml", "shards: expected", "found"] + fragments)
            #expect(output.status == 3, "\(label), \(command): exit status 3 (the configuration is wrong)")
        }
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index")), "\(label): nothing created")
    }

    @Test("a server nobody answers at is a one-line error on first use naming HOST:PORT and what to do")
    func unreachableServer() throws {
        let port = try ReplicationServerProcess.freePort()
        let tool = try CommandLineTool(configuration: "shards = [\"tcp://127.0.0.1:\(port)\"]\n" + CommandLineTool.packageConfiguration)
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0, "the store does not need the shards")
        let update = try tool.run(["index", "update"])
        expectOneLineError(update, mentioning: ["shard 127.0.0.1:\(port) is unavailable", "Connection refused",
                                                "start its xapian-tcpsrv or fix `shards` in the configuration"])
        #expect(!FileManager.default.fileExists(atPath: tool.path("Index/search/shards.json")), "no shard map recorded")
        let search = try tool.run(["search", "xapian"])
        expectOneLineError(search, mentioning: ["index update"])
    }
}

import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// `shards` as a list of locations: what loads, and what is refused at load time with the key path and the reason.
@Suite("Shard locations in the configuration", .blockingWork)
struct ShardLocationConfigurationTests {
    private func load(_ shards: String) throws -> SpotliteConfiguration {
        try SpotliteConfiguration(tomlString: ConfigurationTestSupport.package(before: "shards = \(shards)"),
                                  source: "config/test.toml", baseDirectory: "/base")
    }

    @Test func remoteAndLocalLocationsLoadInOrderWithRelativePathsResolved() throws {
        let configuration = try load(#"["tcp://10.0.0.5:7001", "tcp://shard-b.example:7002/", "tcp://[::1]:7003", "shards/local"]"#)
        #expect(configuration.shards == .locations([
            .remote(host: "10.0.0.5", port: 7001), .remote(host: "shard-b.example", port: 7002),
            .remote(host: "::1", port: 7003), .path("/base/shards/local"),
        ]))
        #expect(configuration.shards.count == nil)
        #expect(configuration.shards.locations?.map(\.name) == ["10.0.0.5:7001", "shard-b.example:7002", "[::1]:7003", "/base/shards/local"])
        #expect(configuration.shards.locations?[2].description == "tcp://[::1]:7003")
        #expect(try load("3").shards == .count(3))
    }

    static let refused: [(label: String, shards: String, fragments: [String])] = [
        ("no port", #"["tcp://10.0.0.5"]"#, ["has no port", "tcp://HOST:PORT", "at position 1"]),
        ("empty port", #"["tcp://10.0.0.5:7001", "tcp://10.0.0.6:"]"#, ["has no port", "at position 2"]),
        ("port out of range", #"["tcp://10.0.0.5:70000"]"#, ["port 70000 is out of range", "at position 1"]),
        ("port zero", #"["tcp://10.0.0.5:0"]"#, ["port 0 is out of range"]),
        ("port not a number", #"["tcp://10.0.0.5:http"]"#, ["port \"http\" is not a number"]),
        ("empty host", #"["tcp://:7001"]"#, ["has no host"]),
        ("other scheme", #"["http://10.0.0.5:7001"]"#, ["scheme is not tcp://"]),
        ("empty location", #"[""]"#, ["an empty location"]),
        ("a number among locations", #"["tcp://10.0.0.5:7001", 7002]"#, ["found the number 7002 at position 2"]),
        ("a count and locations mixed", #"[3, "tcp://10.0.0.5:7001"]"#, ["either a count alone", "found the number 3 at position 1", "write the count alone, or one location per shard"]),
        ("a path after the port", #"["tcp://10.0.0.5:7001/srv/db"]"#, ["a path after the port", "at position 1"]),
        ("a signed port", #"["tcp://10.0.0.5:+7001"]"#, ["port \"+7001\" is not a number"]),
        ("a user in the host", #"["tcp://admin@10.0.0.5:7001"]"#, ["whose host is not a host name or address"]),
        ("a space in the host", #"["tcp://shard a:7001"]"#, ["whose host is not a host name or address"]),
        ("the same server, its name in other case", #"["tcp://Shard-A.example:7001", "tcp://shard-a.example:7001"]"#, ["at position 2, the same shard as position 1"]),
        ("the same path spelled twice", #"["shards/a", "./shards//a/"]"#, ["at position 2, the same shard as position 1"]),
        ("a shard at the index's path", #"["tcp://10.0.0.5:7001", "Index/search"]"#, ["which is the index's path", "at position 2"]),
        ("a shard at the store's path", #"["./Index/store.sqlite"]"#, ["which is the store's path"]),
        ("no locations", "[]", ["a list of 0 locations"]),
        ("same location twice", #"["tcp://10.0.0.5:7001", "tcp://10.0.0.5:7001"]"#, ["at position 2, the same shard as position 1", "give each shard its own database"]),
        ("a string", #""tcp://10.0.0.5:7001""#, ["a list of shard locations", "found \"tcp://10.0.0.5:7001\""]),
    ]

    @Test("a bad location is refused at load time naming the key, the position and the problem",
          arguments: refused.indices)
    func badLocation(_ index: Int) throws {
        let (label, shards, fragments) = Self.refused[index]
        let error = try #require(ConfigurationTestSupport.error(
            parsing: ConfigurationTestSupport.package(before: "shards = \(shards)"), source: "config/test.toml"), "\(label)")
        #expect(error.keyPath == "shards", "\(label): \(error)")
        #expect(error.description.hasPrefix("config/test.toml: shards: expected "), "\(label): \(error)")
        #expect(!error.description.contains("\n"), "\(label): one line")
        for fragment in fragments {
            #expect(error.message.contains(fragment), "\(label): \(error) lacks \(fragment)")
        }
    }

    @Test func aConfigurationBuiltInSwiftIsCheckedTheSameWay() throws {
        var configuration = try load(#"["tcp://10.0.0.5:7001"]"#)
        configuration.shards = .locations([.remote(host: "", port: 7001)])
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.shards = .locations([.remote(host: "10.0.0.5", port: 65536)])
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.shards = .locations([.remote(host: "10.0.0.5", port: 65535)])
        try configuration.validate()
    }

    @Test func remoteTimeoutsDefaultAndLoad() throws {
        #expect(try load("1").remote == RemoteConfiguration(connectTimeout: .seconds(5), timeout: .seconds(30)))
        let configuration = try SpotliteConfiguration(
            tomlString: ConfigurationTestSupport.package(before: "[remote]\nconnect_timeout = \"2s\"\ntimeout = \"750ms\"\n"),
            source: "config/test.toml", baseDirectory: "/base")
        #expect(configuration.remote == RemoteConfiguration(connectTimeout: .seconds(2), timeout: .milliseconds(750)))
        let minutes = try SpotliteConfiguration(
            tomlString: ConfigurationTestSupport.package(before: "[remote]\ntimeout = \"1h\"\n"), source: "config/test.toml")
        #expect(minutes.remote.timeout == .seconds(3600) && minutes.remote.connectTimeout == .seconds(5))
    }

    static let refusedTimeouts: [(label: String, table: String, key: String, fragments: [String])] = [
        ("zero", #"timeout = "0s""#, "remote.timeout", ["found \"0s\"", "from 1ms to 1h"]),
        ("zero milliseconds", #"connect_timeout = "0ms""#, "remote.connect_timeout", ["found \"0ms\""]),
        ("over an hour", #"timeout = "2h""#, "remote.timeout", ["found 2h", "from 1ms to 1h"]),
        ("days", #"connect_timeout = "1d""#, "remote.connect_timeout", ["found 1d"]),
        ("no unit", #"timeout = "30""#, "remote.timeout", ["found \"30\"", "e.g. \"5s\" or \"500ms\""]),
        ("a number", "timeout = 30", "remote.timeout", ["found 30"]),
        ("a fraction", #"timeout = "1.5s""#, "remote.timeout", ["found \"1.5s\""]),
        ("an unknown key", #"retries = 3"#, "remote.retries", ["known keys are connect_timeout, timeout"]),
    ]

    @Test("a bad timeout is refused at load time naming [remote]'s key", arguments: refusedTimeouts.indices)
    func badTimeout(_ index: Int) throws {
        let (label, table, key, fragments) = Self.refusedTimeouts[index]
        let error = try #require(ConfigurationTestSupport.error(
            parsing: ConfigurationTestSupport.package(before: "[remote]\n\(table)\n"), source: "config/test.toml"), "\(label)")
        #expect(error.keyPath == key, "\(label): \(error)")
        #expect(error.description.hasPrefix("config/test.toml: \(key): "), "\(label): \(error)")
        for fragment in fragments {
            #expect(error.description.contains(fragment), "\(label): \(error) lacks \(fragment)")
        }
    }

    @Test func timeoutsBuiltInSwiftAreCheckedTheSameWay() throws {
        var configuration = try load("1")
        configuration.remote.timeout = .zero
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.remote.timeout = .seconds(3601)
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.remote.timeout = .milliseconds(1)
        try configuration.validate()
    }
}

import Foundation

/// The local record of an index whose shards live at configured locations (`shards = ["tcp://HOST:PORT", …]`):
/// which database each shard is, by UUID, and which rebuild generation the documents written now belong to.
///
/// ```
/// Index/search/
///   writer.lock
///   shards.json   {"generation": "6f0c…", "shards": [{"location": "tcp://10.0.0.5:7001", "uuid": "…"}, …]}
/// ```
/// It is written durably (temporary file, fsync, rename) after every shard committed a rebuild, so a reader sees the
/// old map or the new one. A shard answering with another UUID than the map records is another database (a server
/// pointed at the wrong directory, a database re-created behind the index's back): the indexer and searches refuse it.
struct ShardMap: Codable, Sendable, Equatable {
    static let fileName = "shards.json"

    struct Shard: Codable, Sendable, Equatable {
        /// The location as configured (`tcp://HOST:PORT` or a path).
        var location: String
        /// The database's UUID when the map was written.
        var uuid: String
    }

    /// The tag of the last completed rebuild: every document written since carries the term `tagPrefix + generation`,
    /// and the next rebuild sweeps documents whose tag is not its own.
    var generation: String
    var shards: [Shard]

    /// The boolean term prefix of generation tags (no field prefix starts with it).
    static let tagPrefix = "XG:"

    var tagTerm: String { Self.tagPrefix + generation }

    /// A new generation tag: random, so that an interrupted rebuild's tag is never reused by the next attempt (whose
    /// sweep would otherwise keep the documents the interrupted attempt wrote and the store has since deleted).
    static func newGeneration() -> String {
        String(UInt64.random(in: 1...UInt64.max), radix: 16)
    }

    static func path(in directory: IndexDirectory) -> String { directory.path + "/" + fileName }

    /// The map in `directory`, or nil when there is none (or it is not one Spotlite wrote).
    static func read(in directory: IndexDirectory) -> ShardMap? {
        guard let data = FileManager.default.contents(atPath: path(in: directory)) else { return nil }
        return try? JSONDecoder().decode(ShardMap.self, from: data)
    }

    /// Writes the map durably.
    func write(in directory: IndexDirectory) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        try StubFile.write(contents: String(decoding: data, as: UTF8.self) + "\n", to: Self.path(in: directory))
    }

    /// The locations, parsed.
    var locations: [ShardLocation]? {
        var parsed: [ShardLocation] = []
        for shard in shards {
            guard case let .success(location) = ShardLocation.parse(shard.location) else { return nil }
            parsed.append(location)
        }
        return parsed
    }
}

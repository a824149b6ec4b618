import Foundation
import SpotliteSearch

/// What a replica needs to know to copy an index: the live generation and its shards, published by the master as
/// metadata of a small Xapian database in the index directory, so that Xapian's own replication carries it.
///
/// Xapian replicates one database at a time, and knows nothing of the stub files that tie a Spotlite index together.
/// The master (`spotlite index replicate serve`) writes this database whenever the live generation changes; a
/// replica copies it first, then the databases it names.
struct ReplicationLayout: Sendable, Equatable {
    static let databaseName = IndexDirectory.replicationLayoutName
    static let generationKey = "spotlite.replication.generation"
    static let shardsKey = "spotlite.replication.shards"

    /// The live generation's directory name (`gen-000003`).
    var generation: String
    /// Its shards' directory names, in order; empty when the generation is itself one database (indexes written
    /// before sharding).
    var shards: [String]

    /// The names of the databases to copy, relative to the index directory.
    var databaseNames: [String] {
        shards.isEmpty ? [generation] : shards.map { generation + "/" + $0 }
    }

    /// The layout of `directory`'s live generation, or nil when it has none.
    static func current(of directory: IndexDirectory) -> ReplicationLayout? {
        guard let number = directory.liveGeneration else { return nil }
        let path = directory.generationPath(number)
        let name = (path as NSString).lastPathComponent
        guard let shards = ShardLayout.read(generationPath: path) else {
            return ReplicationLayout(generation: name, shards: [])
        }
        return ReplicationLayout(generation: name, shards: (0..<shards.count).map { ShardLayout.shardPrefix + String($0) })
    }

    /// Reads the layout from a copy of the layout database.
    init(reading database: XapianDatabase) throws {
        guard let generation = try database.metadata(forKey: Self.generationKey),
              Self.isSafeName(generation), generation.hasPrefix(IndexDirectory.generationPrefix)
        else {
            throw LayoutError.missing("no live generation named")
        }
        let shards = (try database.metadata(forKey: Self.shardsKey) ?? "").split(separator: " ").map(String.init)
        guard shards.count <= ShardLayout.maximumCount, shards.allSatisfy(Self.isSafeName) else {
            throw LayoutError.missing("a malformed shard list")
        }
        self.init(generation: generation, shards: shards)
    }

    init(generation: String, shards: [String]) {
        self.generation = generation
        self.shards = shards
    }

    /// Writes the layout into the layout database and commits it.
    func publish(into database: XapianWritableDatabase) throws {
        try database.setMetadata(generation, forKey: Self.generationKey)
        // An empty value deletes a metadata key, which reads back as no shards: what an unsharded generation is.
        try database.setMetadata(shards.joined(separator: " "), forKey: Self.shardsKey)
        try database.commit()
    }

    /// A name a replica may use as a directory: one path component, no dots or separators that could lead outside.
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix(".")
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    enum LayoutError: Error, CustomStringConvertible {
        case missing(String)
        var description: String {
            switch self {
            case let .missing(what): "its layout database has \(what)"
            }
        }
    }
}

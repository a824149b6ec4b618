import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk layout of a Spotlite index: a directory holding Xapian generations and a stub file naming the live one.
///
/// ```
/// Index/search/
///   XAPIANDB        "auto gen-000003"   (Xapian's own stub format: readers open the directory and follow it)
///   gen-000003/     the live Xapian database
///   gen-000004/     a rebuild in progress (not yet live)
///   writer.lock     held (flock) by the one process allowed to update the index
/// ```
/// A rebuild writes a new generation beside the live one and switches by renaming a new stub over the old one, which
/// is atomic: readers see either the old index or the new one, and a rebuild killed half-way leaves the old one live.
package struct IndexDirectory: Sendable {
    package static let stubName = "XAPIANDB"
    static let lockName = "writer.lock"
    package static let generationPrefix = "gen-"
    /// In a read replica: names the replication server it copies (`HOST:PORT`).
    static let replicaMarkerName = "replica-of"
    /// The replication layout database, beside the generations.
    package static let replicationLayoutName = "replication-layout"

    package let path: String
    /// The timeouts of shards placed on servers, for the layouts this directory's shard map describes.
    let remote: RemoteConfiguration

    package init(path: String, remote: RemoteConfiguration = RemoteConfiguration()) {
        self.path = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        self.remote = remote
    }

    package var stubPath: String { path + "/" + Self.stubName }
    var lockPath: String { path + "/" + Self.lockName }

    package var replicaMarkerPath: String { path + "/" + Self.replicaMarkerName }
    /// The database that publishes the live generation to replicas (SpotliteReplication writes and copies it).
    package var replicationLayoutPath: String { path + "/" + Self.replicationLayoutName }

    /// The replication server this directory is a read replica of (`HOST:PORT`), or nil for an ordinary index.
    package var replicaSource: String? {
        guard let text = try? String(contentsOfFile: replicaMarkerPath, encoding: .utf8) else { return nil }
        let source = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return source.isEmpty ? nil : source
    }

    /// Whether a live generation exists.
    package var exists: Bool { liveGeneration != nil }

    /// The live generation's number, read from the stub.
    package var liveGeneration: Int? {
        guard let text = try? String(contentsOfFile: stubPath, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[1].hasPrefix(Self.generationPrefix),
               let number = Int(parts[1].dropFirst(Self.generationPrefix.count)) {
                return number
            }
        }
        return nil
    }

    /// What identifies one version of the stub file: every switch renames a new file over it, which changes the inode.
    package struct StubIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var modified: timespec

        package static func == (lhs: StubIdentity, rhs: StubIdentity) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.modified.tv_sec == rhs.modified.tv_sec
                && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        }
    }

    /// The stub's identity (one `stat`, far cheaper than reading it), or nil when there is no stub.
    package var stubIdentity: StubIdentity? { Self.identity(of: stubPath) }

    /// What says which index is live, and its identity: the shard map of placed shards when there is one (it
    /// takes precedence), else the generation stub.
    var liveIdentity: StubIdentity? { Self.identity(of: ShardMap.path(in: self)) ?? stubIdentity }

    private static func identity(of path: String) -> StubIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return StubIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), modified: info.st_mtim)
    }

    /// Whether the index's shards are placed at locations (a shard map is present).
    package var hasShardMap: Bool { access(ShardMap.path(in: self), F_OK) == 0 }

    /// The live index's shards: those the shard map places, else the live generation's; nil when there is no index
    /// (or its generation is one database written before sharding).
    func liveLayout() -> ShardLayout? {
        if let map = ShardMap.read(in: self) { return ShardLayout(directory: self, map: map) }
        guard let generation = liveGeneration else { return nil }
        return ShardLayout.read(generationPath: generationPath(generation))
    }

    package func generationPath(_ number: Int) -> String {
        path + "/" + Self.generationPrefix + String(format: "%06d", number)
    }

    /// Every generation directory present, live or not.
    package func generations() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.compactMap { name in
            guard name.hasPrefix(Self.generationPrefix) else { return nil }
            return Int(name.dropFirst(Self.generationPrefix.count))
        }.sorted()
    }

    /// Creates the index directory (and its parents) when missing.
    package func create() throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SearchError.cannotWrite(path: path, reason: "\(error.localizedDescription)")
        }
        guard access(path, W_OK) == 0 else {
            throw SearchError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The number for a new generation: above every generation on disk, so a crashed rebuild's leftovers are never reused.
    func nextGeneration() -> Int {
        max(generations().last ?? 0, liveGeneration ?? 0) + 1
    }

    /// Makes `number` the live generation, atomically: write a temporary stub, fsync it, rename it over the stub,
    /// fsync the directory.
    func makeLive(_ number: Int) throws {
        try StubFile.write([Self.generationPrefix + String(format: "%06d", number)], to: stubPath)
    }

    /// Removes every generation but the live one (leftovers of interrupted rebuilds and replaced generations).
    /// Only the lock holder calls this. Readers still holding an old generation keep their open files.
    func removeStaleGenerations() {
        let live = liveGeneration
        for number in generations() where number != live {
            try? FileManager.default.removeItem(atPath: generationPath(number))
        }
    }

    /// Removes the whole index: stub first (so readers stop finding it), then generations.
    func remove() throws {
        unlink(ShardMap.path(in: self))
        unlink(stubPath)
        StubFile.syncDirectory(containing: stubPath)
        for number in generations() {
            try FileManager.default.removeItem(atPath: generationPath(number))
        }
        unlink(lockPath)
        try? FileManager.default.removeItem(atPath: replicationLayoutPath)
        rmdir(path)
    }
}

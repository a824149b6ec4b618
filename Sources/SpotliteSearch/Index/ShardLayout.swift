import Foundation
import SpotliteStore
#if canImport(Glibc)
import Glibc
#endif

/// The shards of one index generation: N Xapian databases in the generation's directory, listed in a Xapian stub
/// file there, so that opening the generation directory opens every shard as one database (Xapian combines their
/// statistics, so ranking is the same as one database holding every document).
///
/// ```
/// gen-000003/
///   XAPIANDB     "auto shard-0\nauto shard-1\n"   (Xapian's stub format)
///   shard-0/     a Xapian database
///   shard-1/
/// ```
/// A document lives in the shard that a stable hash of its id term (entity and key) picks, so updates find it again.
/// Indexes written before sharding have no stub in their generation: the generation is itself one database.
package struct ShardLayout: Sendable, Equatable {
    static let stubName = "XAPIANDB"
    package static let shardPrefix = "shard-"
    package static let maximumCount = IndexShards.maximumCount

    /// The generation directory holding the shards (the index directory for placed shards).
    let generationPath: String
    /// How many shards there are (at least one).
    package let count: Int
    /// Where each shard is, when the configuration placed them (`shards = ["tcp://HOST:PORT", …]`); nil for the
    /// `shard-K` directories of a generation.
    let locations: [ShardLocation]?
    /// The UUID each placed shard must answer with (from the shard map); nil before the first rebuild placed them.
    let expectedUUIDs: [String]?
    /// The generation tag term of placed shards' documents (from the shard map).
    let tagTerm: String?
    /// How long connecting to and waiting for remote shards may take (the configuration's `[remote]` table).
    var remote = RemoteConfiguration()

    package init(generationPath: String, count: Int) {
        self.generationPath = generationPath
        self.count = max(1, count)
        locations = nil
        expectedUUIDs = nil
        tagTerm = nil
    }

    /// Shards at `locations`, recorded in the index directory `directoryPath` by a shard map (when there is one).
    init(directoryPath: String, locations: [ShardLocation], expectedUUIDs: [String]?, tagTerm: String?) {
        generationPath = directoryPath
        count = locations.count
        self.locations = locations
        self.expectedUUIDs = expectedUUIDs
        self.tagTerm = tagTerm
    }

    /// The layout a shard map records.
    init?(directory: IndexDirectory, map: ShardMap) {
        guard let locations = map.locations, !locations.isEmpty else { return nil }
        self.init(directoryPath: directory.path, locations: locations, expectedUUIDs: map.shards.map(\.uuid),
                  tagTerm: map.tagTerm)
        remote = directory.remote
    }

    /// Where a remote shard's server is, with the configured timeouts.
    private func server(host: String, port: Int) -> XapianRemote {
        XapianRemote(host: host, port: port, timeout: remote.timeout, connectTimeout: remote.connectTimeout)
    }

    /// Whether the shards live at configured locations (rebuilt in place, by generation tag and sweep).
    var isPlaced: Bool { locations != nil }

    /// Whether shard `shard` keeps spelling data, each document recording the words it fed (every local shard; a
    /// remote one keeps none: Xapian 1.4 cannot read a remote database's spelling table, and each word would cost a
    /// message to the server).
    func recordsSpelling(_ shard: Int) -> Bool {
        locations?[shard].isRemote != true
    }

    /// How errors name shard `shard`: `HOST:PORT` of a remote one, else its path.
    func shardName(_ shard: Int) -> String {
        locations.map { $0[shard].name } ?? shardPath(shard)
    }

    /// Opens shard `shard` read-only.
    func openReader(_ shard: Int) throws -> XapianDatabase {
        let name = shardName(shard)
        let database: XapianDatabase
        do {
            switch locations?[shard] {
            case let .remote(host, port)?: database = try XapianDatabase(remote: server(host: host, port: port))
            case let .path(path)?: database = try XapianDatabase(path: path)
            case nil: database = try XapianDatabase(path: shardPath(shard))
            }
        } catch {
            // Only placed shards are named: a generation's own shards keep Xapian's typed error.
            throw isPlaced ? Self.naming(error, shard: name) : error
        }
        try checkIdentity(shard) { try database.uuid() }
        return database
    }

    /// Opens shard `shard` for writing: a local shard with `action`, a remote one through its server (which creates
    /// the database when missing). `checkIdentity` refuses a placed shard that answers with another UUID than the map's.
    func openWriter(_ shard: Int, action: XapianWritableDatabase.OpenAction, noSync: Bool,
                    checkIdentity: Bool) throws -> XapianWritableDatabase {
        let name = shardName(shard)
        let database: XapianWritableDatabase
        do {
            switch locations?[shard] {
            case let .remote(host, port)?:
                database = try XapianWritableDatabase(remote: server(host: host, port: port))
            case let .path(path)?:
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                database = try XapianWritableDatabase(path: path, action: action == .open ? .open : .createOrOpen,
                                                      noSync: noSync)
            case nil:
                database = try XapianWritableDatabase(path: shardPath(shard), action: action, noSync: noSync)
            }
        } catch {
            throw Self.naming(error, shard: name)
        }
        if checkIdentity { try self.checkIdentity(shard) { try database.uuid() } }
        return database
    }

    /// Every shard opened read-only as one database (statistics combined, so ranking is global). With
    /// `allowPartial`, shards that cannot be reached are left out and named in the result instead of failing.
    func openCombined(allowPartial: Bool = false) throws -> (database: XapianDatabase, missing: [String]) {
        guard isPlaced else { return (try XapianDatabase(path: generationPath), []) }
        var combined: XapianDatabase?
        var missing: [String] = []
        for shard in 0..<count {
            let database: XapianDatabase
            do {
                database = try openReader(shard)
            } catch SearchError.shardUnavailable where allowPartial {
                missing.append(shardName(shard))
                continue
            }
            guard let combined else {
                combined = database
                continue
            }
            do {
                try combined.addDatabase(database)
            } catch {
                throw Self.naming(error, shard: shardName(shard))
            }
        }
        guard let combined else {
            throw SearchError.shardUnavailable(shard: missing.joined(separator: ", "), reason: "no shard of the index answers")
        }
        return (combined, missing)
    }

    /// A placed shard answering with another UUID than the shard map records is another database: refuse it.
    private func checkIdentity(_ shard: Int, _ uuid: () throws -> String) throws {
        guard let expected = expectedUUIDs, shard < expected.count, !expected[shard].isEmpty else { return }
        let found: String
        do {
            found = try uuid()
        } catch {
            throw Self.naming(error, shard: shardName(shard))
        }
        if found != expected[shard] {
            throw SearchError.shardIdentityChanged(shard: shardName(shard), expected: expected[shard], found: found)
        }
    }

    /// Network failures become ``SearchError/shardUnavailable(shard:reason:)`` naming the shard; others pass.
    static func naming(_ error: any Error, shard: String) -> any Error {
        guard case let SearchError.engine(error, _) = error, error.code.isNetwork else { return error }
        return SearchError.shardUnavailable(shard: shard, reason: "\(error.type): \(error.message)")
    }

    var stubPath: String { generationPath + "/" + Self.stubName }

    func shardPath(_ shard: Int) -> String {
        generationPath + "/" + Self.shardPrefix + String(shard)
    }

    var shardPaths: [String] { (0..<count).map(shardPath) }

    /// The shard holding the document with id term `idTerm`: FNV-1a of the term's bytes, the same on every
    /// machine and in every run, modulo the shard count.
    static func shard(of idTerm: String, among count: Int) -> Int {
        guard count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in idTerm.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(count))
    }

    /// The default shard count for a new index: one per core, up to four (more shards than cores only add
    /// per-shard work to searches, and past four the rebuild is bound by reading the store).
    static var defaultCount: Int {
        min(max(1, ProcessInfo.processInfo.activeProcessorCount), 4)
    }

    /// The layout recorded in `generationPath`'s stub, or nil when the generation has no stub (an index written
    /// before sharding, where the generation is one database) or its stub is not one Spotlite writes.
    package static func read(generationPath: String) -> ShardLayout? {
        let stub = generationPath + "/" + stubName
        guard let text = try? String(contentsOfFile: stub, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty, lines.count <= maximumCount else { return nil }
        for (number, line) in lines.enumerated() where line != "auto " + shardPrefix + String(number) {
            return nil
        }
        return ShardLayout(generationPath: generationPath, count: lines.count)
    }

    /// Writes the stub listing the shards, durably (written, fsynced, renamed into place).
    package func writeStub() throws {
        try StubFile.write((0..<count).map { "\(Self.shardPrefix)\($0)" }, to: stubPath)
    }

    /// The metadata of every shard, in shard order, read without taking any lock.
    func metadata() throws -> [IndexMetadata] {
        try (0..<count).map { shard in
            let database = try openReader(shard)
            do {
                return try IndexMetadata(reading: database.metadata(forKey:))
            } catch {
                throw isPlaced ? Self.naming(error, shard: shardName(shard)) : error
            }
        }
    }

    /// The token every shard has reached: the smallest of the shards' tokens (nil when one has none).
    package func committedToken() throws -> HistoryToken? {
        let tokens = try metadata().map { $0.token?.rawValue ?? 0 }
        let smallest = tokens.min() ?? 0
        return smallest > 0 ? HistoryToken(rawValue: smallest) : nil
    }
}

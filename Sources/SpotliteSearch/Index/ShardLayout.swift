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
struct ShardLayout: Sendable, Equatable {
    static let stubName = "XAPIANDB"
    static let shardPrefix = "shard-"
    static let maximumCount = IndexShards.maximumCount

    /// The generation directory holding the shards.
    let generationPath: String
    /// How many shards there are (at least one).
    let count: Int

    init(generationPath: String, count: Int) {
        self.generationPath = generationPath
        self.count = max(1, count)
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
    static func read(generationPath: String) -> ShardLayout? {
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
    func writeStub() throws {
        try StubFile.write((0..<count).map { "\(Self.shardPrefix)\($0)" }, to: stubPath)
    }

    /// The metadata of every shard, in shard order, read without taking any lock.
    func metadata() throws -> [IndexMetadata] {
        try shardPaths.map { path in
            let database = try XapianDatabase(path: path)
            return try IndexMetadata(reading: database.metadata(forKey:))
        }
    }

    /// The token every shard has reached: the smallest of the shards' tokens (nil when one has none).
    func committedToken() throws -> HistoryToken? {
        let tokens = try metadata().map { $0.token?.rawValue ?? 0 }
        let smallest = tokens.min() ?? 0
        return smallest > 0 ? HistoryToken(rawValue: smallest) : nil
    }
}

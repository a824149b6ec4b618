import Foundation
import Spotlite

/// Figure 6: the size of Spotlite's index against the raw loop's index (same documents, no Spotlite metadata) and
/// against FTS5's index tables, as built and after compaction (Xapian `compact` at level full; FTS5 `optimize`
/// then `VACUUM`). Sizes are deterministic for a given corpus: one measurement.
enum IndexSizeFigure {
    struct Result: FigureResult {
        var spotliteBytes: Int
        var spotliteCompactedBytes: Int
        var rawBytes: Int
        var rawCompactedBytes: Int
        var fts5Bytes: Int
        var fts5CompactedBytes: Int
        var storeBytes: Int
        /// Inserting the records into the FTS5 database, its triggers filling the index (one build).
        var fts5BuildSeconds: Double

        var rows: [TableRow] {
            [
                TableRow("6 size", "Spotlite index, as built → compacted",
                         "\(Format.bytes(spotliteBytes)) → \(Format.bytes(spotliteCompactedBytes))"),
                TableRow("6 size", "raw Xapian index, as built → compacted",
                         "\(Format.bytes(rawBytes)) → \(Format.bytes(rawCompactedBytes))"),
                TableRow("6 size", "FTS5 index tables, as built → optimized + vacuumed",
                         "\(Format.bytes(fts5Bytes)) → \(Format.bytes(fts5CompactedBytes))"),
                TableRow("6 size", "compacted Spotlite / raw", Format.ratio(Double(spotliteCompactedBytes) / Double(max(rawCompactedBytes, 1)))),
                TableRow("6 size", "compacted Spotlite / FTS5", Format.ratio(Double(spotliteCompactedBytes) / Double(max(fts5CompactedBytes, 1)))),
                TableRow("6 size", "the store (rows + history), for scale", Format.bytes(storeBytes)),
                TableRow("6 size", "FTS5 build time (inserts through triggers), for scale", Format.seconds(fts5BuildSeconds)),
            ]
        }
    }

    static func run(_ context: BenchContext) async throws -> Result {
        try await context.prepareIndex()
        let rawPath = context.path("raw-index")
        if !FileManager.default.fileExists(atPath: rawPath) {
            var options = RawIndexer.Options()
            options.noSync = true
            _ = try RawIndexer.build(records: context.corpus.records, configuration: context.configuration,
                                     entity: context.entity.name, path: rawPath, options: options)
        }
        let live = try context.liveGenerationPath()
        let spotliteCompacted = try compactedSize(of: live, scratch: context.path("compact-spotlite"))
        let rawCompacted = try compactedSize(of: rawPath, scratch: context.path("compact-raw"))
        let fts = try context.fts()
        let ftsBytes = try fts.indexBytes()
        try fts.compact()
        let ftsCompacted = try fts.indexBytes()
        let storeBytes = ["", "-wal"].reduce(0) { $0 + DirectorySize.bytes(atPath: context.storePath + $1) }
        return Result(spotliteBytes: DirectorySize.bytes(atPath: live), spotliteCompactedBytes: spotliteCompacted,
                      rawBytes: DirectorySize.bytes(atPath: rawPath), rawCompactedBytes: rawCompacted,
                      fts5Bytes: ftsBytes, fts5CompactedBytes: ftsCompacted, storeBytes: storeBytes,
                      fts5BuildSeconds: context.ftsBuildSeconds)
    }

    private static func compactedSize(of path: String, scratch: String) throws -> Int {
        try? FileManager.default.removeItem(atPath: scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try XapianDatabase(path: path).compact(to: scratch, level: .full)
        return DirectorySize.bytes(atPath: scratch)
    }
}

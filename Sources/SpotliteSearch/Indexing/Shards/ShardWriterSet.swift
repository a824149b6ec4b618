import Foundation
import GRDB
import SpotliteStore

/// The writers of every shard of one generation, written in parallel (one thread per shard).
///
/// Each shard commits its documents together with its own token, so a crash between two shards' commits leaves
/// shards at different tokens: the index's token is the smallest, and replaying history from it is harmless to the
/// shards already past it, since every change rewrites a document from the record's current row (or deletes it).
final class ShardWriterSet {
    let layout: ShardLayout
    let writers: [ShardWriter]

    /// Opens every shard of `layout` (creating them with `.createOrOverwrite` for a rebuild). Opening happens on the
    /// shards' own threads, in parallel.
    ///
    /// Placed shards (``ShardLayout/isPlaced``) are opened at their locations; `tagTerm` is added to every document
    /// written, and `checkIdentity` refuses a shard answering with another UUID than the shard map's.
    /// `listsDocuments` lists each shard's documents before its first replacing write and replaces them by id (a
    /// rebuild in place: ``ShardWriter/write(_:fresh:)``).
    init(layout: ShardLayout, action: XapianWritableDatabase.OpenAction, noSync: Bool, schema: IndexSchema,
         flushThreshold: Int? = nil,
         writeHook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?,
         commitHook: (@Sendable (_ shard: Int, _ token: Int64) -> Void)? = nil,
         tagTerm: String? = nil, checkIdentity: Bool = true, listsDocuments: Bool = false) throws {
        self.layout = layout
        var writers: [ShardWriter] = []
        for shard in 0..<layout.count {
            writers.append(try ShardWriter(
                shard: shard, name: layout.shardName(shard),
                open: { try layout.openWriter(shard, action: action, noSync: noSync, checkIdentity: checkIdentity) },
                tagTerm: tagTerm, recordsSpelling: layout.recordsSpelling(shard), schema: schema,
                flushThreshold: flushThreshold, listsDocuments: listsDocuments, writeHook: writeHook,
                commitHook: commitHook))
        }
        self.writers = writers
    }

    /// How many documents each shard of a rebuild holds in memory before writing them out: Xapian's 10,000 per
    /// writer, shared among the shards, so a rebuild's memory does not grow with the shard count. Each writer
    /// buffers its documents' postings (about 175 MiB for 10,000 Debian packages), so at Xapian's default 2 shards
    /// peaked at 310 MiB and 4 at 610 MiB; with 5,000 each, 2 shards peaked at 195 MiB and used
    /// less CPU (smaller in-memory maps; docs/benchmarks.md, figure 9). Nil for one shard: Xapian's own default.
    static func rebuildFlushThreshold(shards: Int) -> Int? {
        shards > 1 ? max(1000, 10_000 / shards) : nil
    }

    /// Each shard's UUID, in shard order.
    var uuids: [String] { writers.map(\.uuid) }

    /// The smallest checkpoint any shard committed: every shard reflects the history up to it.
    var committedCheckpoint: IndexCheckpoint {
        writers.map(\.committedCheckpoint).min() ?? IndexCheckpoint(token: nil)
    }

    /// The writer of the shard holding the document with `idTerm`.
    func writer(for idTerm: String) -> ShardWriter {
        writers[ShardLayout.shard(of: idTerm, among: writers.count)]
    }

    /// Sets `metadata` and `checkpoint` in every shard, with the shard's number, and commits every shard, in
    /// parallel. Throws the first failure of any shard (the others may have committed: their checkpoints are ahead,
    /// which is harmless).
    func commit(metadata: [(key: String, value: String)], checkpoint: IndexCheckpoint,
                sweepKeeping: String? = nil) throws {
        submitCommit(metadata: metadata, checkpoint: checkpoint, sweepKeeping: sweepKeeping)
        try wait()
    }

    /// Queues the commit of ``commit(metadata:checkpoint:sweepKeeping:)`` in every shard without waiting for it
    /// (``wait()`` does).
    func submitCommit(metadata: [(key: String, value: String)], checkpoint: IndexCheckpoint,
                      sweepKeeping: String? = nil) {
        for writer in writers {
            let shardEntry = (key: IndexMetadata.shardKey, value: "\(writer.shard)/\(writers.count)")
            writer.commit(metadata: metadata + [shardEntry], checkpoint: checkpoint, sweepKeeping: sweepKeeping)
        }
    }

    /// Throws the first failure when a shard failed already (waiting for the shards only then).
    func failIfAnyFailed() throws {
        if writers.contains(where: \.hasFailed) { try wait() }
    }

    /// Waits for every shard's queued work; throws the first failure.
    func wait() throws {
        var first: (any Error)?
        for writer in writers {
            do { try writer.wait() } catch { if first == nil { first = error } }
        }
        if let first { throw first }
    }

    /// Waits for every shard, closes them all, and throws the first failure.
    func close() throws {
        var first: (any Error)?
        for writer in writers {
            do { try writer.close() } catch { if first == nil { first = error } }
        }
        if let first { throw first }
    }
}

/// Gathers records per shard on the reading thread and hands them to the shards' threads in batches, so that the
/// queues' overhead is paid per batch, not per record.
struct ShardBatcher {
    /// Records per handed-over batch: large enough to amortise queueing, small enough to keep memory bounded
    /// (with ``ShardWriter/maximumQueuedBatches`` waiting per shard).
    static let batchSize = 128

    let writers: ShardWriterSet
    let fresh: Bool
    private var batches: [[ShardRecord]]

    init(writers: ShardWriterSet, fresh: Bool) {
        self.writers = writers
        self.fresh = fresh
        batches = Array(repeating: [], count: writers.writers.count)
    }

    mutating func add(_ record: ShardRecord, idTerm: String) {
        let shard = ShardLayout.shard(of: idTerm, among: batches.count)
        batches[shard].append(record)
        if batches[shard].count >= Self.batchSize {
            writers.writers[shard].write(batches[shard], fresh: fresh)
            batches[shard].removeAll(keepingCapacity: true)
        }
    }

    /// Hands over what is left.
    mutating func flush() {
        for shard in batches.indices where !batches[shard].isEmpty {
            writers.writers[shard].write(batches[shard], fresh: fresh)
            batches[shard].removeAll(keepingCapacity: true)
        }
    }
}

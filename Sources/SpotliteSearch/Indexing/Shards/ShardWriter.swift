import Dispatch
import Foundation
import GRDB
import Synchronization

/// A record to write into a shard: the document is built on the shard's own thread.
struct ShardRecord: Sendable {
    var entity: IndexSchema.Entity
    var key: DatabaseValue
    var attributes: AttributeSet
    /// History says no column that makes terms changed since the document was written: its values and data are
    /// rewritten, its terms kept (``ShardWriter/Context/writeRest(_:)``).
    var termsUnchanged = false
}

/// One shard's Xapian writer and document builder, driven from a serial queue of its own so that shards are
/// written in parallel (term generation and inversion are single-threaded inside Xapian, so one writer per core
/// is what uses every core).
///
/// Work is queued with ``submit(_:)`` and runs in order on the queue's thread (a dispatch worker thread, not one of
/// Swift's cooperative threads). The first failure is kept and every later piece of work is skipped, because Xapian
/// discards every uncommitted change of a writer whose write failed; ``wait()`` reports it.
final class ShardWriter: @unchecked Sendable {
    // @unchecked: `writer`, `builder`, `failure`, `unflushed` and `listedIDs` are touched only by blocks running on
    // `queue`, one at a time; `uuid` is written once, on the queue, inside init (before any other thread sees the
    // writer); `pending` is a semaphore, `failed` an atomic and `committed` a mutex, all thread-safe.

    /// How many submitted batches may wait on the queue: bounds memory when the reader outpaces the writer.
    static let maximumQueuedBatches = 8

    let shard: Int
    /// How errors name the shard: its path, or `HOST:PORT` of a remote one.
    let name: String
    /// The database's UUID, read at open.
    private(set) var uuid = ""
    /// The term added to every document written (a placed shard's generation tag), or nil.
    private let tagTerm: String?
    /// What this shard committed last (read at open, then updated by each commit): written on the queue, read by
    /// the indexer's thread while the next commit may run.
    private let committed = Mutex(IndexCheckpoint(token: nil))
    private let queue: DispatchQueue
    /// Set on `queue` only, so that `deinit` can tell that it runs there.
    private let onQueue = DispatchSpecificKey<Bool>()
    private let pending = DispatchSemaphore(value: ShardWriter.maximumQueuedBatches)
    private var writer: XapianWritableDatabase?
    private var builder: DocumentBuilder?
    private var failure: (any Error)?
    /// Documents a rebuild writes out at a time (nil: Xapian's own 10,000 per writer); see
    /// ``ShardWriterSet/rebuildFlushThreshold(shards:)``.
    private let flushThreshold: Int?
    /// Documents written since the last commit or flush (touched on `queue` only).
    private var unflushed = 0
    /// Set once `failure` is: lets the reading thread stop early without waiting for the queue.
    private let failed = Atomic<Bool>(false)
    private let writeHook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?
    /// Whether replacing writes list the shard's documents first and replace them by id (a rebuild in place).
    private let listsDocuments: Bool
    /// The shard's documents by id term, listed at the first replacing write when `listsDocuments` (touched on
    /// `queue` only).
    private var listedIDs: [String: [UInt32]]?
    private let commitHook: (@Sendable (_ shard: Int, _ token: Int64) -> Void)?

    /// Opens (or creates) the shard with `open` on the shard's queue.
    /// - Parameters:
    ///   - tagTerm: a term added to every document written (a placed shard's generation tag).
    ///   - recordsSpelling: feed the spelling table, and record in each document the words it fed, so that replacing
    ///     or deleting it takes them out again (``ShardLayout/recordsSpelling(_:)``: off for remote shards).
    ///   - flushThreshold: documents written out at a time (a rebuild's); nil leaves it to Xapian.
    ///   - listsDocuments: list the shard's documents before the first replacing write, then replace them by id
    ///     (a rebuild in place, which writes every document: see ``write(_:fresh:)``); only where the shard keeps no
    ///     spelling data.
    init(shard: Int, name: String, open: () throws -> XapianWritableDatabase, tagTerm: String? = nil,
         recordsSpelling: Bool = true, schema: IndexSchema, flushThreshold: Int? = nil, listsDocuments: Bool = false,
         writeHook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?,
         commitHook: (@Sendable (_ shard: Int, _ token: Int64) -> Void)? = nil) throws {
        self.shard = shard
        self.name = name
        self.tagTerm = tagTerm
        self.flushThreshold = flushThreshold
        // A shard keeping spelling data reads the replaced document's record by its term anyway (which also leaves
        // one of any duplicates): a listing would be read for nothing. Remote shards keep none, and the listing.
        self.listsDocuments = listsDocuments && !recordsSpelling
        self.writeHook = writeHook
        self.commitHook = commitHook
        queue = DispatchQueue(label: "spotlite.shard-\(shard)", qos: .utility)
        queue.setSpecific(key: onQueue, value: true)
        try queue.sync {
            let writer = try open()
            do {
                builder = try DocumentBuilder(schema: schema, recordsSpelling: recordsSpelling)
                let metadata = try IndexMetadata(reading: writer.metadata(forKey:))
                committed.withLock { $0 = metadata.checkpoint }
                uuid = try writer.uuid()
            } catch {
                throw ShardLayout.naming(error, shard: name)
            }
            self.writer = writer
        }
    }

    /// What this shard committed last (read at open, then updated by each commit).
    var committedCheckpoint: IndexCheckpoint { committed.withLock { $0 } }

    deinit {
        // Callers commit explicitly what they keep: closing without a commit releases the lock now, not at process
        // exit, and never commits again on a writer whose write failed.
        // Queued work holds the writer strongly, so the last reference can go when a block ends, on the queue's own
        // thread: a `sync` onto the queue there would wait for itself (libdispatch traps on it).
        if DispatchQueue.getSpecific(key: onQueue) == true {
            releaseHandles()
        } else {
            queue.sync { releaseHandles() }
        }
    }

    private func releaseHandles() {
        writer?.discard()
        writer = nil
        builder = nil
    }

    /// What a piece of work may use: the shard's writer and builder, only while it runs.
    struct Context {
        let writer: XapianWritableDatabase
        let builder: DocumentBuilder
        let writeHook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?
        let tagTerm: String?

        /// Where this shard's documents record their spelling words; nil when it keeps no spelling data.
        var spellingSlot: UInt32? { builder.spellingWords != nil ? DocumentBuilder.recordSlot : nil }

        /// Builds one record's document, with the generation tag, and shows it to the write hook.
        func build(_ record: ShardRecord) throws -> (idTerm: String, document: XapianDocument) {
            let built = try builder.document(entity: record.entity, key: record.key, attributes: record.attributes)
            if let tagTerm { try built.document.addBooleanTerm(tagTerm) }
            try writeHook?(built.idTerm, built.document)
            return built
        }

        /// Builds and writes one record's document; `fresh` adds it without looking for an earlier one (rebuilds).
        func write(_ record: ShardRecord, fresh: Bool) throws {
            if record.termsUnchanged, !fresh, try writeRest(record) { return }
            let built = try build(record)
            if try writeRecordingSpelling(built, fresh: fresh) { return }
            if fresh {
                try writer.addDocument(uniqueTerm: built.idTerm, document: built.document)
            } else {
                try writer.replaceDocument(uniqueTerm: built.idTerm, document: built.document)
            }
        }

        /// Rewrites the values and data of a record whose terms did not change, without building or touching its
        /// terms (a version, a price, a date changed: about a quarter of the cost of writing the whole document).
        /// False when it must be written whole: the shard keeps no records (remote), its documents carry a
        /// generation tag (placed shards, whose rebuilds in place retag every document), or the stored document
        /// has no record of its terms.
        func writeRest(_ record: ShardRecord) throws -> Bool {
            guard builder.spellingWords != nil, tagTerm == nil else { return false }
            let rest = try builder.document(entity: record.entity, key: record.key, attributes: record.attributes,
                                            withoutTerms: true)
            try writeHook?(rest.idTerm, rest.document)
            return try writer.writeDocumentRest(uniqueTerm: rest.idTerm, document: rest.document,
                                                slot: DocumentBuilder.recordSlot) != .needsWholeDocument
        }

        /// Writes `built` through the document record when this shard keeps spelling data: the spelling table gets
        /// only the difference from the words the replaced document recorded, and a document identical to the one
        /// it replaces is not written again. False when the shard keeps no spelling data (nothing written).
        func writeRecordingSpelling(_ built: (idTerm: String, document: XapianDocument), fresh: Bool) throws -> Bool {
            guard let spellingWords = builder.spellingWords else { return false }
            try writer.writeDocument(uniqueTerm: built.idTerm, document: built.document, spellingWords: spellingWords,
                                     slot: DocumentBuilder.recordSlot, fresh: fresh)
            return true
        }
    }

    /// Queues `work` behind what was submitted before; blocks while too many batches wait.
    func submit(_ work: @escaping @Sendable (Context) throws -> Void) {
        pending.wait()
        queue.async { [self] in
            defer { pending.signal() }
            guard failure == nil, let writer, let builder else { return }
            do {
                try work(Context(writer: writer, builder: builder, writeHook: writeHook, tagTerm: tagTerm))
            } catch {
                failure = ShardLayout.naming(error, shard: name)
                failed.store(true, ordering: .releasing)
                // Xapian has dropped what was not committed (or, after a failure of the disk or the connection,
                // promises nothing about it, and the shim has closed the writer): nothing more is written on this
                // writer. The caller opens the shard again, from its last commit, before any retry.
                writer.discard()
            }
        }
    }

    /// Whether a piece of work failed (everything after it is skipped); does not wait.
    var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Queues writing `records`; past the flush threshold, the documents written so far are written out (a commit
    /// without the token: what a rebuild writes is not live until its generation switches).
    ///
    /// A writer that `listsDocuments` replaces by document id what it listed, and adds the rest without a lookup:
    /// Xapian's replacement by id term looks the term up, and every lookup writes out the positions of all the
    /// documents written since the previous one, one B-tree write per term and document scattered over the
    /// position table. That cost grows with the database: over a remote server (one request per document), a
    /// rebuild of 10,000 records took about as long as a local one, of the 63,666-record corpus over 7 times as long.
    func write(_ records: [ShardRecord], fresh: Bool) {
        guard !records.isEmpty else { return }
        submit { [self] context in
            if listsDocuments && !fresh {
                for record in records { try writeListed(record, context) }
            } else {
                for record in records { try context.write(record, fresh: fresh) }
            }
            guard let flushThreshold else { return }
            unflushed += records.count
            if unflushed >= flushThreshold {
                try context.writer.commit()
                unflushed = 0
            }
        }
    }

    /// Writes one record's document by the listing of the shard's documents (read at the first call).
    private func writeListed(_ record: ShardRecord, _ context: Context) throws {
        if listedIDs == nil { listedIDs = try context.writer.documentIDs(prefix: DocumentIdentity.termPrefix) }
        let built = try context.build(record)
        let ids = listedIDs?[built.idTerm] ?? []
        if ids.count == 1 {
            try context.writer.replaceDocument(id: ids[0], uniqueTerm: built.idTerm, document: built.document)
        } else if ids.isEmpty {
            listedIDs?[built.idTerm] = [try context.writer.addDocument(uniqueTerm: built.idTerm, document: built.document)]
        } else {
            // Duplicates (written by something else): replacing by term leaves one.
            listedIDs?[built.idTerm] = [try context.writer.replaceDocument(uniqueTerm: built.idTerm, document: built.document)]
        }
    }

    /// Queues deleting the documents with these id terms (a missing one is not an error).
    func delete(_ idTerms: [String]) {
        guard !idTerms.isEmpty else { return }
        submit { [self] context in
            for term in idTerms {
                if let slot = context.spellingSlot {
                    try context.writer.deleteDocument(uniqueTerm: term, spellingSlot: slot)
                } else {
                    try context.writer.deleteDocument(uniqueTerm: term)
                }
                listedIDs?[term] = nil
            }
        }
    }

    /// Queues setting `metadata` and `checkpoint`, and committing: the documents written since the last commit and
    /// the metadata (the shard's checkpoint among it) become durable together.
    ///
    /// - Parameter sweepKeeping: first delete every document tagged with a generation other than this tag term (the
    ///   end of a rebuild in place), in the same commit as the metadata.
    func commit(metadata: [(key: String, value: String)], checkpoint: IndexCheckpoint, sweepKeeping: String? = nil) {
        let metadata = (metadata + IndexMetadata.entries(for: checkpoint)).map { [$0.key, $0.value] }
        submit { [self] context in
            if let sweepKeeping {
                try context.writer.sweep(prefix: ShardMap.tagPrefix, keeping: sweepKeeping, spellingSlot: context.spellingSlot)
            }
            for pair in metadata { try context.writer.setMetadata(pair[1], forKey: pair[0]) }
            try context.writer.commit()
            unflushed = 0
            committed.withLock { $0 = checkpoint }
            commitHook?(shard, checkpoint.token?.rawValue ?? 0)
        }
    }

    /// Waits for every queued piece of work and throws the first failure, if any.
    func wait() throws {
        let failure = queue.sync { self.failure }
        if let failure { throw failure }
    }

    /// Waits for the queued work, then closes the writer (releasing its lock) and throws the first failure.
    /// Nothing is committed: what the callers keep, they committed (``commit(metadata:checkpoint:sweepKeeping:)``);
    /// what they did not is replayed from the last commit, or belongs to a generation being removed.
    func close() throws {
        let failure: (any Error)? = queue.sync {
            let failure = self.failure
            writer?.discard()
            writer = nil
            builder = nil
            return failure
        }
        if let failure { throw failure }
    }
}

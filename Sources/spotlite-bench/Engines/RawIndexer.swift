import Foundation
import Spotlite
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The raw engine loop: records in memory → documents (identical term generation, see ``RawDocumentFactory``) →
/// `replace_document` → one commit. No store, no history, no generations. Its options are the levers Xapian offers
/// to make a bulk build faster, so that each can be measured against the naive loop.
enum RawIndexer {
    struct Options: Sendable, Hashable {
        /// `DB_NO_SYNC` while writing, then one fsync of every file at the end (what a rebuild that is switched in
        /// atomically needs); off, every commit (and each automatic flush) fsyncs.
        var noSync = false
        /// Documents buffered before Xapian flushes (`XAPIAN_FLUSH_THRESHOLD`; Xapian's default is 10,000).
        var flushThreshold: Int?
        /// Build documents on a second thread while this one writes. Needs `variations.spelling == false`: spelling
        /// data goes through the writable database, which must stay on one thread.
        var pipelined = false
        var variations = RawDocumentFactory.Variations()
    }

    struct Outcome {
        var seconds: Double
        /// CPU time of this process during the build (every thread, so the builder thread counts).
        var cpuSeconds: Double
        var documents: Int
    }

    static func build(records: [Corpus.Record], configuration: SpotliteConfiguration, entity: String, path: String,
                      options: Options) throws -> Outcome {
        if options.pipelined && options.variations.spelling {
            throw BenchError("a pipelined raw build cannot record spelling data (the term generator would write to the database from the builder thread)")
        }
        try? FileManager.default.removeItem(atPath: path)
        let cpuBefore = ProcessResources.cpuSeconds()
        let seconds = try Stopwatch.seconds {
            let writer = try openWriter(path: path, options: options)
            if options.pipelined {
                try writePipelined(records: records, configuration: configuration, entity: entity, writer: writer,
                                   variations: options.variations)
            } else {
                let factory = try RawDocumentFactory(configuration: configuration, entity: entity,
                                                     variations: options.variations, spellingDatabase: writer)
                for record in records {
                    try writer.replaceDocument(uniqueTerm: factory.idTerm(record), document: factory.document(for: record))
                }
            }
            try writer.commit()
            try writer.close()
            if options.noSync { try syncTree(path) }
        }
        return Outcome(seconds: seconds, cpuSeconds: ProcessResources.cpuSeconds() - cpuBefore, documents: records.count)
    }

    private static func openWriter(path: String, options: Options) throws -> XapianWritableDatabase {
        // Xapian reads the threshold from the environment when a writable database is opened.
        if let threshold = options.flushThreshold {
            setenv("XAPIAN_FLUSH_THRESHOLD", String(threshold), 1)
        } else {
            unsetenv("XAPIAN_FLUSH_THRESHOLD")
        }
        defer { unsetenv("XAPIAN_FLUSH_THRESHOLD") }
        return try XapianWritableDatabase(path: path, action: .createOrOverwrite, noSync: options.noSync)
    }

    /// Documents in flight from the builder thread to the writer: each batch is used by one thread at a time,
    /// handed over through the queue and never touched again by the builder.
    private struct Batch: @unchecked Sendable {
        var documents: [(String, XapianDocument)]
        var error: String?
    }

    private static func writePipelined(records: [Corpus.Record], configuration: SpotliteConfiguration, entity: String,
                                       writer: XapianWritableDatabase, variations: RawDocumentFactory.Variations) throws {
        let queue = Mutex<[Batch]>([])
        let free = DispatchSemaphore(value: 8)
        let ready = DispatchSemaphore(value: 0)
        let batchSize = 256
        let batchCount = (records.count + batchSize - 1) / batchSize
        let builder = Thread {
            do {
                let factory = try RawDocumentFactory(configuration: configuration, entity: entity,
                                                     variations: variations, spellingDatabase: nil)
                for start in stride(from: 0, to: records.count, by: batchSize) {
                    let documents = try records[start..<min(start + batchSize, records.count)].map {
                        (factory.idTerm($0), try factory.document(for: $0))
                    }
                    free.wait()
                    queue.withLock { $0.append(Batch(documents: documents)) }
                    ready.signal()
                }
            } catch {
                queue.withLock { $0.append(Batch(documents: [], error: "\(error)")) }
                ready.signal()
            }
        }
        builder.start()
        do {
            for _ in 0..<batchCount {
                ready.wait()
                let batch = queue.withLock { $0.removeFirst() }
                free.signal()
                if let error = batch.error { throw BenchError("building documents failed: \(error)") }
                for (term, document) in batch.documents {
                    try writer.replaceDocument(uniqueTerm: term, document: document)
                }
            }
        } catch {
            // Unblock the builder so its thread ends.
            for _ in 0..<batchCount { free.signal() }
            throw error
        }
    }

    /// fsyncs every file of a database directory, then the directory.
    static func syncTree(_ path: String) throws {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            let fd = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw BenchError("fsync of \(path)/\(name) failed: \(String(cString: strerror(errno)))") }
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// A rebuild's shard writers write their documents out every few thousand documents, so that a rebuild's memory does
/// not grow with its shard count.
@Suite("Shard writer flushes", .blockingWork)
struct ShardWriterFlushTests {
    static func records(_ keys: Range<Int>, entity: IndexSchema.Entity) -> [ShardRecord] {
        keys.map { number in
            ShardRecord(entity: entity, key: "package-\(number)".databaseValue,
                        attributes: AttributeSet(["name": "package-\(number)".databaseValue,
                                                  "summary": "summary of package \(number)".databaseValue]))
        }
    }

    @Test("past the threshold the documents so far are written out, before any commit; the token only with the commit")
    func flushesBeforeCommit() throws {
        let sandbox = try IndexerSandbox()
        let schema = try IndexSchema(configuration: sandbox.configuration)
        let entity = try schema.entity(named: "Package")
        let path = sandbox.directory + "/shard"
        let writer = try ShardWriter(
            shard: 0, name: path, open: { try XapianWritableDatabase(path: path, action: .createOrOverwrite, noSync: true) },
            schema: schema, flushThreshold: 4, writeHook: nil)
        writer.write(Self.records(0..<3, entity: entity), fresh: true)
        try writer.wait()
        #expect(try XapianDatabase(path: path).documentCount() == 0, "under the threshold nothing is written out")
        writer.write(Self.records(3..<5, entity: entity), fresh: true)
        try writer.wait()
        #expect(try XapianDatabase(path: path).documentCount() == 5, "past it, every document written so far is")
        writer.write(Self.records(5..<7, entity: entity), fresh: true)
        try writer.wait()
        let reader = try XapianDatabase(path: path)
        #expect(try reader.documentCount() == 5, "the count restarts after a flush")
        #expect(try IndexMetadata(reading: reader.metadata(forKey:)).checkpoint.token == nil, "a flush carries no token")
        writer.commit(metadata: [], checkpoint: IndexCheckpoint(token: HistoryToken(7)))
        try writer.wait()
        #expect(try XapianDatabase(path: path).documentCount() == 7)
        #expect(writer.committedCheckpoint.token == HistoryToken(7))
        try writer.close()
    }

    @Test("the threshold shares Xapian's 10,000 documents among a rebuild's shards; one shard keeps Xapian's own")
    func thresholdPerShardCount() {
        #expect(ShardWriterSet.rebuildFlushThreshold(shards: 1) == nil)
        #expect(ShardWriterSet.rebuildFlushThreshold(shards: 2) == 5000)
        #expect(ShardWriterSet.rebuildFlushThreshold(shards: 4) == 2500)
        #expect(ShardWriterSet.rebuildFlushThreshold(shards: 64) == 1000, "never below 1,000: flushes cost")
    }
}

@Suite("A shard writer's lifetime", .blockingWork)
struct ShardWriterLifetimeTests {
    @Test("released by the last piece of its own queued work, a writer closes on its queue's thread without waiting for itself")
    func releasedByItsOwnWork() throws {
        let sandbox = try IndexerSandbox()
        let schema = try IndexSchema(configuration: sandbox.configuration)
        let path = sandbox.directory + "/shard"
        let open = { try XapianWritableDatabase(path: path, action: .createOrOverwrite, noSync: true) }
        var writer: ShardWriter? = try ShardWriter(shard: 0, name: path, open: open, schema: schema, writeHook: nil)
        let running = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        writer?.submit { _ in
            running.signal()
            proceed.wait()
        }
        running.wait()
        // The queued block now holds the only reference: the writer goes when the block ends, on the queue.
        writer = nil
        proceed.signal()
        // Its lock is released once it has closed: a new writer can open the shard (bounded wait).
        let deadline = Date().addingTimeInterval(10)
        var reopened: XapianWritableDatabase?
        while reopened == nil, Date() < deadline {
            reopened = try? XapianWritableDatabase(path: path, action: .open, noSync: true)
            if reopened == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(reopened != nil, "the released writer never let go of the shard's lock")
    }
}

import Foundation
import SpotliteStore
import Testing
@testable import SpotliteSearch

/// The rebuild policy on plain values: every rule, in the order it is checked, without an index or a store.
@Suite("The rebuild policy")
struct IndexRebuildPolicyTests {
    static let store = IndexRebuildPolicy.Store(storeID: "store-a", modelVersion: "2", captureGap: 0,
                                                captureGapDetail: nil, currentToken: HistoryToken(rawValue: 50))
    static let policy = IndexRebuildPolicy(fingerprint: "f1")

    static func shards(_ count: Int, token: Int64 = 40, edit: (Int, inout IndexMetadata) -> Void = { _, _ in })
        -> [IndexMetadata] {
        (0..<count).map { number in
            var metadata = IndexMetadata(token: HistoryToken(rawValue: token), storeID: "store-a", fingerprint: "f1",
                                         format: IndexMetadata.format, updatedAt: nil)
            metadata.modelVersion = "2"
            metadata.shard = "\(number)/\(count)"
            edit(number, &metadata)
            return metadata
        }
    }

    @Test("shards that match the store and the configuration follow history")
    func follows() {
        #expect(Self.policy.reason(shards: Self.shards(3), store: Self.store) == nil)
        #expect(Self.policy.reason(shards: [], store: Self.store) == .noIndex)
    }

    @Test("each mismatch has its own case, and its words")
    func cases() {
        let misplaced = Self.policy.reason(shards: Self.shards(2) { number, metadata in
            if number == 1 { metadata.shard = "0/2" }
        }, store: Self.store)
        #expect(misplaced == .misplacedShard(number: 1, found: "0/2", expected: "1/2"))
        #expect(misplaced?.description == "the index's shard 1 is not the one it should be (it says 0/2, expected 1/2)")

        let mixed = Self.policy.reason(shards: Self.shards(2) { number, metadata in
            if number == 1 { metadata.fingerprint = "f0" }
        }, store: Self.store)
        #expect(mixed == .mixedShards)

        var otherStore = Self.store
        otherStore.storeID = "store-b"
        #expect(Self.policy.reason(shards: Self.shards(1), store: otherStore) == .anotherStore(index: "store-a", store: "store-b"))

        let oldFormat = Self.policy.reason(shards: Self.shards(2) { number, metadata in
            if number == 1 { metadata.format = "3" }
        }, store: Self.store)
        #expect(oldFormat == .anotherFormat(index: "3", current: IndexMetadata.format))

        var migrated = Self.store
        migrated.modelVersion = "3"
        #expect(Self.policy.reason(shards: Self.shards(1), store: migrated) == .modelVersionChanged(index: "2", store: "3"))

        var gap = Self.store
        gap.captureGap = 1
        #expect(Self.policy.reason(shards: Self.shards(1), store: gap) == .captureGap(count: 1, detail: nil))
        #expect(IndexRebuildReason.captureGap(count: 1, detail: nil).description == "history capture was broken in the store (gap 1)")
        gap.captureGapDetail = "the triggers of Package were dropped"
        #expect(Self.policy.reason(shards: Self.shards(1), store: gap)?.description == "the triggers of Package were dropped")

        let reconfigured = IndexRebuildPolicy(fingerprint: "f2").reason(shards: Self.shards(1), store: Self.store)
        #expect(reconfigured == .configurationChanged(index: "f1", current: "f2"))

        let ahead = Self.policy.reason(shards: Self.shards(2, token: 60), store: Self.store)
        #expect(ahead == .aheadOfStore(index: HistoryToken(rawValue: 60), store: HistoryToken(rawValue: 50)))
        #expect(ahead?.description == "the index is ahead of the store (token 60 > 50): the store was re-created")
    }

    @Test("the first broken rule is the one reported: a shard mix-up before a changed configuration")
    func order() {
        let both = IndexRebuildPolicy(fingerprint: "f2").reason(shards: Self.shards(2) { number, metadata in
            if number == 0 { metadata.shard = nil }
        }, store: Self.store)
        #expect(both == .misplacedShard(number: 0, found: nil, expected: "0/2"))
        #expect(both?.description.contains("it says nothing") == true)
    }

    @Test("a backlog rebuilds once its weight passes the documents a rebuild would write")
    func backlog() {
        // 1,000 updates of 1,000 documents: not past the line (equal); 1,001 are.
        var pending = IndexRebuildPolicy.PendingWeight(changes: 1000)
        #expect(IndexRebuildPolicy.backlogReason(pending, documents: 1000, share: 1) == nil)
        pending.changes = 1001
        let reason = IndexRebuildPolicy.backlogReason(pending, documents: 1000, share: 1)
        #expect(reason == .largeBacklog(IndexBacklog(changes: 1001, valuesOnly: 0, deletes: 0, rebuildDocuments: 1000,
                                                     indexDocuments: 1000, share: 1)))
        #expect(reason?.description == "1,001 pending inserts and updates outnumber the 1,000 documents: a rebuild is faster than applying them one by one")
        // Updates of values alone weigh a quarter: 2,000 of them are 500 documents' worth.
        let valuesOnly = IndexRebuildPolicy.PendingWeight(changes: 2000, valuesOnly: 2000)
        #expect(valuesOnly.weight == 500)
        #expect(IndexRebuildPolicy.backlogReason(valuesOnly, documents: 1000, share: 1) == nil)
        // Deletes shrink what a rebuild writes, and say so.
        let deletes = IndexRebuildPolicy.PendingWeight(changes: 600, deletes: 600)
        let deleted = IndexRebuildPolicy.backlogReason(deletes, documents: 1000, share: 1)
        #expect(deleted?.description == "600 pending inserts, updates and deletes outnumber the 400 documents a rebuild would write: a rebuild is faster than applying them one by one")
        #expect(IndexRebuildPolicy.backlogReason(IndexRebuildPolicy.PendingWeight(changes: 600), documents: 1000, share: 0.5)?
            .description.hasPrefix("600 pending inserts and updates are more than 50% of the 1,000 documents") == true)
    }

    @Test("small indexes never rebuild for a backlog; the count alone rules out most backlogs unread")
    func backlogShortcuts() {
        #expect(!IndexRebuildPolicy.mayOutweigh(count: 10_000, documents: 999, share: 1))
        #expect(!IndexRebuildPolicy.mayOutweigh(count: 400, documents: 1000, share: 1), "400 > 600 is false")
        #expect(IndexRebuildPolicy.mayOutweigh(count: 501, documents: 1000, share: 1))
        let read = IndexRebuildPolicy.PendingWeight(changes: 1500)
        #expect(IndexRebuildPolicy.isSettled(read, documents: 1000, unread: 0, share: 1))
        #expect(!IndexRebuildPolicy.isSettled(read, documents: 1000, unread: 600, share: 1), "600 inserts could follow")
    }

    @Test("history deleted and damage read as before")
    func words() {
        #expect(IndexRebuildReason.historyDeleted(requested: HistoryToken(rawValue: 7), purgedThrough: HistoryToken(rawValue: 9)).description
            == "the history after token 7 was deleted (through token 9) before the index consumed it")
        #expect(IndexRebuildReason.historyDeleted(requested: nil, purgedThrough: nil).description
            == "the history after token 0 was deleted before the index consumed it")
        #expect(IndexRebuildReason.damaged(detail: "DatabaseCorruptError: bad block").description
            == "the index is damaged (DatabaseCorruptError: bad block)")
        #expect(IndexRebuildReason.requested("benchmark").description == "benchmark")
    }
}

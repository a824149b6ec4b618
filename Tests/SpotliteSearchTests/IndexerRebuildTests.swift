import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite
import Synchronization

/// When and how the index is rebuilt: beside the live generation, switched atomically, with the reason given.
@Suite("Indexer rebuilds", .blockingWork)
struct IndexerRebuildTests {
    @Test("history purged past the index's token → rebuild, with the reason, and nothing is lost")
    func expiredToken() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(4)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let indexed = try #require(try sandbox.indexToken())

        try sandbox.write([SamplePackage.named("gimp")])
        try sandbox.delete(["vim"])
        let newest = try #require(try sandbox.store.currentToken())
        // Someone deletes history the indexer has not consumed (as a maximum_duration purge would).
        try sandbox.store.deleteHistory(.through(newest))
        #expect(throws: SpotliteStoreError.self) { try sandbox.store.fetchHistory(.after(indexed)) }
        let foretold = try await indexer.status().rebuildCause
        guard case let .historyDeleted(requested, _)? = foretold else {
            Issue.record("expected historyDeleted, got \(String(describing: foretold))")
            return
        }
        #expect(requested == indexed)

        let summary = try await indexer.update()
        #expect(summary.rebuilt)
        guard case let .historyDeleted(rebuiltAfter, _)? = summary.rebuildCause else {
            Issue.record("expected the rebuild's cause to be historyDeleted, got \(String(describing: summary.rebuildCause))")
            return
        }
        #expect(rebuiltAfter == indexed)
        #expect(summary.reason == summary.rebuildCause?.description)
        #expect(summary.token == newest)
        #expect(try sandbox.keys("gimp") == ["gimp"])
        #expect(try sandbox.keys("name:vim").isEmpty, "the delete is not lost although its history is")
        #expect(try sandbox.indexToken() == newest)
        #expect(!(try await indexer.update()).rebuilt, "once rebuilt, updates continue from history")
        #expect(try await indexer.status().rebuildReason == nil)
    }

    @Test("history deleted after every rebuild before the index reads it: the update gives up with its own error, losing nothing")
    func historyDeletedWhileRebuilding() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(4)))
        let indexer = try sandbox.makeIndexer()
        let store = sandbox.store
        // Cleanup faster than rebuilding: each rebuild's snapshot is followed by a commit whose history is deleted
        // before the index can read it (as a short [history] maximum_duration beside a cleaning loop does).
        let cleaning = Mutex(true)
        let deletedThrough = Mutex<[HistoryToken]>([])
        await indexer.setProgressHandler { progress in
            guard progress.done == 0, cleaning.withLock({ $0 }) else { return }
            let number = deletedThrough.withLock { $0.count }
            guard let token = try? store.writeReturningToken(author: "app", { db in
                try SamplePackage(name: "late\(number)", summary: "written during rebuild \(number)").upsert(in: db)
            }).token, (try? store.deleteHistory(.through(token))) != nil else { return }
            deletedThrough.withLock { $0.append(token) }
        }
        let error = await #expect(throws: SearchError.self) { try await indexer.update() }
        let cleanups = deletedThrough.withLock { $0 }
        let last = try #require(cleanups.last)
        #expect(error == .historyDeletedWhileRebuilding(path: sandbox.indexPath, purgedThrough: last, rebuilds: cleanups.count))
        #expect(cleanups.count > 2, "the indexer retried beyond the driver's own resynchronisations")
        #expect(error?.recovery == .keepHistoryThroughRebuilds, "the disk is not the problem")

        // Each rebuild went live before its history was deleted: the index holds the last one's snapshot.
        #expect(try sandbox.makeSearcher().documentCount() == 4 + cleanups.count - 1)
        cleaning.withLock { $0 = false }
        let summary = try await indexer.update()
        #expect(summary.rebuilt, "the missed history can only be recovered from the rows")
        #expect(summary.token == last)
        for number in cleanups.indices { #expect(try sandbox.keys("late\(number)") == ["late\(number)"]) }
        #expect(try sandbox.makeSearcher().documentCount() == 4 + cleanups.count)
    }

    @Test("history cleaned exactly through the index's token is no reason to rebuild")
    func cleanedThroughToken() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(4)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let indexed = try #require(try sandbox.indexToken())
        try sandbox.store.deleteHistory(.through(indexed))
        try sandbox.write([SamplePackage.named("gimp")])
        let summary = try await indexer.update()
        #expect(!summary.rebuilt)
        #expect(summary.indexed == 1)
    }

    @Test("a changed configuration (fields, language, stopwords) → rebuild, saying the configuration changed",
          arguments: [
            ("summary     = { type = \"text\", weight = 2, store = true }", "summary     = { type = \"text\", weight = 3, store = true }", ""),
            ("section     = { type = \"keyword\", facet = true, store = true }", "section     = { type = \"keyword\", store = true }", ""),
            ("", "", "language = \"none\""),
            ("", "", "stopwords = \"none\""),
          ])
    func configurationChange(original: String, replacement: String, indexerLine: String) async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        let entities = original.isEmpty ? IndexerSandbox.packageEntity
            : IndexerSandbox.packageEntity.replacingOccurrences(of: original, with: replacement)
        #expect(entities != IndexerSandbox.packageEntity || !indexerLine.isEmpty)
        let edited = try sandbox.editedConfiguration(entities: entities, indexer: "batch_size = 100\n" + indexerLine)
        let foretold = try await sandbox.makeIndexer(configuration: edited).status().rebuildReason

        let summary = try await sandbox.makeIndexer(configuration: edited).update()
        #expect(summary.rebuilt)
        let reason = try #require(summary.reason)
        #expect(foretold == reason, "index status says what the update then does")
        #expect(reason.contains("the indexing configuration changed"), "reason: \(reason)")
        #expect(reason.contains(edited.indexFingerprint))
        #expect(try IndexSearcher(configuration: edited).search(SearchRequest("editor")).total >= 2)
        #expect(!(try await sandbox.makeIndexer(configuration: edited).update()).rebuilt)
        // Going back is a change too.
        #expect(try await sandbox.makeIndexer().update().rebuilt)
    }

    @Test("a batch size or an author change is not a reason to rebuild")
    func irrelevantConfigurationChange() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        let edited = try sandbox.editedConfiguration(entities: IndexerSandbox.packageEntity,
                                                     indexer: "batch_size = 3\nauthor = \"another.indexer\"")
        #expect(!(try await sandbox.makeIndexer(configuration: edited).update()).rebuilt)
    }

    @Test("an index built from another store → rebuild from this one")
    func anotherStore() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        #expect(try sandbox.keys("gimp") == ["gimp"])

        // A second store file, with other records, indexed into the same index directory.
        let otherPath = sandbox.directory + "/other.sqlite"
        let other = try SpotliteStore(path: otherPath, model: sandbox.configuration.storeModel)
        try other.write(author: "app") { db in try SamplePackage.named("nano").upsert(in: db) }
        let summary = try await sandbox.makeIndexer(store: other).update()
        #expect(summary.rebuilt)
        let reason = try #require(summary.reason)
        #expect(reason.contains("another store") && reason.contains(other.storeID), "reason: \(reason)")
        #expect(try sandbox.keys("gimp").isEmpty, "nothing of the first store is left")
        #expect(try sandbox.keys("nano") == ["nano"])
        #expect(try sandbox.makeSearcher().documentCount() == 1)
    }

    @Test("an index written by another index format → rebuild")
    func anotherFormat() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        for shard in try #require(try sandbox.liveLayout).shardPaths {
            let writer = try XapianWritableDatabase(path: shard, action: .open)
            try writer.setMetadata("0", forKey: IndexMetadata.formatKey)
            try writer.commit()
            try writer.close()
        }
        let summary = try await sandbox.makeIndexer().update()
        #expect(summary.rebuilt)
        #expect(summary.rebuildCause == .anotherFormat(index: "0", current: IndexMetadata.format))
        #expect(summary.reason == summary.rebuildCause?.description)
    }

    /// 7: stop words indexed without their stems; 9: records spelling their words out.
    @Test("an index of an older format → rebuild, saying so", arguments: ["7", "9"])
    func olderFormatRebuilds(format: String) async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        for shard in try #require(try sandbox.liveLayout).shardPaths {
            let writer = try XapianWritableDatabase(path: shard, action: .open)
            try writer.setMetadata(format, forKey: IndexMetadata.formatKey)
            try writer.commit()
            try writer.close()
        }
        let foretold = try await sandbox.makeIndexer().status().rebuildReason
        let summary = try await sandbox.makeIndexer().update()
        #expect(summary.rebuilt)
        #expect(foretold == summary.reason, "index status says what the update then does")
        #expect(summary.rebuildCause == .anotherFormat(index: format, current: IndexMetadata.format))
        for shard in try #require(try sandbox.liveLayout).shardPaths {
            #expect(try XapianDatabase(path: shard).metadata(forKey: IndexMetadata.formatKey) == IndexMetadata.format)
        }
        #expect(try sandbox.keys("nano") == ["nano"])
        let term = DocumentIdentity.term(entity: "Package", keyText: "nano")
        let records = try #require(try sandbox.liveLayout).shardPaths.compactMap {
            try XapianDatabase(path: $0).document(uniqueTerm: term)?.value(slot: DocumentBuilder.recordSlot)
        }
        #expect(records.count == 1 && records.first?.first == 3, "the rebuilt document has this version's record")
    }

    @Test("an index of format 9 (documents without their id term in a value) → rebuild, and every document then holds it")
    func formatNineRebuildsWithIdValues() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        for shard in try #require(try sandbox.liveLayout).shardPaths {
            let writer = try XapianWritableDatabase(path: shard, action: .open)
            try writer.setMetadata("9", forKey: IndexMetadata.formatKey)
            try writer.commit()
            try writer.close()
        }
        let foretold = try await sandbox.makeIndexer().status().rebuildReason
        let summary = try await sandbox.makeIndexer().update()
        #expect(summary.rebuilt)
        #expect(foretold == summary.reason, "index status says what the update then does")
        #expect(summary.rebuildCause == .anotherFormat(index: "9", current: IndexMetadata.format))
        var documents = 0
        for shard in try #require(try sandbox.liveLayout).shardPaths {
            let database = try XapianDatabase(path: shard)
            #expect(try database.metadata(forKey: IndexMetadata.formatKey) == IndexMetadata.format)
            for package in SamplePackage.catalogue {
                let term = DocumentIdentity.term(entity: "Package", keyText: package.name)
                guard let document = try database.document(uniqueTerm: term) else { continue }
                documents += 1
                #expect(try document.value(slot: DocumentBuilder.idSlot) == Array(term.utf8), "\(package.name)")
            }
        }
        #expect(documents == SamplePackage.catalogue.count, "each document found by its id term in one shard")
    }

    @Test("values of number and date fields the index cannot read are counted and named by updates and rebuilds")
    func unreadableValues() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        #expect(try await indexer.update().unreadableValues == 0)
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET size = 'big' WHERE name = 'vim'")
            try db.execute(sql: "UPDATE Package SET released = '2024-02-30', size = '  ' WHERE name = 'nano'")
        }
        let update = try await indexer.update()
        #expect(update.unreadableValues == 2, "blank text is no value, not an unreadable one")
        #expect(Set(update.unreadableExamples) == [#"Package vim: size "big" is not a number"#,
                                                   #"Package nano: released "2024-02-30" is not a date (ISO-8601 or Unix seconds)"#])
        #expect(try sandbox.keys("size:0..").contains("vim") == false)
        let rebuild = try await indexer.rebuild()
        #expect(rebuild.unreadableValues == 2 && rebuild.unreadableExamples.count == 2)
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET size = 5 WHERE name = 'vim'")
        }
        #expect(try await indexer.update().unreadableValues == 0, "only the documents written count")
    }

    @Test("index status says whether the next update rebuilds, and why, without changing anything")
    func statusForetellsTheRebuild() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        #expect(try await indexer.status().rebuildReason == "there is no index yet")
        #expect(try IndexStatus(store: sandbox.store, configuration: sandbox.configuration).rebuildReason == "there is no index yet")
        try await indexer.update()
        try sandbox.write([SamplePackage(name: "joe", summary: "small text editor")])
        let status = try await indexer.status()
        #expect(status.rebuildReason == nil && status.pendingTransactions == 1, "pending history is applied, not rebuilt")
        let edited = try sandbox.editedConfiguration(entities: IndexerSandbox.packageEntity, indexer: "stopwords = \"none\"")
        let reason = try await sandbox.makeIndexer(configuration: edited).status().rebuildReason
        #expect(reason?.hasPrefix("the indexing configuration changed") == true, "\(String(describing: reason))")
        let summary = try await indexer.update()
        #expect(!summary.rebuilt && summary.indexed == 1, "reading the status changed nothing")
    }

    @Test("an index whose files cannot be read → rebuild, saying so")
    func unreadableIndex() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        for live in try #require(try sandbox.liveLayout).shardPaths {
            for name in try FileManager.default.contentsOfDirectory(atPath: live) where name.hasSuffix(".glass") {
                try Data("garbage".utf8).write(to: URL(fileURLWithPath: live + "/" + name))
            }
        }
        let summary = try await sandbox.makeIndexer().update()
        #expect(summary.rebuilt)
        #expect(summary.reason?.hasPrefix("the index could not be read") == true, "reason: \(summary.reason ?? "")")
        #expect(try sandbox.keys("gimp") == ["gimp"])
    }

    @Test("rebuild() on request: a new generation replaces the old one, which is removed")
    func requestedRebuild() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let directory = IndexDirectory(path: sandbox.indexPath)
        let first = try #require(directory.liveGeneration)
        let summary = try await indexer.rebuild()
        #expect(summary.rebuilt && summary.reason == "a rebuild was requested")
        #expect(summary.indexed == SamplePackage.catalogue.count)
        let second = try #require(directory.liveGeneration)
        #expect(second > first)
        #expect(directory.generations() == [second])
        #expect(try sandbox.makeSearcher().documentCount() == SamplePackage.catalogue.count)
    }

    @Test("searches keep answering from the old index during a rebuild, then see the new one")
    func oldResultsVisibleUntilSwitch() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(5)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let searcher = try sandbox.makeSearcher()
        #expect(try searcher.documentCount() == 5)

        // More rows, and a configuration change that forces a rebuild.
        try sandbox.write(Array(SamplePackage.catalogue.suffix(5)))
        let edited = try sandbox.editedConfiguration(entities: IndexerSandbox.packageEntity.replacingOccurrences(
            of: "weight = 2", with: "weight = 5"))
        let rebuilding = try sandbox.makeIndexer(configuration: edited)
        let observations = Observations()
        await rebuilding.setProgressHandler { progress in
            // The rebuild is half-way: the searcher opened before it still answers from the old generation.
            guard progress.done > 0 else { return }
            observations.record(progress: progress,
                                count: (try? searcher.documentCount()) ?? -1,
                                hits: (try? searcher.search(SearchRequest("gimp", correctsSpelling: false)).hits.count) ?? -1)
        }
        let summary = try await rebuilding.update()
        #expect(summary.rebuilt)
        let seen = observations.all
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.count == 5 && $0.hits == 0 }, "old results during the rebuild: \(seen)")
        #expect(seen.last?.progress == IndexProgress(done: 10, total: 10))
        #expect(try searcher.documentCount() == 10, "the same searcher sees the new generation after the switch")
        #expect(try searcher.search(SearchRequest("gimp")).hits.map(\.key) == [.text("gimp")])
    }

    @Test("writes committed while a rebuild runs are applied right after the switch")
    func writesDuringRebuild() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        let store = sandbox.store
        let wrote = Observations()
        await indexer.setProgressHandler { progress in
            guard progress.done == 0 else { return }
            // The snapshot is taken; this commit comes after its token.
            try? store.write(author: "app") { db in
                try SamplePackage(name: "latecomer", summary: "written during the rebuild").upsert(in: db)
            }
            wrote.record(progress: progress, count: 0, hits: 0)
        }
        let summary = try await indexer.update()
        #expect(wrote.all.count == 1)
        #expect(summary.rebuilt)
        #expect(summary.transactions == 1, "the history after the snapshot's token is applied")
        #expect(summary.token == (try sandbox.store.currentToken()))
        #expect(try sandbox.keys("latecomer") == ["latecomer"])
        #expect(try sandbox.makeSearcher().documentCount() == SamplePackage.catalogue.count + 1)
    }

    @Test("progress reports done out of total, growing, ending at the total")
    func progress() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write((0..<2500).map { SamplePackage(name: "pkg\($0)", summary: "generated package \($0)") })
        let indexer = try sandbox.makeIndexer()
        let observations = Observations()
        await indexer.setProgressHandler { observations.record(progress: $0, count: 0, hits: 0) }
        try await indexer.update()
        let seen = observations.all.map(\.progress)
        #expect(seen.first == IndexProgress(done: 0, total: 2500))
        #expect(seen.last == IndexProgress(done: 2500, total: 2500))
        #expect(seen.map(\.done) == seen.map(\.done).sorted())
        #expect(seen.count >= 4)
    }

    @Test("a provider's records left out (nil) are not indexed by a rebuild")
    func providerLeavesOut() async throws {
        struct OnlyEditors: IndexDocumentProvider {
            func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet? {
                guard (record.row["section"] as String?) == "editors" else { return nil }
                return AttributeSet(["name": record.key, "summary": record.row["summary"]])
            }
        }
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let summary = try await sandbox.makeIndexer(provider: OnlyEditors()).update()
        #expect(summary.indexed == 2)
        #expect(Set(try sandbox.keys("")) == ["vim", "nano"])
    }
}

/// What a progress handler saw, collected across threads.
final class Observations: Sendable {
    struct Observation: Sendable, CustomStringConvertible {
        var progress: IndexProgress
        var count: Int
        var hits: Int
        var description: String { "\(progress.done)/\(progress.total): \(count) documents, \(hits) hits" }
    }

    private let storage = Mutex<[Observation]>([])

    func record(progress: IndexProgress, count: Int, hits: Int) {
        storage.withLock { $0.append(Observation(progress: progress, count: count, hits: hits)) }
    }

    var all: [Observation] { storage.withLock { $0 } }
}

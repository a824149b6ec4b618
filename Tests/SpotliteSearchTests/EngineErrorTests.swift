import Foundation
import Glibc
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite
import Synchronization

/// Xapian's failures reach callers as ``SearchError`` cases, and what the indexer does about one (rebuild, replay,
/// give up) follows the failure's class, never its wording.
@Suite("Engine errors", .blockingWork)
struct EngineErrorTests {
    /// The single shard of the live generation.
    private func shardPath(_ sandbox: IndexerSandbox) throws -> String {
        let directory = IndexDirectory(path: sandbox.indexPath)
        let generation = try #require(directory.liveGeneration)
        let layout = try #require(ShardLayout.read(generationPath: directory.generationPath(generation)))
        return try #require(layout.shardPaths.first)
    }

    @Test("a table cut short under the writer is damage: the update rebuilds the index and says why")
    func truncatedTableRebuilds() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 1", indexer: "batch_size = 1000")
        let packages = (0..<400).map { SamplePackage(name: "pkg-\($0)", summary: "package number \($0) of the pile") }
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let termList = try shardPath(sandbox) + "/termlist.glass"
        // Cut the term list short while the writer has it open, just before it re-indexes a package: replacing a
        // document reads its old term list, and Xapian says "EOF reading block" (a plain DatabaseError, the class a
        // full disk also gets; the shim types it as damage).
        let cut = Mutex(false)
        await indexer.setDocumentWriteHook { _, _ in
            let first = cut.withLock { done in
                defer { done = true }
                return !done
            }
            if first { #expect(truncate(termList, 0) == 0) }
        }
        try sandbox.write(packages.map { var package = $0; package.summary += " with zebras"; return package })

        let summary = try await indexer.update()
        #expect(summary.rebuilt)
        let reason = try #require(summary.reason)
        #expect(reason.contains("the index is damaged") && reason.contains("EOF reading block"), "reason: \(reason)")
        await indexer.setDocumentWriteHook(nil)
        #expect(try sandbox.keys("zebras", limit: 500).count == 400)
        #expect(try sandbox.indexToken() == (try sandbox.store.currentToken()))
    }

    @Test("a damaged index is reported as indexCorrupt by the searcher, never as a raw engine error")
    func damagedIndexIsCorruptForSearch() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 1")
        try sandbox.write(Array(SamplePackage.catalogue.prefix(4)))
        try await sandbox.makeIndexer().update()
        #expect(truncate(try shardPath(sandbox) + "/postlist.glass", 0) == 0)
        let searcher = try sandbox.makeSearcher()
        let error = try #require(throws: SearchError.self) { _ = try searcher.search(SearchRequest("editor")) }
        guard case let .indexCorrupt(_, reason) = error else {
            Issue.record("expected indexCorrupt, got \(error)")
            return
        }
        #expect(reason.contains("EOF reading block"), "reason: \(reason)")
    }

    @Test("a shard whose server refuses connections is a typed network error; the update does not rebuild over it")
    func unreachableShardIsNetworkError() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 1")
        try sandbox.write(Array(SamplePackage.catalogue.prefix(2)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let live = IndexDirectory(path: sandbox.indexPath).liveGeneration

        // Bound but not listening: connections are refused, and no other process can take the port meanwhile.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) == 0 && getsockname(socket, $0, &size) == 0 }
        }
        try #require(bound)
        // The shard becomes a stub naming a remote database (Xapian's own stub format).
        let shard = try shardPath(sandbox)
        try FileManager.default.removeItem(atPath: shard)
        try Data("remote 127.0.0.1:\(UInt16(bigEndian: address.sin_port))\n".utf8).write(to: URL(fileURLWithPath: shard))

        let searchError = try #require(throws: SearchError.self) { _ = try sandbox.makeSearcher().search(SearchRequest("vim")) }
        guard case let .engine(engineError, _) = searchError else {
            Issue.record("expected an engine error, got \(searchError)")
            return
        }
        #expect(engineError.code == .network && engineError.code.isNetwork && !engineError.code.isDamage)
        #expect(searchError.recovery == .checkShardServer, "\(searchError)")

        let updateError = await #expect(throws: SearchError.self) { try await indexer.update() }
        guard case let .engine(updateEngineError, _)? = updateError else {
            Issue.record("expected an engine error, got \(String(describing: updateError))")
            return
        }
        #expect(updateEngineError.code == .network)
        #expect(IndexDirectory(path: sandbox.indexPath).liveGeneration == live, "no rebuild over an unreachable shard")
    }

    @Test("each failure class maps to the SearchError case callers act on")
    func readingErrorsMapByClass() {
        func error(_ code: XapianError.Code) -> XapianError { XapianError(code: code, type: "T", message: "m") }
        for code in [XapianError.Code.databaseCorrupt, .databaseOpening, .databaseNotFound, .databaseVersion] {
            guard case .indexCorrupt = SearchError.reading(error(code), path: "/i") else {
                Issue.record("\(code) should make the index unreadable")
                continue
            }
        }
        #expect(SearchError.reading(error(.databaseLock), path: "/i") == .indexLocked(path: "/i", holderPID: nil))
        for code in [XapianError.Code.network, .networkTimeout, .databaseModified, .timeLimit] {
            #expect(SearchError.reading(error(code), path: "/i") == .engine(error(code)), "\(code) stays typed")
        }
        #expect(XapianError.Code.databaseCorrupt.isDamage)
        #expect(!XapianError.Code.database.isDamage, "a failed write (full disk) is not repaired by rebuilding")
        #expect(SearchError.engine(error(.network)).engineCode == .network)
        #expect(SearchError.indexPartlyDeleted(shard: "s", error: error(.database)).engineCode == .database)
        #expect(SearchError.reading(error(.databaseCorrupt), path: "/i").engineCode == nil, "made more specific")
    }
}

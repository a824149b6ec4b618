import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// One indexer per index, in one process or several; and a rebuild killed with SIGKILL leaves the old index intact.
/// The other process is the real `spotlite` command.
@Suite("Indexer locking and interruption", .serialized, .blockingWork)
struct IndexerProcessTests {
    @Test("two indexers in one process: the second gets the lock error until the first stops")
    func twoIndexersInProcess() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let first = try sandbox.makeIndexer()
        let second = try sandbox.makeIndexer()
        try await first.start()
        #expect(await first.isIndexingEnabled)

        for attempt in ["update", "rebuild", "start", "deleteIndex"] {
            let error = await #expect(throws: SearchError.self, "\(attempt)") {
                switch attempt {
                case "update": try await second.update()
                case "rebuild": try await second.rebuild()
                case "start": try await second.start()
                default: try await second.deleteIndex()
                }
            }
            #expect(error == .indexLocked(path: sandbox.indexPath, holderPID: getpid()), "\(attempt)")
            #expect(error?.recovery == .stopIndexerInProcess, "\(attempt)")
        }
        #expect(await !second.isIndexingEnabled)
        await first.stop()
        #expect(try await second.update().token == (try sandbox.store.currentToken()))
    }

    @Test("an indexer in another process (spotlite index watch) holds the index: updates here get the lock error")
    func otherProcessHoldsLock() async throws {
        let spotlite = try ProgramRun.spotliteExecutable()
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let watcher = try RunningChild(spotlite, ["index", "watch", "--config", sandbox.configurationPath])
        let lockFile = IndexDirectory(path: sandbox.indexPath).lockPath
        // The other process's lock file tells no one when it is written: a bounded poll.
        let holding = await eventually(timeout: .seconds(30)) {
            (try? String(contentsOfFile: lockFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "\(watcher.pid)"
        }
        try #require(holding, "the watcher never took the lock: \(watcher.standardError)")

        let indexer = try sandbox.makeIndexer()
        let error = await #expect(throws: SearchError.self) { try await indexer.update() }
        #expect(error == .indexLocked(path: sandbox.indexPath, holderPID: watcher.pid))
        #expect(error?.recovery == .waitForOtherIndexer)

        // The watcher keeps the index up to date meanwhile.
        try sandbox.write([SamplePackage(name: "watched", summary: "indexed by the other process")])
        // Its commits reach this process only through the index's files: a bounded poll.
        #expect(await eventually { (try? sandbox.keys("watched")) == ["watched"] })

        watcher.signal(SIGTERM)
        #expect(await watcher.waitForExit() == 0, "a clean stop: \(watcher.standardError)")
        // The lock died with its holder's stop; this process may update now.
        #expect(!(try await indexer.update()).rebuilt)
    }

    @Test("while this process runs an indexer, `spotlite index update` fails with a clear message")
    func thisProcessHoldsLock() async throws {
        let spotlite = try ProgramRun.spotliteExecutable()
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.start()
        let result = try ProgramRun.run(spotlite, ["index", "update", "--config", sandbox.configurationPath])
        await indexer.stop()
        #expect(result.status != 0)
        #expect(result.standardError.hasPrefix("spotlite: the index at \(sandbox.indexPath) is being updated by another process (pid \(getpid()))"),
                "stderr: \(result.standardError)")
        let after = try ProgramRun.run(spotlite, ["index", "update", "--config", sandbox.configurationPath])
        #expect(after.status == 0, "after stop() the command may update: \(after.standardError)")
    }

    @Test("a rebuild killed with SIGKILL leaves the old index searchable; the next update completes")
    func killedRebuild() async throws {
        let spotlite = try ProgramRun.spotliteExecutable()
        let sandbox = try IndexerSandbox()
        let rows = 20_000
        try sandbox.store.write(author: "importer") { db in
            for number in 0..<rows {
                try SamplePackage(name: "generated\(number)",
                                  summary: "generated package number \(number) for the interrupted rebuild",
                                  description: "word\(number % 97) word\(number % 89) word\(number % 83) filler text to index").upsert(in: db)
            }
        }
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let directory = IndexDirectory(path: sandbox.indexPath)
        let live = try #require(directory.liveGeneration)
        let token = try sandbox.indexToken()
        let searcher = try sandbox.makeSearcher()
        #expect(try searcher.documentCount() == rows + SamplePackage.catalogue.count)

        let rebuild = try RunningChild(spotlite, ["index", "rebuild", "--config", sandbox.configurationPath])
        // Kill it once it has written part of the new generation, well before it could finish. Another process's
        // files tell no one when they grow: a bounded poll.
        let started = await eventually(timeout: .seconds(60)) {
            Self.bytesWritten(under: directory.generationPath(live + 1)) > 0 || !rebuild.process.isRunning
        }
        #expect(started)
        #expect(rebuild.process.isRunning, "the rebuild finished before it could be killed: \(rebuild.standardError)")
        rebuild.signal(SIGKILL)
        #expect(await rebuild.waitForExit() == SIGKILL)

        #expect(directory.liveGeneration == live, "the stub still names the old generation")
        #expect(directory.generations().contains(live + 1), "the killed rebuild left its generation behind")
        #expect(try searcher.documentCount() == rows + SamplePackage.catalogue.count)
        #expect(try searcher.search(SearchRequest("gimp")).hits.map(\.key) == [.text("gimp")])
        #expect(try sandbox.makeSearcher().search(SearchRequest("word42")).total > 0)

        try sandbox.write([SamplePackage(name: "afterwards", summary: "written after the crash")])
        let summary = try await indexer.update()
        #expect(!summary.rebuilt, "the old index is intact: no reason to rebuild")
        #expect(summary.indexed == 1)
        #expect(summary.token != token)
        #expect(directory.generations() == [live], "the dead generation is cleaned up")
        #expect(try searcher.search(SearchRequest("afterwards")).hits.map(\.key) == [.text("afterwards")])
        // And a rebuild can still run to completion.
        let rebuilt = try ProgramRun.run(spotlite, ["index", "rebuild", "--config", sandbox.configurationPath, "--json"])
        #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
        #expect(try searcher.documentCount() == rows + SamplePackage.catalogue.count + 1)
    }

    /// The bytes of the files under `path` (0 when it does not exist).
    private static func bytesWritten(under path: String) -> Int {
        guard let files = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        for case let file as String in files {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + file)
            if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? Int) ?? 0 }
        }
        return total
    }
}

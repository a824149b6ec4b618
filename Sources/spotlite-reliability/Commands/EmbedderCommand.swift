import ArgumentParser
import Foundation
import SpotliteEmbeddings
import SpotliteStore
import Synchronization

/// A child process of the embedding crash suite: brings the vectors of the suite's notes up to the store.
struct EmbedderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embedder", abstract: "(used by the suites) Embed the notes of a store into a vector index, then exit.")

    @Option(help: "The store.") var store: String
    @Option(help: "The vector index folder.") var vectors: String
    @Option(help: "The model folder.") var model: String
    @Option(help: "Records per batch.") var batchSize = 4
    @Flag(help: "Rebuild the vectors from the rows first.") var resynchronize = false

    private final class Outcome: Sendable {
        let result = Mutex<Result<HistoryConsumerRound, any Error>?>(nil)
    }

    func run() throws {
        let store = try SpotliteStore(path: store, model: EmbeddedNotes.model)
        let embedder = try EmbeddedNotes.embedder(model: model, vectors: vectors, batchSize: batchSize)
        let driver = try HistoryConsumerDriver(store: store, consumer: embedder, maximumChanges: batchSize)
        let resynchronize = resynchronize
        let outcome = Outcome()
        // The root command is synchronous: the round runs in a task, and this thread waits for it.
        let finished = DispatchSemaphore(value: 0)
        Task {
            let result: Result<HistoryConsumerRound, any Error>
            do {
                result = .success(resynchronize ? try await driver.resynchronize(reason: "asked by the suite")
                                                : try await driver.processPending())
            } catch {
                result = .failure(error)
            }
            outcome.result.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        let round = try outcome.result.withLock { $0! }.get()
        print("embedded \(round.upserts), removed \(round.deletions), snapshot \(round.snapshot)")
    }
}

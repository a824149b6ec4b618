import Foundation
import ServiceLifecycle
import SpotliteJSON
import SpotliteSearch
import Synchronization

/// The index updates `/events` streams: one `index` event per commit of live indexing (the commit's summary as
/// `spotlite index watch --json` prints it), a comment every few seconds so that a closed client is noticed, and
/// the end of every stream when the server stops.
final class IndexEvents: Service, Sendable {
    private struct State {
        var next = 0
        var subscribers: [Int: AsyncStream<Data>.Continuation] = [:]
        var closed = false
        var lastToken: Int64?
    }

    private let state: Mutex<State>
    private let indexer: SpotliteIndexer?
    /// Seconds between keep-alive comments.
    static let keepAlive = 15.0

    /// Events from `indexer` (nil: the server does not index, and streams only keep-alives); `token` is the index's
    /// token at the start.
    init(indexer: SpotliteIndexer?, token: Int64?) {
        self.indexer = indexer
        state = Mutex(State(lastToken: token))
    }

    /// The token of the last commit seen (or the starting one).
    var lastToken: Int64? { state.withLock { $0.lastToken } }

    /// A new stream of event texts; finished at once when the server is stopping.
    func subscribe() -> AsyncStream<Data> {
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(64))
        let id: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            state.next += 1
            state.subscribers[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        continuation.yield(Data(": connected\n\n".utf8))
        return stream
    }

    func run() async throws {
        let updates = indexer?.indexUpdates()
        try? await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                if let updates {
                    group.addTask { [self] in
                        for await update in updates { self.publish(update) }
                    }
                }
                group.addTask { [self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(Self.keepAlive))
                        self.send(Data(": keep-alive\n\n".utf8))
                    }
                }
                await group.waitForAll()
            }
        }
        close()
    }

    private func publish(_ update: IndexDidUpdate) {
        let commit = update.commit
        state.withLock { $0.lastToken = update.token?.rawValue ?? $0.lastToken }
        // A commit that only saved the position applied nothing: no event, as `index watch` prints no line.
        if commit.transactions == 0 && commit.indexed == 0 && commit.deleted == 0 && !commit.rebuilt { return }
        var json = JSONDocument.line(commit.jsonObject)
        json.removeLast()
        send(Data("event: index\ndata: ".utf8) + json + Data("\n\n".utf8))
    }

    private func send(_ event: Data) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Ends every stream, and refuses new ones: the server is stopping.
    func close() {
        let subscribers = state.withLock { state in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}

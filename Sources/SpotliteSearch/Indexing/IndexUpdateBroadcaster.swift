import Foundation
import Synchronization

/// Delivers index-did-update events to every current subscriber.
final class IndexUpdateBroadcaster: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<IndexDidUpdate>.Continuation]>([:])

    func subscribe() -> AsyncStream<IndexDidUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: IndexDidUpdate.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func post(_ update: IndexDidUpdate) {
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(update) }
    }
}

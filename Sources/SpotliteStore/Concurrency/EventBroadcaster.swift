import Synchronization

/// Sends events to every current listener, each through a buffered `AsyncStream` (a slow listener loses the
/// oldest events beyond `buffer`, never blocks the sender).
package final class EventBroadcaster<Event: Sendable>: Sendable {
    private struct State {
        var listeners: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    private let buffer: Int

    package init(buffer: Int = 1024) {
        self.buffer = buffer
    }

    package func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(buffer))
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.listeners[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    package func send(_ event: Event) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.yield(event) }
    }

    package func finish() {
        let listeners = state.withLock { state in
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }
}

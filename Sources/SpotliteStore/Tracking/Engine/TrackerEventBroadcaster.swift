import Synchronization

/// Sends a tracker's events to every listener.
final class TrackerEventBroadcaster: Sendable {
    private struct State {
        var listeners: [Int: AsyncStream<HistoryTrackerEvent>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    func subscribe() -> AsyncStream<HistoryTrackerEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: HistoryTrackerEvent.self, bufferingPolicy: .bufferingNewest(1024))
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

    func send(_ event: HistoryTrackerEvent) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.yield(event) }
    }

    func finish() {
        let listeners = state.withLock { state in
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }
}

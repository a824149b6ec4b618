import Synchronization

/// One round of an actor that runs its rounds one after another across suspension points (the tracker's engine,
/// ``HistoryConsumerDriver``). An actor alone lets a second call start while the first awaits (a hook, a
/// consumer's `apply`), which would deliver the same changes twice and race on the position. So each round is a
/// task that first awaits the round queued before it: rounds run in call order, one at a time, on the actor.
///
/// A round runs to its end once started, even if its caller is cancelled (a stopped live loop must not leave a
/// delivery half-done); a round whose caller is cancelled while it waits its turn never starts, and throws
/// `CancellationError`.
struct QueuedRound<Result: Sendable>: Sendable {
    /// The round's task; the next round awaits it.
    let task: Task<Result, any Error>
    private let cancellation: Cancellation

    /// Queues `body` (a call of one of the actor's methods) after `previous`.
    init(after previous: QueuedRound?, _ body: @escaping @Sendable () async throws -> Result) {
        let cancellation = Cancellation()
        // A caller already cancelled gets no round: its cancellation handler would run only after the task began.
        if Task.isCancelled { cancellation.set() }
        let previousTask = previous?.task
        task = Task {
            _ = await previousTask?.result
            if cancellation.isSet { throw CancellationError() }
            return try await body()
        }
        self.cancellation = cancellation
    }

    /// The round's result, once the rounds before it and the round itself have ended. Cancelling the caller
    /// meanwhile keeps the round from starting if it has not yet.
    var value: Result {
        get async throws {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                cancellation.set()
            }
        }
    }

    /// Returns once this round (and so every round before it) has ended, whatever its outcome.
    func waitUntilEnded() async {
        _ = await task.result
    }

    private final class Cancellation: Sendable {
        private let flag = Atomic(false)
        var isSet: Bool { flag.load(ordering: .acquiring) }
        func set() { flag.store(true, ordering: .releasing) }
    }
}

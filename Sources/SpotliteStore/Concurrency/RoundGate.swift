/// Lets an actor's rounds run one at a time across suspension points: an actor alone lets a second call start
/// while the first awaits (a hook, a consumer's `apply`), which would deliver the same changes twice and race on
/// the position. The owning actor calls ``tryEnter()``, else parks a continuation with ``enqueue(_:)``; callers
/// go in arrival order.
struct RoundGate {
    private var isBusy = false
    private var queued: [CheckedContinuation<Void, Never>] = []

    /// Marks a round running and returns true, or returns false when one already runs.
    mutating func tryEnter() -> Bool {
        guard !isBusy else { return false }
        isBusy = true
        return true
    }

    /// Parks a caller until the rounds before it end.
    mutating func enqueue(_ continuation: CheckedContinuation<Void, Never>) {
        queued.append(continuation)
    }

    /// Ends a round; the next parked caller inherits the busy state, so no third caller can slip in between.
    mutating func leave() {
        if queued.isEmpty {
            isBusy = false
        } else {
            queued.removeFirst().resume()
        }
    }
}

/// The change notifications of a store, as an `AsyncSequence` (see ``SpotliteStore/changeNotifications()``).
///
/// Notifications coalesce while the consumer is busy: only the newest waits, and it carries the newest token,
/// so a consumer that fetches history after its own position after each one misses nothing.
/// Dropping the sequence, or cancelling the task that iterates it, ends the subscription; the file watcher
/// stops with the last subscription. The sequence ends when the store handle is released.
public struct StoreChangeNotifications: AsyncSequence, Sendable {
    /// Each element is one change notification.
    public typealias Element = StoreChangeNotification
    /// Waiting for notifications never fails.
    public typealias Failure = Never

    let stream: AsyncStream<StoreChangeNotification>

    /// Iterates the notifications of one subscription.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Each element is one change notification.
        public typealias Element = StoreChangeNotification
        /// Waiting for notifications never fails.
        public typealias Failure = Never
        var base: AsyncStream<StoreChangeNotification>.Iterator

        /// The next notification; nil once the sequence has ended (the task was cancelled or the store went away).
        public mutating func next() async -> StoreChangeNotification? {
            await base.next()
        }
    }

    /// An iterator over the notifications posted from now on.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }
}

/// Anything that consumes a store's history with a position of its own saved in the store: the search indexer,
/// an embedding indexer, a sync engine, a ``HistoryTracker``.
///
/// Cleanup waits for every registered consumer (``HistoryTracker/register(consumer:)``,
/// ``CleanupPolicy/waiting(for:)``) exactly as for a required author: history it has not consumed is kept until
/// ``CleanupPolicy/maximumDuration``.
public protocol HistoryConsumer: Sendable {
    /// The name under which the consumer saves its position (``SpotliteStore/setPosition(_:for:timestamp:)``).
    var consumerName: String { get }
}

extension HistoryConsumer {
    /// The consumer's saved position in `store`; nil before it saved one (cleanup then waits for it).
    public func position(in store: SpotliteStore) throws -> HistoryPosition? {
        try store.position(of: consumerName)
    }
}

extension CleanupPolicy {
    /// This policy, also waiting for `consumers`' positions.
    public func waiting(for consumers: [any HistoryConsumer]) -> CleanupPolicy {
        var copy = self
        for consumer in consumers where !copy.requiredAuthors.contains(consumer.consumerName) {
            copy.requiredAuthors.append(consumer.consumerName)
        }
        return copy
    }
}

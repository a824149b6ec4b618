/// Something a ``HistoryTracker`` merges delivered history into: the Linux counterpart of the kit's contexts
/// (an in-memory cache, a view model, a sync queue).
///
/// Delivery is at least once: when a subscriber throws, the tracker's position stays where it was and every
/// subscriber gets the same transactions again next time, so merging must be idempotent.
public protocol HistorySubscriber: Sendable {
    /// Applies `transactions` (token order, other authors' writes) to the subscriber's state.
    func merge(_ transactions: [HistoryTransaction]) async throws
}

/// A subscriber made of a closure.
public struct AnyHistorySubscriber: HistorySubscriber {
    private let body: @Sendable ([HistoryTransaction]) async throws -> Void

    /// A subscriber that runs `merge` for each delivery.
    public init(_ merge: @escaping @Sendable ([HistoryTransaction]) async throws -> Void) {
        body = merge
    }

    /// Runs the closure.
    ///
    /// - Throws: whatever the closure given to ``init(_:)`` throws.
    public func merge(_ transactions: [HistoryTransaction]) async throws {
        try await body(transactions)
    }
}

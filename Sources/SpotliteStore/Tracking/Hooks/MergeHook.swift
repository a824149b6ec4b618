/// What a merge hook tells the pipeline.
public enum MergeHookResult: Sendable, Hashable {
    /// Run the next hook, and after the last one the default merge into every subscriber.
    case goOn
    /// Stop here: skip the remaining hooks and the default merge. The transactions count as delivered.
    case finish
}

/// What a merge hook sees: the transactions about to be merged and where they would go.
public struct MergeHookInput: Sendable {
    /// The transactions of this delivery, in token order.
    public var transactions: [HistoryTransaction]
    /// The subscribers the default merge delivers to, in order (the kit's contexts).
    public var subscribers: [any HistorySubscriber]
    /// The store the transactions come from.
    public var store: SpotliteStore
    /// The author the tracker delivers to.
    public var currentAuthor: String
}

/// A step of the merge pipeline. Throwing aborts the delivery: the position stays and the same transactions come
/// again with the next notification.
public typealias MergeHook = @Sendable (MergeHookInput) async throws -> MergeHookResult

/// An observer of one entity and operation. Observers run before the merge pipeline; a delivery that fails later
/// is observed again when it is retried.
public typealias ObserverHook = @Sendable (ObservedChanges) async -> Void

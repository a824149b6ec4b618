import Foundation

/// Who history cleanup waits for, and how long history may be kept for a lagging author.
public struct CleanupPolicy: Sendable, Hashable {
    /// Authors whose position bounds cleanup: every author that reads history (all authors minus batch authors)
    /// plus every consumer with its own position, such as the search indexer.
    public var requiredAuthors: [String]
    /// Authors whose transactions cleanup deletes below the watermark (PersistentHistoryTrackingKit's allAuthors).
    public var listedAuthors: [String]
    /// Also delete unattributed transactions (foreign writers) and those of unlisted authors below the watermark.
    public var purgesUnlistedAuthors: Bool
    /// History older than this is deleted even when a required author has not consumed it; that author then gets
    /// an expired-token error and resynchronises. Nil: never.
    public var maximumDuration: TimeInterval?

    public init(requiredAuthors: [String], listedAuthors: [String]? = nil, purgesUnlistedAuthors: Bool = false,
                maximumDuration: TimeInterval? = 7 * 86_400) {
        self.requiredAuthors = requiredAuthors
        self.listedAuthors = listedAuthors ?? requiredAuthors
        self.purgesUnlistedAuthors = purgesUnlistedAuthors
        self.maximumDuration = maximumDuration
    }
}

/// What one cleanup did (or, in a dry run, would do).
public struct CleanupResult: Sendable, Hashable {
    /// The lowest position over the required authors; nil when one of them has none.
    public var watermark: HistoryToken?
    /// How many transactions were (in a dry run: would be) deleted.
    public var deletedTransactions: Int
    /// How many transactions remain (in a dry run: would remain).
    public var keptTransactions: Int
    /// Why this much and no more was deleted.
    public var reason: String
    /// Required authors without a position that cleanup still waits for.
    public var absentAuthors: [String] = []
    /// Required authors without a position for longer than the maximum duration: cleanup no longer waits for them.
    public var abandonedAuthors: [String] = []
}

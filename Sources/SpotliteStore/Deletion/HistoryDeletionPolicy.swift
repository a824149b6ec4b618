import Foundation

/// Whose positions history deletion waits for, whose transactions it deletes, and how long history may be kept
/// for a lagging author.
public struct HistoryDeletionPolicy: Sendable, Hashable {
    /// Authors whose position bounds cleanup: every author that reads history (all authors minus batch authors)
    /// plus every consumer with its own position, such as the search indexer.
    public var requiredAuthors: [String]
    /// Authors whose transactions cleanup deletes below the watermark (PersistentHistoryTrackingKit's allAuthors).
    public var listedAuthors: [String]
    /// Also delete unattributed transactions (foreign writers) and those of unlisted authors below the watermark.
    public var deletesUnlistedAuthors: Bool
    /// History older than this is deleted even when a required author has not consumed it; that author then gets
    /// an expired-token error and resynchronises. Nil: never.
    public var maximumDuration: TimeInterval?

    /// A policy waiting for `requiredAuthors`, deleting `listedAuthors`' transactions (default: the required
    /// authors), and unlisted authors' too when `deletesUnlistedAuthors`; `maximumDuration` in seconds (default
    /// seven days, nil: wait forever).
    public init(requiredAuthors: [String], listedAuthors: [String]? = nil, deletesUnlistedAuthors: Bool = false,
                maximumDuration: TimeInterval? = 7 * 86_400) {
        self.requiredAuthors = requiredAuthors
        self.listedAuthors = listedAuthors ?? requiredAuthors
        self.deletesUnlistedAuthors = deletesUnlistedAuthors
        self.maximumDuration = maximumDuration
    }
}

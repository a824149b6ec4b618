import Foundation
import SpotliteStore

/// What one `update()` or `rebuild()` did (the command line prints it as `spotlite index update --json`).
///
/// `Codable` with its property names as keys; the command line's JSON shape, with snake_case keys, is the command
/// line's own.
public struct IndexUpdateSummary: Sendable, Hashable, Codable {
    /// The history token the index reflects now.
    public var token: HistoryToken?
    /// History transactions applied (after the rebuild's snapshot, when there was one).
    public var transactions = 0
    /// Changes read from those transactions.
    public var changes = 0
    /// Documents added or replaced (a rebuild counts every document it wrote).
    public var indexed = 0
    /// Documents removed.
    public var deleted = 0
    /// Whether the index was rebuilt from the store's rows.
    public var rebuilt = false
    /// Why it was rebuilt, in words (``rebuildCause``'s description for the indexer's rebuilds).
    public var reason: String?
    /// Why it was rebuilt, as a case to match: set by ``SpotliteIndexer``'s rebuilds (`nil` when nothing was
    /// rebuilt, and for indexes whose rebuilds have no ``IndexRebuildReason``). Not part of the `Codable` form,
    /// which keeps ``reason``.
    public var rebuildCause: IndexRebuildReason?
    /// How long the update took.
    public var seconds: Double = 0
    /// Values of number and date fields in the documents written that the index could not read (`"cheap"` for a
    /// price): those documents have no such value, so they are outside every range on the field and sort as records
    /// without one. The store keeps them as written.
    public var unreadableValues = 0
    /// The first few of them, described (`Item 4: price "cheap" is not a number`), to find in the store and fix.
    public var unreadableExamples: [String] = []
    /// How many unreadable values ``unreadableExamples`` describes at most.
    public static let unreadableExampleLimit = 5

    /// An empty summary: nothing done yet.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case token, transactions, changes, indexed, deleted, rebuilt, reason, seconds, unreadableValues,
             unreadableExamples
    }

    /// Counts `found` (from one document) and keeps the first few described.
    mutating func noteUnreadable(_ found: [String]) {
        noteUnreadable(count: found.count, examples: found)
    }

    /// Adds the unreadable values `other` counted (a commit's, a rebuild's), keeping the first few described.
    mutating func noteUnreadable(of other: IndexUpdateSummary) {
        noteUnreadable(count: other.unreadableValues, examples: other.unreadableExamples)
    }

    private mutating func noteUnreadable(count: Int, examples: [String]) {
        guard count > 0 else { return }
        unreadableValues += count
        let room = Self.unreadableExampleLimit - unreadableExamples.count
        if room > 0 { unreadableExamples += examples.prefix(room) }
    }
}

/// Posted after every commit of the index: the history token it reflects now (Core Spotlight's index-did-update).
public struct IndexDidUpdate: Sendable, Hashable {
    /// The history token the index reflects after this commit.
    public var token: HistoryToken?
    /// What the update in progress has done so far, this commit included (`seconds`: the time since it began).
    public var summary: IndexUpdateSummary
    /// What this commit alone did: counts since the previous commit of the same update (`seconds`: the time since
    /// that commit, or since the update began).
    public var commit = IndexUpdateSummary()
}

/// Progress of a long rebuild: documents done out of the rows to index.
public struct IndexProgress: Sendable, Hashable {
    /// Records processed so far.
    public var done: Int
    /// Records to process.
    public var total: Int
}

import Foundation

/// How far an author (a consumer such as the indexer) has processed history: a checkpoint kept in the store.
public struct HistoryPosition: Sendable, Hashable {
    /// The consumer's author name.
    public var author: String
    /// The last token the author processed.
    public var token: HistoryToken
    /// When the position was saved.
    public var timestamp: Date

    /// A position of `author` at `token`, saved at `timestamp`.
    public init(author: String, token: HistoryToken, timestamp: Date) {
        self.author = author
        self.token = token
        self.timestamp = timestamp
    }
}

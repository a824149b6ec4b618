/// How a query is answered: by its words, by its meaning, or by both fused.
public enum SearchMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// The keyword index alone (Xapian's ranking): the words of the query, with their stems and synonyms.
    case keyword
    /// The vector index alone: the records whose embeddings are nearest the query's (cosine), best first.
    case semantic
    /// Both lists fused by reciprocal rank: records found by their words and by their meaning rise together.
    case hybrid

    /// Whether answering in this mode needs the embedding model and the vector index.
    public var needsEmbeddings: Bool { self != .keyword }
}

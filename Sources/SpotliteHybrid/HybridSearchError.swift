import SpotliteSearch

/// Why a semantic or hybrid search cannot run: each case names the way out.
public enum HybridSearchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The configuration has no `[embeddings]` table (or no entity with `embed` fields).
    case embeddingsNotConfigured(mode: SearchMode)
    /// Semantic and hybrid results are ordered by meaning: they cannot be sorted by a field.
    case sortNeedsKeywordMode(mode: SearchMode, field: String)
    /// A semantic or hybrid search without words (filters alone): there is no meaning to compare with.
    case noWords(mode: SearchMode)
    /// The vector index holds nothing yet: `spotlite index update` embeds the records.
    case vectorsNotBuilt(path: String)
    /// The vectors were made by another model than the configured one.
    case vectorsOfAnotherModel(path: String, reason: String)

    public var description: String {
        switch self {
        case .embeddingsNotConfigured(let mode):
            return "\(mode.rawValue) search needs embeddings, and the configuration has none: add an [embeddings] table (model = \"\(EmbeddingsConfiguration.defaultModel)\") and embed = [\"FIELD\", …] with text fields to an entity, run `spotlite index update`, and search again; or search with --mode keyword"
        case .sortNeedsKeywordMode(let mode, let field):
            return "\(mode.rawValue) results are ordered by meaning and cannot be sorted by \(field); leave --sort out, or search with --mode keyword"
        case .noWords(let mode):
            return "\(mode.rawValue) search compares the meaning of words, and this query has none (filters alone); add words, or search with --mode keyword"
        case .vectorsNotBuilt(let path):
            return "the vector index \(path) holds no vectors yet: run `spotlite index update` to embed the records, then search again"
        case .vectorsOfAnotherModel(let path, let reason):
            return "the vectors in \(path) cannot be searched with the configured model: \(reason); run `spotlite index update`, which rebuilds them with it"
        }
    }
}

extension SearchResults {
    /// Results made outside the keyword searcher: a semantic or hybrid ranking (module `SpotliteHybrid`), a cache.
    public init(query: String, total: Int, corrected: String? = nil, suggestion: String? = nil, hits: [SearchHit],
                facets: [String: [FacetCount]] = [:], seconds: Double = 0) {
        self.query = query
        self.total = total
        self.corrected = corrected
        self.suggestion = suggestion
        self.hits = hits
        self.facets = facets
        self.seconds = seconds
    }
}

extension SearchHit {
    /// A hit made outside the keyword searcher (a record found by meaning alone, in module `SpotliteHybrid`).
    public init(entity: String, key: StoredValue, fields: [String: StoredValue], rank: Int, score: Double, percent: Int,
                snippet: String = "", keywordRank: Int? = nil, semanticRank: Int? = nil, similarity: Double? = nil) {
        self.entity = entity
        self.key = key
        self.rank = rank
        self.score = score
        self.percent = percent
        self.fields = fields
        self.snippet = snippet
        self.keywordRank = keywordRank
        self.semanticRank = semanticRank
        self.similarity = similarity
    }
}

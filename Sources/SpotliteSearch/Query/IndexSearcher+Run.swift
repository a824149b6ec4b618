/// One search, step by step: the text read and checked once, the plan of what the engine is asked besides the
/// text, the searches (the default operator's, then OR for `andThenOr`, then the corrections of a query that found
/// nothing), and the results built from the match set that answered.
extension IndexSearcher {
    /// What a request asks the engine for besides its text, worked out once for every search it runs.
    struct SearchPlan {
        var filters: [XapianQuery]
        var sort: XapianSort
        var facetFields: [IndexSchema.Field]
        var facetSlots: [UInt32]
        var checkAtLeast: Int
        var expansion: XapianExpansion?
        var sortsByRelevance: Bool
    }

    /// What the corrections of a query that found nothing offered and what was searched instead.
    struct Corrections {
        /// The corrected text offered (spelling, keyword values in their indexed case).
        var suggestion: String?
        /// The corrected text whose search answered, when it differs from the request's.
        var corrected: String?
        /// The filters in their indexed case, when they answered.
        var filters: [SearchFilter]?
    }

    func run(_ request: SearchRequest, on open: Open) throws -> (SearchResults, XapianSearchResults) {
        let text = try checkedText(of: request)
        var plan = try makePlan(for: request, on: open)
        var parsedDescription = ""
        var mset = try matchSet(for: text, request: request, plan: plan, on: open, parsedDescription: &parsedDescription)
        var corrections = Corrections()
        if Self.isEmpty(mset), request.correctsSpelling {
            (mset, corrections) = try searchCorrected(text, request: request, plan: &plan, on: open, found: mset,
                                                      parsedDescription: &parsedDescription)
        }
        var results = try makeResults(of: request, from: mset, plan: plan, corrections: corrections)
        if request.explains {
            results.explanation = try explanation(of: request, text: text, mset: mset, on: open,
                                                  parsedDescription: parsedDescription)
        }
        return (results, mset)
    }

    static func isEmpty(_ mset: XapianSearchResults) -> Bool { mset.totalBounds.upperBound == 0 }

    /// The filters, order, facets, matches to look at and expansion of `request`.
    func makePlan(for request: SearchRequest, on open: Open) throws -> SearchPlan {
        let filters = try filterQueries(entities: request.entities, filters: request.filters)
        let sort: XapianSort
        switch request.sort {
        case .relevance: sort = .relevance
        case let .field(name, ascending):
            let slot = try schema.sortField(named: name).slot!
            sort = ascending ? .valueAscending(slot: slot) : .valueDescending(slot: slot)
        }
        let facetFields = try request.facets.map { try schema.facetField(named: $0) }
        let facetSlots = facetFields.compactMap(\.slot)
        // Facet counts are exact only over every match. Otherwise look at a few more matches than the page needs,
        // which makes the total exact for small result sets at a negligible cost.
        let checkAtLeast = facetSlots.isEmpty
            ? Self.saturatingSum(request.offset, max(request.limit, Self.exactTotalThreshold))
            : try open.database.documentCount()
        let expansion = request.sort == .relevance ? try expansionOptions(for: request) : nil
        return SearchPlan(filters: filters, sort: sort, facetFields: facetFields, facetSlots: facetSlots,
                          checkAtLeast: checkAtLeast, expansion: expansion, sortsByRelevance: request.sort == .relevance)
    }

    /// `text` searched with the request's default operator, then, when that found nothing and the request says
    /// `andThenOr`, with OR.
    func matchSet(for text: QueryText, request: SearchRequest, plan: SearchPlan, on open: Open,
                  parsedDescription: inout String) throws -> XapianSearchResults {
        let firstOperator: XapianQueryParser.DefaultOperator = request.defaultOperator == .or ? .or : .and
        let mset = try execute(text, firstOperator, request: request, plan: plan, on: open,
                               parsedDescription: &parsedDescription)
        guard Self.isEmpty(mset), request.defaultOperator == .andThenOr else { return mset }
        return try execute(text, .or, request: request, plan: plan, on: open, parsedDescription: &parsedDescription)
    }

    /// One search of the engine: `text` parsed with `op`, the proximity boost's words, the plan's filters.
    func execute(_ text: QueryText, _ op: XapianQueryParser.DefaultOperator, request: SearchRequest, plan: SearchPlan,
                 on open: Open, parsedDescription: inout String) throws -> XapianSearchResults {
        try open.parser.setDefaultOperator(op)
        let parsed = try parse(text, with: open.parser, partial: request.prefix)
        if request.explains { parsedDescription = parsed.description }
        var proximity: XapianProximity?
        // A query that only excludes has no words to find near each other.
        if plan.sortsByRelevance, let boost = ranking.proximity, text.excludedItems == nil {
            // Applied to the best matches only (re-ranking): over every match it read the positions of every
            // document holding two of the words, about 11 times the cost of the search (docs/benchmarks.md, "Query speed and the proximity boost").
            proximity = XapianProximity(words: try parseWords(text, with: open.parser), window: boost.window,
                                        weight: boost.weight, depth: boost.depth, idSlot: DocumentBuilder.idSlot)
        }
        let query = plan.filters.isEmpty ? parsed : try XapianQuery.filter(parsed, by: plan.filters)
        do {
            return try open.database.search(query, offset: request.offset, limit: request.limit,
                                            checkAtLeast: plan.checkAtLeast, sort: plan.sort, bm25: bm25,
                                            facetSlots: plan.facetSlots, timeLimit: request.timeLimit,
                                            expansion: plan.expansion, proximity: proximity,
                                            explain: request.explains)
        } catch SearchError.engine(let error, nil) where error.code == .timeLimit {
            throw SearchError.overBudget(query: String(text.text), exceeded: .time(limit: request.timeLimit))
        } catch SearchError.engine(let error, nil) where error.code == .wildcard || error.code == .queryParser {
            throw SearchError.invalidQuery(query: String(text.text), reason: .engine(error.message))
        } catch SearchError.engine(let error, nil) where !error.code.isNetwork {
            // A network failure passes as it is: a placed shard went away, and search() opens the shards again.
            throw SearchError.reading(error, path: indexPath)
        }
    }

    /// A query that found nothing (`found`), corrected: Xapian's spelling correction kept to the words the index
    /// lacks, keyword values and filter values in the case the index has them; searched again when anything was
    /// corrected, and the new match set kept when it found something (the plan then holds the corrected filters).
    func searchCorrected(_ text: QueryText, request: SearchRequest, plan: inout SearchPlan, on open: Open,
                         found: XapianSearchResults,
                         parsedDescription: inout String) throws -> (XapianSearchResults, Corrections) {
        var corrections = Corrections()
        _ = try parse(text, with: open.parser, spelling: true)
        corrections.suggestion = try keepingIndexedWords(of: text, in: try open.parser.correctedQueryString() ?? "",
                                                         database: open.database)
        // Keyword values are exact: `section:Editors` finds nothing where `section:editors` would.
        let spelled = corrections.suggestion.flatMap { $0.isEmpty ? nil : QueryText($0) } ?? text
        if let cased = try keywordCaseCorrection(of: spelled, in: open.database) {
            corrections.suggestion = cased
        }
        // Filter values are exact too: `--filter section:Utils` finds nothing where `section:utils` would.
        var filtersRetried = plan
        if let cased = try filterCaseCorrection(of: request.filters, in: open.database) {
            corrections.filters = cased
            filtersRetried.filters = try filterQueries(entities: request.entities, filters: cased)
        }
        let retryText = corrections.suggestion.flatMap { $0.isEmpty || $0 == request.query ? nil : $0 }
            ?? (corrections.filters != nil ? request.query : nil)
        guard let retryText else { return (found, corrections) }
        let retried = try matchSet(for: QueryText(retryText), request: request, plan: filtersRetried, on: open,
                                 parsedDescription: &parsedDescription)
        guard !Self.isEmpty(retried) else {
            corrections.filters = nil
            return (found, corrections)
        }
        plan = filtersRetried
        corrections.corrected = retryText == request.query ? nil : retryText
        return (retried, corrections)
    }

    /// The hits and facets of `mset` (the match set that answered), with what the corrections did.
    func makeResults(of request: SearchRequest, from mset: XapianSearchResults, plan: SearchPlan,
                     corrections: Corrections) throws -> SearchResults {
        var facets: [String: [FacetCount]] = [:]
        for field in plan.facetFields {
            let counts = Self.facetCounts(mset.facets[field.slot!] ?? [:])
            facets[field.name] = counts.map { FacetCount(value: $0.key, count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }
        }
        var hits: [SearchHit] = []
        hits.reserveCapacity(mset.hits.count)
        for hit in mset.hits {
            // Skipping it would answer "1 result" with no hit: a damaged document is an error naming the repair.
            guard let data = DocumentData(decoding: hit.data) else {
                throw SearchError.indexCorrupt(path: indexPath, reason: "the stored data of document \(hit.docid) is damaged")
            }
            hits.append(SearchHit(entity: data.entity, key: data.key, rank: hit.rank + 1,
                                  score: hit.weight, percent: hit.percent, fields: data.fields, snippet: ""))
        }
        var results = SearchResults(query: request.query, total: mset.estimatedTotal, corrected: corrections.corrected,
                                    suggestion: corrections.suggestion, hits: hits, facets: facets, seconds: 0)
        results.correctedFilters = corrections.filters
        return results
    }

    /// How `request` was parsed, expanded and weighed, hit by hit, and the synonyms and completions it used.
    func explanation(of request: SearchRequest, text: QueryText, mset: XapianSearchResults, on open: Open,
                     parsedDescription: String) throws -> SearchExplanation {
        var hitTerms: [[SearchExplanation.TermWeight]] = []
        for index in mset.hits.indices where index < mset.hitTerms.count {
            hitTerms.append(mset.hitTerms[index].map {
                SearchExplanation.TermWeight(term: $0.term, frequency: $0.wdf, weight: $0.weight)
            })
        }
        var explanation = SearchExplanation(
            parsedQuery: parsedDescription, executedQuery: try mset.queryDescription(),
            addedTerms: mset.expansionTerms.map {
                SearchExplanation.AddedTerm(term: $0.term, expansionWeight: $0.expansionWeight, scale: $0.scale)
            },
            hitTerms: hitTerms)
        explanation.synonyms = synonyms.applied(to: text, sparingLastWord: request.prefix).uses
        if request.prefix, let word = text.wordBeingTyped {
            explanation.typedWord = word
            explanation.completions = try completions(of: word, in: open.database)
        }
        return explanation
    }
}

import Foundation
import GRDB
import SpotliteStore
import Synchronization

/// Answers queries from a Spotlite index, and stays correct while an indexer updates it or switches it to a rebuilt
/// generation: each search follows the live generation and reopens (and retries) when the index changed under it.
///
/// Thread-safe: the Xapian handles are owned by a mutex, so a searcher can be shared by tasks (searches run one at a
/// time per searcher; create several searchers for parallel queries).
public final class IndexSearcher: Sendable {
    /// What the index holds and how it was built (fields, prefixes, language, stopwords).
    public let configuration: SpotliteConfiguration
    /// The index directory.
    public let indexPath: String
    /// When given, snippets are cut from the records' current text in the store; otherwise from stored fields.
    public let store: SpotliteStore?

    let schema: IndexSchema
    private let directory: IndexDirectory
    let state: Mutex<State>
    /// How matches are weighted and queries widened.
    public let ranking: RankingOptions
    private let bm25: XapianBM25
    /// Words and phrases that also find others (the configuration's `[search] synonyms`).
    public let synonyms: QuerySynonyms
    static let wildcardLimit: UInt32 = 1000
    /// Xapian's boolean operators (upper case only): they do not count toward ``SearchRequest/maximumWords``.
    static let booleanOperators: Set<Substring> = ["OR", "AND", "NOT", "XOR", "NEAR", "ADJ"]
    /// The most words a word being typed (``SearchRequest/prefix``) completes to, the most frequent ones: the
    /// completions are weighted as one word, so more of them would add little but cost.
    static let partialLimit: UInt32 = 100
    /// Snippet texts of pages up to this size are read with a statement the store's connection keeps.
    static let cachedSnippetStatementSize = 100
    /// Totals up to this many matches are counted exactly rather than estimated.
    static let exactTotalThreshold = 100

    /// Whether searches of an index whose shards are placed at locations answer from the shards that can be
    /// reached when others cannot (``SearchResults/unavailableShards`` names those left out), instead of failing
    /// with ``SearchError/shardUnavailable(shard:reason:)``.
    public let allowsPartialResults: Bool

    final class Open {
        let stub: IndexDirectory.StubIdentity
        let database: XapianDatabase
        let parser: XapianQueryParser
        /// Stems the words of snippet texts, remembering them from search to search.
        let snippetStemmer: XapianStemmer
        /// Shards left out because they could not be reached (partial results allowed).
        let missing: [String]

        init(stub: IndexDirectory.StubIdentity, database: XapianDatabase, parser: XapianQueryParser,
             snippetStemmer: XapianStemmer, missing: [String] = []) {
            self.stub = stub
            self.database = database
            self.parser = parser
            self.snippetStemmer = snippetStemmer
            self.missing = missing
        }
    }

    struct State: ~Copyable {
        var open: Open?
    }

    /// Creates a searcher of the index at `indexPath` (default: the configuration's). Nothing is opened until the
    /// first search, so a searcher may be created before the index exists.
    ///
    /// - Parameters:
    ///   - configuration: what the index holds and how it was built (fields, prefixes, language, stopwords).
    ///   - indexPath: the index directory (default: the configuration's).
    ///   - store: when given, snippets are cut from the records' current text in the store, so text fields need
    ///     not be stored in the index.
    ///   - ranking: how matches are weighted and queries widened (default: the configuration's `[search]` table).
    ///   - allowsPartialResults: answer from the reachable shards when some placed shards cannot be reached.
    ///
    /// - Throws: ``SearchError/invalidRanking(reason:)`` for ranking options out of range;
    ///   ``ConfigurationError`` (kind ``ConfigurationError/Kind/conflict``) when the configuration's fields cannot
    ///   share one index (a configuration that passed ``SpotliteConfiguration/validate(source:)`` always can).
    public init(configuration: SpotliteConfiguration, indexPath: String? = nil, store: SpotliteStore? = nil,
                ranking: RankingOptions? = nil, allowsPartialResults: Bool = false) throws {
        self.configuration = configuration
        self.allowsPartialResults = allowsPartialResults
        self.indexPath = indexPath ?? configuration.indexPath
        self.store = store
        let ranking = ranking ?? configuration.ranking
        try Self.validate(ranking)
        self.ranking = ranking
        self.schema = try IndexSchema(configuration: configuration)
        self.directory = IndexDirectory(path: self.indexPath, remote: configuration.remote)
        self.bm25 = ranking.bm25
        self.synonyms = QuerySynonyms(configuration.synonyms)
        self.state = Mutex(State(open: nil))
    }

    /// Number of documents in the live generation.
    ///
    /// - Throws: ``SearchError/indexMissing(path:)`` without an index; ``SearchError/indexCorrupt(path:reason:)``
    ///   when it cannot be read; ``SearchError/engine(_:outcome:)`` for other engine failures.
    public func documentCount() throws -> Int {
        try state.withLock { state in
            let open = try currentOpen(&state)
            do {
                return try open.database.documentCount()
            } catch let error as XapianError {
                throw SearchError.reading(error, path: indexPath)
            }
        }
    }

    /// Runs a search.
    ///
    /// - Throws: ``SearchError/invalidQuery(query:reason:)`` when the text cannot be parsed;
    ///   ``SearchError/overBudget(query:reason:)`` when the request asks for more than a search may cost;
    ///   ``SearchError/unknownEntity(_:known:)`` and ``SearchError/unknownField(_:reason:)`` for names the
    ///   configuration does not describe; ``SearchError/indexMissing(path:)`` without an index;
    ///   ``SearchError/indexCorrupt(path:reason:)`` when it cannot be read; ``SearchError/engine(_:outcome:)`` for
    ///   other engine failures.
    public func search(_ request: SearchRequest) throws -> SearchResults {
        let clock = ContinuousClock()
        let started = clock.now
        var results = try SearchError.translatingEngineErrors { try state.withLock { state in
            // A placed shard that went away since the last search fails the search under way: open the shards
            // again once, which names the shard that is gone (or leaves it out when partial results are allowed).
            var attempts = 0
            while true {
                do {
                    let open = try currentOpen(&state)
                    var (results, mset) = try run(request, on: open)
                    if request.snippet.length > 0 {
                        try addSnippets(to: &results, from: mset, request: request, stemmer: open.snippetStemmer)
                    }
                    results.unavailableShards = open.missing
                    return results
                } catch let error as XapianError where error.code.isNetwork && directory.hasShardMap {
                    state.open = nil
                    attempts += 1
                    guard attempts < 2 else { throw Self.shardError(error) }
                }
            }
        } }
        let elapsed = clock.now - started
        results.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return results
    }

    /// The live generation, opened; reopened when a rebuild switched generations.
    func currentOpen(_ state: inout State) throws -> Open {
        // Every switch (a rebuild, a deleted and rebuilt index) renames a new stub into place: while the stub is
        // the same file, so is the generation, and one stat per search is all it costs to know.
        guard let stub = directory.liveIdentity else {
            state.open = nil
            throw SearchError.indexMissing(path: indexPath)
        }
        // A partial open tries the missing shards again at each search: they may be back.
        if let open = state.open, open.stub == stub, open.missing.isEmpty {
            // A Xapian reader stays on the revision it opened: move to the newest commit before each search.
            do {
                try open.database.reopen()
                return open
            } catch let error as XapianError where error.code == .network || error.code == .networkTimeout {
                state.open = nil  // a shard went away: open them again below, which names it
            } catch let error as XapianError {
                throw SearchError.reading(error, path: indexPath)
            }
        }
        if let layout = directory.liveLayout(), layout.isPlaced {
            let (database, missing): (XapianDatabase, [String])
            do {
                (database, missing) = try layout.openCombined(allowPartial: allowsPartialResults)
            } catch let error as XapianError {
                throw SearchError.reading(error, path: indexPath)
            }
            let open = Open(stub: stub, database: database, parser: try makeParser(database: database),
                            snippetStemmer: try makeSnippetStemmer(), missing: missing)
            state.open = open
            return open
        }
        guard let generation = directory.liveGeneration else {
            state.open = nil
            throw SearchError.indexMissing(path: indexPath)
        }
        let database: XapianDatabase
        do {
            database = try XapianDatabase(path: directory.generationPath(generation))
        } catch let error as XapianError {
            throw SearchError.reading(error, path: indexPath)
        }
        try checkReplicaConfiguration(database)
        let parser = try makeParser(database: database)
        let open = Open(stub: stub, database: database, parser: parser, snippetStemmer: try makeSnippetStemmer())
        state.open = open
        return open
    }

    /// On a read replica, nothing rebuilds an index that another configuration describes: its field prefixes and
    /// value slots would be read wrongly, silently. Refuse it, naming the way out.
    private func checkReplicaConfiguration(_ database: XapianDatabase) throws {
        guard let source = directory.replicaSource else { return }
        let built = try? database.metadata(forKey: IndexMetadata.fingerprintKey)
        if let built, built != schema.fingerprint {
            throw ReplicationError.configurationMismatch(path: indexPath, source: source)
        }
    }

    /// A network failure in the middle of a search, naming the shard from Xapian's context (`remote:tcp(HOST:PORT)`).
    static func shardError(_ error: XapianError) -> SearchError {
        var shard = "of the index"
        if let start = error.message.range(of: "remote:tcp("),
           let end = error.message[start.upperBound...].firstIndex(of: ")") {
            shard = String(error.message[start.upperBound..<end])
        }
        return .shardUnavailable(shard: shard, reason: "\(error.type): \(error.message)")
    }

    private func makeParser(database: XapianDatabase) throws -> XapianQueryParser {
        let parser = try XapianQueryParser(language: schema.language == "none" ? nil : schema.language,
                                           stopwords: schema.stopwords == "none" ? .none : .english)
        try parser.setDatabase(database)
        try parser.setStemmingStrategy(Self.parserStemming(ranking.stemming))
        try parser.setWildcardLimit(Self.wildcardLimit)
        try parser.setPartialLimit(Self.partialLimit)
        try parser.addBooleanPrefix(field: IndexSchema.entityQueryPrefix, prefix: IndexSchema.entityTermPrefix)
        var added = Set<String>()
        for name in schema.entityNames {
            for field in try schema.entity(named: name).fields {
                guard let queryPrefix = field.queryPrefix, added.insert(field.type.rawValue + ":" + queryPrefix).inserted else { continue }
                switch field.type {
                case .text:
                    if let termPrefix = field.termPrefix { try parser.addPrefix(field: queryPrefix, prefix: termPrefix) }
                case .keyword:
                    if let booleanPrefix = field.booleanPrefix { try parser.addBooleanPrefix(field: queryPrefix, prefix: booleanPrefix) }
                case .number:
                    if let slot = field.slot { try parser.addNumberRange(slot: slot, prefix: queryPrefix + ":") }
                case .date:
                    if let slot = field.slot { try parser.addDateRange(slot: slot, prefix: queryPrefix + ":") }
                case .stored:
                    break
                }
            }
        }
        return parser
    }

    private func makeSnippetStemmer() throws -> XapianStemmer {
        try XapianStemmer(language: snippetLanguage)
    }

    /// The stemmer language of the index's text, for snippets (nil: none).
    private var snippetLanguage: String? { schema.language == "none" ? nil : schema.language }

    /// With CJK n-grams (`.standard`): the indexer splits runs of Chinese, Japanese and Korean characters the same way.
    /// `.pureNot`: `NOT vim` alone means every document but those with vim (Xapian refuses it otherwise).
    private static let flags: XapianQueryParser.Flags = [.standard, .wildcard, .pureNot]

    /// Parses `text`; with `spelling`, the parser also works out a corrected query string, which costs more than
    /// the search itself (every word is looked up in the spelling table), so only queries that found nothing ask.
    /// `checked: false` skips the check for Xapian's plain-word fallback, for text a checked parse already read.
    /// `partial`: the last word also matches as the start of words (search as you type). Synonyms widen the words
    /// of every parse but the spelling one, whose corrected text users read.
    /// `widening: false` leaves synonyms out (the words whose nearness the proximity boost rewards are the user's).
    private func parse(_ text: String, with parser: XapianQueryParser, spelling: Bool = false,
                       checked: Bool = true, partial: Bool = false, widening: Bool = true) throws -> XapianQuery {
        let synonyms = widening ? self.synonyms : QuerySynonyms()
        do {
            if let excluded = Self.excludedItems(of: text) {
                let items = try excluded.map {
                    try Self.queryOrMatchAll(Self.parseAsWritten(synonyms.applied(to: String($0)).text, with: parser,
                                                                 flags: Self.flags, query: text, checked: checked),
                                             text: String($0))
                }
                return try .andNot(.matchAll(), excluding: items)
            }
            var flags = spelling ? Self.flags.union(.spellingCorrection) : Self.flags
            if partial { flags.insert(.partial) }
            let widened = spelling ? text : synonyms.applied(to: text, sparingLastWord: partial).text
            let query = try Self.parseAsWritten(widened, with: parser, flags: flags, query: text, checked: checked)
            return try Self.queryOrMatchAll(query, text: text)
        } catch let error as XapianError {
            // Xapian says only that no range processor took a range: name the field and the bound.
            let explained = error.message.contains("Unknown range operation") ? schema.rangeFailure(in: text) : nil
            throw SearchError.invalidQuery(query: text, reason: explained ?? error.message)
        }
    }

    /// `text` parsed with `flags`, or an error when Xapian could not read its operators or signs. On a syntax error
    /// its grammar has no message for (brackets holding only excluded words, `editor AND (-vim -emacs)`; an operator
    /// at the end, `vim NEAR`), Xapian parses the text again as plain words: that query searched "and", "vim" and
    /// "emacs" for any of them. Such a parse equals the plain one though the text has operators or signs.
    /// - Parameter query: the whole query, as the error names it.
    private static func parseAsWritten(_ text: String, with parser: XapianQueryParser, flags: XapianQueryParser.Flags,
                                       query: String, checked: Bool) throws -> XapianQuery {
        guard checked, hasOperatorsOrExclusions(text) else { return try parser.parse(text, flags: flags) }
        // Plain first: the parse with `flags` leaves the spelling correction for the caller to read. Text that fails
        // as plain words (a signed range, which only the full syntax reads) was not parsed again as them.
        let plain = try? parser.parse(text, flags: [.cjkNgram])
        let parsed = try parser.parse(text, flags: flags)
        guard parsed.description != plain?.description else {
            throw SearchError.invalidQuery(query: query, reason: "Xapian cannot read its operators and signs as written and would search them as words (brackets holding only excluded words, such as (-vim -emacs), or an operator without words on both sides); check the brackets and operators, and write a group that excludes as NOT (vim OR emacs)")
        }
        return parsed
    }

    /// Whether `text` has, outside double quotes, an operator (`AND`, `OR`, `NOT`, `XOR`, `NEAR`, `ADJ`, as Xapian
    /// reads them: in capitals) or a word excluded with `-`.
    static func hasOperatorsOrExclusions(_ text: String) -> Bool {
        guard text.contains("-") || text.contains(where: \.isUppercase) else { return false }
        let operators: Set<Substring> = ["AND", "OR", "NOT", "XOR", "NEAR", "ADJ"]
        for word in IndexSchema.wordsOutsidePhrases(in: text) {
            let bare = word.drop(while: { $0 == "(" })
            if operators.contains(bare.prefix { $0 != "/" }) { return true }
            if bare.first == "-", let next = bare.dropFirst().first, next != "-", !next.isWhitespace { return true }
        }
        return false
    }

    /// What an empty parse means. Blank text (or a lone `*`) asks for every document, typically with filters.
    /// Anything else that parses to nothing (a lone `"` or `(`, a reversed range such as `rev:5..1`, only
    /// operators) matches nothing: answering with the whole index would be a wrong answer nobody notices.
    static func queryOrMatchAll(_ parsed: XapianQuery, text: String) throws -> XapianQuery {
        guard parsed.isEmpty else { return parsed }
        return isMatchAllText(text) ? try .matchAll() : try .matchNothing()
    }

    /// The filter queries of a request: its entities (any of them), and its keyword filters (one field's values are
    /// alternatives, different fields all apply).
    private func filterQueries(entities: [String], filters: [SearchFilter]) throws -> [XapianQuery] {
        var queries: [XapianQuery] = []
        if !entities.isEmpty {
            for entity in entities { _ = try schema.entity(named: entity) }
            queries.append(try .or(entities.map { try .term(IndexSchema.entityTermPrefix + $0) }))
        }
        var byField: [String: [XapianQuery]] = [:]
        for filter in filters {
            let field = try schema.filterField(named: filter.field)
            let term = (field.booleanPrefix ?? "") + filter.value
            // `tags:role::*`: every value starting with `role::`, as in the query text (KeywordFieldProcessor).
            byField[filter.field, default: []].append(
                filter.value.hasSuffix("*") ? try .wildcard(String(term.dropLast()), limit: Self.wildcardLimit) : try .term(term))
        }
        for name in byField.keys.sorted() { queries.append(try .or(byField[name]!)) }
        return queries
    }

    /// The items of `text` (words, quoted phrases, bracketed groups) without their `-` when every one of them is
    /// excluded with one `-`; nil otherwise. Xapian 1.4 reads such a query as its items without the signs: `-vim` found
    /// the records with vim, `-section:editors` the editors, `-"text editor"` records with either word.
    static func excludedItems(of text: String) -> [Substring]? {
        var items: [Substring] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard !text[index].isWhitespace else {
                index = text.index(after: index)
                continue
            }
            let start = index
            var depth = 0
            var inQuotes = false
            while index < text.endIndex {
                let character = text[index]
                if character == "\"" {
                    inQuotes.toggle()
                } else if !inQuotes, character == "(" {
                    depth += 1
                } else if !inQuotes, character == ")" {
                    depth = max(0, depth - 1)
                } else if !inQuotes, depth == 0, character.isWhitespace {
                    break
                }
                index = text.index(after: index)
            }
            let item = text[start..<index]
            // `--verbose` is an option's name, which Xapian searches as the word.
            guard item.first == "-", item.count > 1, item.dropFirst().first != "-" else { return nil }
            items.append(item.dropFirst())
        }
        return items.isEmpty ? nil : items
    }

    /// Whether `text` asks for every document: nothing but white space and asterisks.
    static func isMatchAllText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == "*" || $0.properties.isWhitespace }
    }

    /// Refuses a request that would cost more than a search may (see ``SearchRequest/maximumLimit`` and its
    /// neighbours), or whose text cannot be passed on whole.
    static func checkBudget(_ request: SearchRequest) throws {
        guard request.offset >= 0, request.limit >= 0 else {
            throw SearchError.invalidQuery(query: request.query, reason: "offset and limit must not be negative")
        }
        // Xapian reads text up to a NUL byte only: the rest of the query would be dropped without a word.
        guard !request.query.utf8.contains(0) else {
            throw SearchError.invalidQuery(query: request.query.replacingOccurrences(of: "\0", with: "\\0"),
                                           reason: "it contains a NUL character, which cannot be searched for; remove it")
        }
        func over(_ reason: String) -> SearchError { .overBudget(query: request.query, reason: reason) }
        if request.limit > SearchRequest.maximumLimit {
            throw over("a search returns at most \(SearchRequest.maximumLimit) hits, not \(request.limit); page through more with the offset")
        }
        if request.offset > SearchRequest.maximumOffset {
            throw over("a search skips at most \(SearchRequest.maximumOffset) hits, not \(request.offset); narrow the query or sort instead of paging that deep")
        }
        if request.query.utf8.count > SearchRequest.maximumQueryBytes {
            throw over("the text has \(request.query.utf8.count) bytes, more than \(SearchRequest.maximumQueryBytes); shorten it")
        }
        // Boolean operators join words; they are not words the search looks for.
        let words = request.query.split(whereSeparator: { $0.isWhitespace })
            .filter { !Self.booleanOperators.contains($0) }.count
        if words > SearchRequest.maximumWords {
            throw over("it has \(words) words, more than \(SearchRequest.maximumWords); keep the words that matter")
        }
    }

    private func run(_ request: SearchRequest, on open: Open) throws -> (SearchResults, XapianSearchResults) {
        try Self.checkBudget(request)
        if let problem = schema.prefixProblem(in: request.query) ?? schema.rangeProblem(in: request.query) {
            throw SearchError.invalidQuery(query: request.query, reason: problem)
        }
        var filters = try filterQueries(entities: request.entities, filters: request.filters)
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

        let sortsByRelevance = request.sort == .relevance
        let expansion = sortsByRelevance ? try expansionOptions(for: request) : nil
        var parsedDescription = ""
        func execute(_ text: String, _ op: XapianQueryParser.DefaultOperator) throws -> XapianSearchResults {
            try open.parser.setDefaultOperator(op)
            let parsed = try parse(text, with: open.parser, partial: request.prefix)
            if request.explains { parsedDescription = parsed.description }
            var proximity: XapianProximity?
            // A query that only excludes has no words to find near each other.
            if sortsByRelevance, let boost = ranking.proximity, Self.excludedItems(of: text) == nil {
                // Applied to the best matches only (re-ranking): over every match it read the positions of every
                // document holding two of the words, about 11 times the cost of the search (docs/benchmarks.md, "Query speed and the proximity boost").
                proximity = XapianProximity(words: try parseWords(text, with: open.parser), window: boost.window,
                                            weight: boost.weight, depth: boost.depth)
            }
            let query = filters.isEmpty ? parsed : try XapianQuery.filter(parsed, by: filters)
            do {
                return try open.database.search(query, offset: request.offset, limit: request.limit,
                                                checkAtLeast: checkAtLeast, sort: sort, bm25: bm25,
                                                facetSlots: facetSlots, timeLimit: request.timeLimit,
                                                expansion: expansion, proximity: proximity,
                                                explain: request.explains)
            } catch let error as XapianError where error.code == .timeLimit {
                throw SearchError.overBudget(query: text, reason: "it ran longer than its time limit of \(request.timeLimit) s; narrow it with more words, a filter or fewer wildcards")
            } catch let error as XapianError where error.code == .wildcard || error.code == .queryParser {
                throw SearchError.invalidQuery(query: text, reason: error.message)
            } catch let error as XapianError where error.code == .network || error.code == .networkTimeout {
                throw error  // a placed shard went away: search() opens the shards again
            } catch let error as XapianError {
                throw SearchError.reading(error, path: indexPath)
            }
        }

        func isEmpty(_ mset: XapianSearchResults) -> Bool { mset.totalBounds.upperBound == 0 }
        let firstOperator: XapianQueryParser.DefaultOperator = request.defaultOperator == .or ? .or : .and
        var mset = try execute(request.query, firstOperator)
        if isEmpty(mset), request.defaultOperator == .andThenOr {
            mset = try execute(request.query, .or)
        }
        var suggestion: String?
        if isEmpty(mset), request.correctsSpelling {
            _ = try parse(request.query, with: open.parser, spelling: true)
            suggestion = try keepingIndexedWords(of: request.query, in: try open.parser.correctedQueryString() ?? "",
                                                 database: open.database)
        }
        var corrected: String?
        // Keyword values are exact: `section:Editors` finds nothing where `section:editors` would.
        if isEmpty(mset), request.correctsSpelling,
           let cased = try keywordCaseCorrection(of: suggestion.flatMap { $0.isEmpty ? nil : $0 } ?? request.query,
                                                 in: open.database) {
            suggestion = cased
        }
        // Filter values are exact too: `--filter section:Utils` finds nothing where `section:utils` would.
        var correctedFilters: [SearchFilter]?
        if isEmpty(mset), request.correctsSpelling,
           let cased = try filterCaseCorrection(of: request.filters, in: open.database) {
            correctedFilters = cased
            filters = try filterQueries(entities: request.entities, filters: cased)
        }
        let retryText = suggestion.flatMap { $0.isEmpty || $0 == request.query ? nil : $0 }
            ?? (correctedFilters != nil ? request.query : nil)
        if isEmpty(mset), let retryText {
            var retried = try execute(retryText, firstOperator)
            if isEmpty(retried), request.defaultOperator == .andThenOr { retried = try execute(retryText, .or) }
            if !isEmpty(retried) {
                mset = retried
                corrected = retryText == request.query ? nil : retryText
            } else {
                correctedFilters = nil
            }
        }
        var facets: [String: [FacetCount]] = [:]
        for field in facetFields {
            let counts = Self.facetCounts(mset.facets[field.slot!] ?? [:])
            facets[field.name] = counts.map { FacetCount(value: $0.key, count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }
        }
        var hits: [SearchHit] = []
        var hitTerms: [[SearchExplanation.TermWeight]] = []
        hits.reserveCapacity(mset.hits.count)
        for (index, hit) in mset.hits.enumerated() {
            // Skipping it would answer "1 result" with no hit: a damaged document is an error naming the repair.
            guard let data = DocumentData(decoding: hit.data) else {
                throw SearchError.indexCorrupt(path: indexPath, reason: "the stored data of document \(hit.docid) is damaged")
            }
            hits.append(SearchHit(entity: data.entity, key: data.key, rank: hit.rank + 1,
                                  score: hit.weight, percent: hit.percent, fields: data.fields, snippet: ""))
            if request.explains, index < mset.hitTerms.count {
                hitTerms.append(mset.hitTerms[index].map {
                    SearchExplanation.TermWeight(term: $0.term, frequency: $0.wdf, weight: $0.weight)
                })
            }
        }
        var results = SearchResults(query: request.query, total: mset.estimatedTotal, corrected: corrected,
                                    suggestion: suggestion, hits: hits, facets: facets, seconds: 0)
        results.correctedFilters = correctedFilters
        if request.explains {
            results.explanation = SearchExplanation(
                parsedQuery: parsedDescription, executedQuery: try mset.queryDescription(),
                addedTerms: mset.expansionTerms.map {
                    SearchExplanation.AddedTerm(term: $0.term, expansionWeight: $0.expansionWeight, scale: $0.scale)
                },
                hitTerms: hitTerms)
            results.explanation?.synonyms = synonyms.applied(to: request.query, sparingLastWord: request.prefix).uses
            if request.prefix, let word = Self.wordBeingTyped(in: request.query) {
                results.explanation?.typedWord = word
                results.explanation?.completions = try completions(of: word, in: open.database)
            }
        }
        return (results, mset)
    }

    /// The last word of `text` when nothing follows it and it is a plain word, which a prefix search completes.
    static func wordBeingTyped(in text: String) -> String? {
        guard let last = text.last, !last.isWhitespace,
              let word = text.split(whereSeparator: \.isWhitespace).last else { return nil }
        let bare = word.drop { $0 == "(" || $0 == "+" || $0 == "-" }
        guard !bare.isEmpty, !bare.contains(where: { "\":*()".contains($0) }) else { return nil }
        return bare.lowercased()
    }

    /// The words of the index's text starting with `word`, the most frequent first, as many as ``explanationCompletions``.
    private func completions(of word: String, in database: XapianDatabase) throws -> [String] {
        let terms = try database.terms(prefix: word, limit: 0)
        return terms.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(Self.explanationCompletions).map(\.key)
    }

    /// How many completions of a word being typed an explanation lists.
    static let explanationCompletions = 10

    /// The expansion a request asks for: its own, none, or the ranking's.
    private func expansionOptions(for request: SearchRequest) throws -> XapianExpansion? {
        let chosen: QueryExpansion?
        switch request.expansion {
        case .configured: chosen = ranking.expansion
        case .off: chosen = nil
        case let .on(expansion):
            try Self.validate(expansion)
            chosen = expansion
        }
        // Stems and their unstemmed twins are both added (a word then counts about twice): better on the judged sets
        // than stems alone, at the same cost per added term (docs/benchmarks.md, "Relevance on judged collections").
        return chosen.map {
            XapianExpansion(documents: $0.documents, terms: $0.terms, weight: $0.weight, stemmedOnly: false,
                            minimumTerms: $0.minimumWords)
        }
    }

    /// `text` parsed without stemming, for the positions of its words (stemmed terms have none).
    private func parseWords(_ text: String, with parser: XapianQueryParser) throws -> XapianQuery {
        try parser.setStemmingStrategy(.none)
        defer { try? parser.setStemmingStrategy(Self.parserStemming(ranking.stemming)) }
        // Only after `text` was parsed, checked, with stemming: without it the operators read the same.
        return try parse(text, with: parser, checked: false, widening: false)
    }

    static func parserStemming(_ stemming: RankingOptions.Stemming) -> XapianQueryParser.StemmingStrategy {
        switch stemming {
        case .some: .some
        case .all: .allZ
        }
    }

    /// Checks ranking options given in Swift (the configuration's are checked when it is loaded).
    static func validate(_ ranking: RankingOptions) throws {
        for (name, value) in [("k1", ranking.k1), ("b", ranking.b), ("minimumNormalisedLength", ranking.minimumNormalisedLength)]
        where !value.isFinite || value < 0 {
            throw SearchError.invalidRanking(reason: "\(name) is \(value); it must be a finite number ≥ 0")
        }
        if ranking.b > 1 { throw SearchError.invalidRanking(reason: "b is \(ranking.b); it must be between 0 and 1") }
        if let proximity = ranking.proximity {
            if proximity.window < 2 {
                throw SearchError.invalidRanking(reason: "the proximity window is \(proximity.window); it must be at least 2 positions")
            }
            if !proximity.weight.isFinite || proximity.weight <= 0 {
                throw SearchError.invalidRanking(reason: "the proximity weight is \(proximity.weight); it must be a finite number > 0")
            }
            if proximity.depth < 1 {
                throw SearchError.invalidRanking(reason: "the proximity depth is \(proximity.depth); it must re-rank at least 1 match")
            }
        }
        if let expansion = ranking.expansion { try validate(expansion) }
    }

    static func validate(_ expansion: QueryExpansion) throws {
        if expansion.documents < 1 || expansion.terms < 1 || expansion.minimumWords < 1 {
            throw SearchError.invalidRanking(reason: "expansion needs documents, terms and minimum words of at least 1 (got \(expansion.documents), \(expansion.terms), \(expansion.minimumWords))")
        }
        if !expansion.weight.isFinite || expansion.weight <= 0 {
            throw SearchError.invalidRanking(reason: "the expansion weight is \(expansion.weight); it must be a finite number > 0")
        }
    }

    /// Counts per value from counts per slot value. The slot of a keyword with several values (a `separator`, or a
    /// JSON array) holds the document's distinct values joined together, so each document counts once for each of
    /// its values: exact counts, at the price of reading one entry per distinct combination of values.
    static func facetCounts(_ slotCounts: [String: Int]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (joined, count) in slotCounts {
            for value in joined.split(separator: DocumentBuilder.facetValueSeparator) {
                counts[String(value), default: 0] += count
            }
        }
        return counts
    }

    /// Cuts each hit's snippet from its text, with the query's words marked (Xapian needs the match set for that).
    private func addSnippets(to results: inout SearchResults, from mset: XapianSearchResults, request: SearchRequest,
                             stemmer: XapianStemmer) throws {
        let texts = try snippetSources(for: results.hits)
        for index in results.hits.indices {
            // Control characters never reach the output: an escape sequence in indexed text must not drive a terminal.
            let text = SnippetText.withoutControlCharacters(texts[index])
            guard !text.isEmpty else { continue }
            var snippet = try mset.snippet(for: text, length: request.snippet.length, language: snippetLanguage,
                                           highlightStart: request.snippet.highlightStart,
                                           highlightEnd: request.snippet.highlightEnd, backgroundModel: false,
                                           stemmer: stemmer)
            if request.snippet.format == .plain { snippet = SnippetText.plain(snippet) }
            results.hits[index].snippet = snippet
        }
    }

    /// The text each hit's snippet is cut from (its entity's snippet fields): from the store's current rows when
    /// there is a store (one query per entity), else from the stored fields.
    private func snippetSources(for hits: [SearchHit]) throws -> [String] {
        func storedText(_ hit: SearchHit) -> String {
            (schema.entities[hit.entity]?.snippetFields ?? []).compactMap { hit.fields[$0.name]?.description }
                .joined(separator: "\n")
        }
        guard let store else { return hits.map(storedText) }
        var texts = hits.map { _ in "" }
        let read = Dictionary(grouping: hits.indices, by: { hits[$0].entity }).compactMap { name, positions in
            schema.entities[name].flatMap { $0.snippetFields.isEmpty ? nil : (entity: $0, positions: positions) }
        }
        func readTexts(_ db: Database) throws {
            for (entity, positions) in read {
                let keyColumn = entity.key.quotedDatabaseIdentifier
                let columns = entity.snippetFields.map { $0.name.quotedDatabaseIdentifier }.joined(separator: ", ")
                let placeholders = Array(repeating: "?", count: positions.count).joined(separator: ",")
                let keys: [DatabaseValue] = positions.map { hits[$0].key.databaseValue }
                // Pages of usual sizes reuse their statement (the connection caches it): preparing it anew for each
                // search cost more than running it. Large pages, rarer and of any size, are prepared each time so
                // the cache stays small.
                let sql = "SELECT \(keyColumn), \(columns) FROM \(entity.name.quotedDatabaseIdentifier) WHERE \(keyColumn) IN (\(placeholders))"
                let statement = positions.count <= Self.cachedSnippetStatementSize
                    ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
                // Byte for byte, as SQLite matched them: NFC and NFD forms of a key are two records.
                var byKey: [ExactValue: String] = [:]
                // Columns by position (the key, then the snippet fields in order), read straight from the statement.
                let rows = try Row.fetchCursor(statement, arguments: StatementArguments(keys))
                while let row = try rows.next() {
                    var parts: [String] = []
                    for column in 1...entity.snippetFields.count {
                        if let text = (row[column] as DatabaseValue).indexText { parts.append(text) }
                    }
                    byKey[ExactValue(row[0])] = parts.joined(separator: "\n")
                }
                for position in positions {
                    // A record deleted since the index was updated: the stored copy is all there is.
                    texts[position] = byKey[ExactValue(hits[position].key.databaseValue)] ?? storedText(hits[position])
                }
            }
        }
        guard !read.isEmpty else { return texts }
        // A lone statement is a read transaction of its own (SQLite's autocommit mode), as isolated as one GRDB's
        // read() opens, without the BEGIN and COMMIT it prepares and runs anew for each read (a twentieth of a batch
        // search's time). Several entities are read in one transaction, from one state of the store.
        if read.count == 1 {
            try store.databasePool.unsafeRead(readTexts)
        } else {
            try store.read(readTexts)
        }
        return texts
    }
}

extension IndexSearcher {
    /// `a + b` without overflow, capped at Xapian's largest count (offsets and limits come from users).
    static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int(UInt32.max) : min(sum, Int(UInt32.max))
    }
}

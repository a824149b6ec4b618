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
    let bm25: XapianBM25
    /// Words and phrases that also find others (the configuration's `[search] synonyms`).
    public let synonyms: QuerySynonyms
    /// The number and date fields' `FIELD:` prefixes (``IndexSchema/valuePrefixes``).
    let valuePrefixes: [String]
    static let wildcardLimit: UInt32 = 1000
    /// The most words a word being typed (``SearchRequest/prefix``) completes to, the most frequent ones: the
    /// completions are weighted as one word, so more of them would add little but cost.
    static let partialLimit: UInt32 = 100
    /// Snippet texts of pages up to this size are read with a statement the store's connection keeps.
    static let cachedSnippetStatementSize = 100
    /// Totals up to this many matches are counted exactly rather than estimated.
    package static let exactTotalThreshold = 100

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
        self.valuePrefixes = schema.valuePrefixes
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
            } catch SearchError.engine(let error, nil) {
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
        var results = try state.withLock { state in
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
                } catch SearchError.engine(let error, nil) where error.code.isNetwork && directory.hasShardMap {
                    state.open = nil
                    attempts += 1
                    guard attempts < 2 else { throw Self.shardError(error) }
                }
            }
        }
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
            } catch SearchError.engine(let error, nil) where error.code.isNetwork {
                state.open = nil  // a shard went away: open them again below, which names it
            } catch SearchError.engine(let error, nil) {
                throw SearchError.reading(error, path: indexPath)
            }
        }
        if let layout = directory.liveLayout(), layout.isPlaced {
            let (database, missing): (XapianDatabase, [String])
            do {
                (database, missing) = try layout.openCombined(allowPartial: allowsPartialResults)
            } catch SearchError.engine(let error, nil) {
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
        } catch SearchError.engine(let error, nil) {
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
    func parse(_ text: QueryText, with parser: XapianQueryParser, spelling: Bool = false,
                       checked: Bool = true, partial: Bool = false, widening: Bool = true) throws -> XapianQuery {
        let synonyms = widening ? self.synonyms : QuerySynonyms()
        do {
            if let excluded = text.excludedItems {
                let items = try excluded.map { item in
                    let itemText = QueryText(item)
                    let (sent, widened) = Self.sentText(itemText, synonyms: synonyms, valuePrefixes: valuePrefixes)
                    return try Self.queryOrMatchAll(
                        Self.parseAsWritten(sent, with: parser, flags: Self.flags, query: text,
                                            checked: checked && (itemText.hasOperatorsOrExclusions || widened)),
                        text: itemText)
                }
                return try .andNot(.matchAll(), excluding: items)
            }
            var flags = spelling ? Self.flags.union(.spellingCorrection) : Self.flags
            if partial { flags.insert(.partial) }
            let (sent, widened) = Self.sentText(text, synonyms: spelling ? QuerySynonyms() : synonyms,
                                                sparingLastWord: partial, valuePrefixes: valuePrefixes)
            let query = try Self.parseAsWritten(sent, with: parser, flags: flags, query: text,
                                                checked: checked && (text.hasOperatorsOrExclusions || widened))
            return try Self.queryOrMatchAll(query, text: text)
        } catch SearchError.engine(let error, nil) {
            // Xapian says only that no range processor took a range: name the field and the bound.
            let explained = error.message.contains("Unknown range operation") ? schema.rangeFailure(in: text) : nil
            throw SearchError.invalidQuery(query: String(text.text),
                                           reason: explained.map { .refused(explanation: $0) } ?? .engine(error.message))
        }
    }

    /// The text sent to Xapian for `text`: its words widened by `synonyms` (`widened`: some were), the bounds of
    /// its signed ranges quoted (``QueryText/signedRangeQuotes(valuePrefixes:)``).
    static func sentText(_ text: QueryText, synonyms: QuerySynonyms, sparingLastWord: Bool = false,
                         valuePrefixes: [String]) -> (text: String, widened: Bool) {
        let widening = synonyms.edits(of: text, sparingLastWord: sparingLastWord)
        let edits = widening.edits + text.signedRangeQuotes(valuePrefixes: valuePrefixes)
        return (text.applying(edits), !widening.uses.isEmpty)
    }

    /// `text` parsed with `flags`, or an error when Xapian could not read its operators or signs. On a syntax error
    /// its grammar has no message for (brackets holding only excluded words, `editor AND (-vim -emacs)`; an operator
    /// at the end, `vim NEAR`), Xapian parses the text again as plain words: that query searched "and", "vim" and
    /// "emacs" for any of them. The shim reports that reading.
    /// - Parameters:
    ///   - query: the whole query, as the error names it.
    ///   - checked: whether the text has operators or signs (``QueryText/hasOperatorsOrExclusions``), whose reading
    ///     as plain words is an error; other text is parsed once.
    private static func parseAsWritten(_ text: String, with parser: XapianQueryParser, flags: XapianQueryParser.Flags,
                                       query: QueryText, checked: Bool) throws -> XapianQuery {
        guard checked else { return try parser.parse(text, flags: flags) }
        let (parsed, readAsWords) = try parser.parseNotingPlainWords(text, flags: flags)
        guard !readAsWords else {
            throw SearchError.invalidQuery(query: String(query.text), reason: .refused(explanation: "Xapian cannot read its operators and signs as written and would search them as words (brackets holding only excluded words, such as (-vim -emacs), or an operator without words on both sides); check the brackets and operators, and write a group that excludes as NOT (vim OR emacs)"))
        }
        return parsed
    }

    /// What an empty parse means. Blank text (or a lone `*`) asks for every document, typically with filters.
    /// Anything else that parses to nothing (a lone `"` or `(`, a reversed range such as `rev:5..1`, only
    /// operators) matches nothing: answering with the whole index would be a wrong answer nobody notices.
    static func queryOrMatchAll(_ parsed: XapianQuery, text: QueryText) throws -> XapianQuery {
        guard parsed.isEmpty else { return parsed }
        return text.isMatchAll ? try .matchAll() : try .matchNothing()
    }

    /// The filter queries of a request: its entities (any of them), and its keyword filters (one field's values are
    /// alternatives, different fields all apply).
    func filterQueries(entities: [String], filters: [SearchFilter]) throws -> [XapianQuery] {
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

    /// Refuses a request that would cost more than a search may (see ``SearchRequest/maximumLimit`` and its
    /// neighbours), or whose text cannot be passed on whole; its words are counted once the text is read
    /// (``checkedText(of:)``).
    static func checkBudget(_ request: SearchRequest) throws {
        guard request.offset >= 0, request.limit >= 0 else {
            throw SearchError.invalidQuery(query: request.query, reason: .refused(explanation: "offset and limit must not be negative; give 0 or more"))
        }
        // Xapian reads text up to a NUL byte only: the rest of the query would be dropped without a word.
        guard !request.query.utf8.contains(0) else {
            throw SearchError.invalidQuery(query: request.query.replacingOccurrences(of: "\0", with: "\\0"),
                                           reason: .refused(explanation: "it contains a NUL character, which cannot be searched for; remove it"))
        }
        func over(_ exceeded: SearchBudgetItem) -> SearchError { .overBudget(query: request.query, exceeded: exceeded) }
        if request.limit > SearchRequest.maximumLimit {
            throw over(.hits(requested: request.limit, maximum: SearchRequest.maximumLimit))
        }
        if request.offset > SearchRequest.maximumOffset {
            throw over(.offset(requested: request.offset, maximum: SearchRequest.maximumOffset))
        }
        if request.query.utf8.count > SearchRequest.maximumQueryBytes {
            throw over(.bytes(count: request.query.utf8.count, maximum: SearchRequest.maximumQueryBytes))
        }
    }

    /// Reads the request's text once and checks what it asks for: no more words than a search may look for (boolean
    /// operators join words; they are not words the search looks for), field prefixes the index takes as written,
    /// ranges on number and date fields.
    func checkedText(of request: SearchRequest) throws -> QueryText {
        try Self.checkBudget(request)
        let text = QueryText(request.query)
        if text.wordCount > SearchRequest.maximumWords {
            throw SearchError.overBudget(query: request.query, exceeded: .words(count: text.wordCount, maximum: SearchRequest.maximumWords))
        }
        if let problem = schema.prefixProblem(in: text) ?? schema.rangeProblem(in: text) {
            throw SearchError.invalidQuery(query: request.query, reason: .refused(explanation: problem))
        }
        return text
    }

    /// The words of the index's text starting with `word`, the most frequent first, as many as ``explanationCompletions``.
    func completions(of word: String, in database: XapianDatabase) throws -> [String] {
        let terms = try database.terms(prefix: word, limit: 0)
        return terms.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(Self.explanationCompletions).map(\.key)
    }

    /// How many completions of a word being typed an explanation lists.
    static let explanationCompletions = 10

    /// The expansion a request asks for: its own, none, or the ranking's.
    func expansionOptions(for request: SearchRequest) throws -> XapianExpansion? {
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
    func parseWords(_ text: QueryText, with parser: XapianQueryParser) throws -> XapianQuery {
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
        for (parameter, value) in [(RankingOptions.Parameter.k1, ranking.k1), (.b, ranking.b),
                                   (.minimumNormalisedLength, ranking.minimumNormalisedLength)]
        where !value.isFinite || value < 0 {
            throw SearchError.invalidRanking(reason: .negativeOrNotFinite(parameter, value: value))
        }
        if ranking.b > 1 { throw SearchError.invalidRanking(reason: .bOverOne(ranking.b)) }
        if let proximity = ranking.proximity {
            if proximity.window < 2 {
                throw SearchError.invalidRanking(reason: .proximityWindow(proximity.window))
            }
            if !proximity.weight.isFinite || proximity.weight <= 0 {
                throw SearchError.invalidRanking(reason: .proximityWeight(proximity.weight))
            }
            if proximity.depth < 1 {
                throw SearchError.invalidRanking(reason: .proximityDepth(proximity.depth))
            }
        }
        if let expansion = ranking.expansion { try validate(expansion) }
    }

    static func validate(_ expansion: QueryExpansion) throws {
        if expansion.documents < 1 || expansion.terms < 1 || expansion.minimumWords < 1 {
            throw SearchError.invalidRanking(reason: .expansionCounts(documents: expansion.documents, terms: expansion.terms, minimumWords: expansion.minimumWords))
        }
        if !expansion.weight.isFinite || expansion.weight <= 0 {
            throw SearchError.invalidRanking(reason: .expansionWeight(expansion.weight))
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

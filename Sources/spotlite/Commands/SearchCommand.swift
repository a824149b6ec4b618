import ArgumentParser
import Foundation
import Spotlite
import SpotliteJSON

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the index.",
        discussion: """
        The words are joined with spaces and parsed with Xapian's query syntax: words, "phrases", AND/OR/NOT, \
        +must/-mustnot, wildcards foo*, field prefixes name:foo, keyword filters section:utils, ranges size:10..20 \
        and values size:42 or released:2024 on number and date fields. \
        Quote the query for your shell when it has quotes or brackets, and put it after -- when it starts with - \
        (spotlite search -- -vim: every record without vim). When a query finds nothing and a spelling \
        correction exists, the corrected query is run instead (and said so). Like grep, it exits 1 when nothing \
        is found.

        EXAMPLES
          spotlite search xapian
          spotlite search '"full text" search' --limit 5
          spotlite search database --filter section:database --facet section
          spotlite search 'name:sql*' --sort=-size --json
          spotlite search --prefix clickh
          spotlite search --queries queries.txt --json
          spotlite search --mode hybrid baking loaves of bread
          spotlite search --mode semantic 'play music files' --filter section:sound
        """
    )

    @Argument(help: ArgumentHelp("The query.", valueName: "query"))
    var words: [String] = []

    @Option(name: .customLong("entity"), help: ArgumentHelp("Only this entity (repeatable).", valueName: "name"))
    var entities: [String] = []

    @Option(name: .customLong("filter"), help: ArgumentHelp("Only records whose keyword FIELD has VALUE (repeatable; VALUE* for any value starting with VALUE).", valueName: "field:value"))
    var filters: [String] = []

    @Option(parsing: .unconditional, help: "How many hits to show (0 to 10,000).")
    var limit = 10

    @Option(parsing: .unconditional, help: "How many hits to skip (0 to 1,000,000).")
    var offset = 0

    @Option(help: ArgumentHelp("relevance, FIELD (ascending) or -FIELD (descending, written --sort=-FIELD), for sortable fields.", valueName: "order"))
    var sort = "relevance"

    @Option(name: .customLong("facet"), help: ArgumentHelp("Count the values of this facet field among all matches (repeatable).", valueName: "field"))
    var facets: [String] = []

    @Option(name: .customLong("facet-values"), parsing: .unconditional, help: ArgumentHelp("How many values of each facet to show, most frequent first (0: all; JSON always has all).", valueName: "n"))
    var facetValues = 12

    @Option(help: ArgumentHelp("keyword (by the words), semantic (by meaning, through the [embeddings] model) or hybrid (both, fused by reciprocal rank); default: the configuration's [search] mode, else keyword.", valueName: "mode"))
    var mode: SearchMode?

    @Option(help: ArgumentHelp("Run one query per line of FILE (- for stdin); with --json, one JSON line per query.", valueName: "file"))
    var queries: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --queries, how many queries run at once (1 to 64; default: one per core, up to 4). Answers keep the order of the lines.", valueName: "n"))
    var jobs: Int?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Re-rank with words of the best matches (pseudo-relevance feedback), whatever the query's length; --no-expand never does (default: the configuration's [search] expand, for queries of 5 words or more)."))
    var expand: Bool?

    @Flag(help: "Also print the parsed and expanded query, the synonyms and completions it used, and what each matched word adds to each hit's score.")
    var explain = false

    @Flag(help: "Search as you type: the last word also matches as the start of a word (clickh finds clickhouse).")
    var prefix = false

    @Flag(help: "Print results as JSON.")
    var json = false

    @Flag(name: .customLong("allow-partial"), help: ArgumentHelp(
        "When shards placed on servers (shards = [\"tcp://HOST:PORT\", …]) cannot be reached, answer from the others, with a warning on stderr and \"partial\": true in JSON, instead of failing."))
    var allowPartial = false

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        try OptionRange.check(limit, in: OptionRange.searchLimit, option: "--limit",
                              hint: "; page through more hits with --offset")
        try OptionRange.check(offset, in: OptionRange.searchOffset, option: "--offset")
        try OptionRange.check(facetValues, in: OptionRange.facetValues, option: "--facet-values")
        if let jobs {
            try OptionRange.check(jobs, in: OptionRange.searchJobs, option: "--jobs")
            if queries == nil { throw ValidationError("--jobs runs the queries of --queries FILE at once; give --queries FILE, or leave --jobs out") }
        }
        if let queries, !words.isEmpty {
            throw ValidationError("--queries \(queries) runs the queries of that file, one a line, and would ignore \(words.joined(separator: " ").debugDescription); give either a query or --queries FILE")
        }
        // `search --bogus` hears about --bogus first all the same (UnknownOption, in Spotlite.main).
        if queries == nil && words.isEmpty && filters.isEmpty && entities.isEmpty {
            throw ValidationError("give a query (e.g. `spotlite search xapian`), a --filter, or --queries FILE")
        }
    }

    func run() async throws {
        let parsedFilters = try filters.map(SearchFilter.init(parsing:))
        let environment = try CommandEnvironment(options: options)
        try environment.requireEntities()
        let mode = self.mode ?? environment.configuration.searchMode
        if mode.needsEmbeddings {
            try await runInMode(mode, environment: environment, filters: parsedFilters)
            return
        }
        // A read replica answers from its copy of the index alone (snippets from stored fields): the store lives on
        // the master's machine, and a store found here would not be the one the index was built from.
        let isReplica = ReplicaFollower.replicaSource(at: environment.configuration.indexPath) != nil
        let store = isReplica ? nil : try environment.openStoreForReading(sealingForeignChanges: false)
        func makeSearcher() throws -> IndexSearcher {
            try IndexSearcher(configuration: environment.configuration, store: store, allowsPartialResults: allowPartial)
        }
        let searcher = try makeSearcher()
        let highlight = !json && Terminal.usesColor
        let expansion: SearchRequest.Expansion
        switch expand {
        case nil: expansion = .configured
        case false?: expansion = .off
        case true?:
            var forced = searcher.ranking.expansion ?? .measured
            forced.minimumWords = 1
            expansion = .on(forced)
        }
        func request(_ text: String) -> SearchRequest {
            SearchRequest(text, entities: entities, filters: parsedFilters, offset: offset, limit: limit,
                          sort: SearchSort(parsing: sort), facets: facets,
                          snippet: SnippetOptions(highlightStart: highlight ? Terminal.bold : "",
                                                  highlightEnd: highlight ? Terminal.reset : "", format: .plain),
                          expansion: expansion, explains: explain, prefix: prefix)
        }
        if let queries {
            // Each searcher holds its own open databases: the extra ones are opened only for a batch.
            let pool = SearcherPool(searchers: try [searcher] + (1..<(jobs ?? SearcherPool.defaultCount)).map { _ in try makeSearcher() })
            try runBatch(queries, pool: pool, headlines: Self.headlineFields(of: environment.configuration), request: request)
            return
        }
        let results = try searcher.search(request(words.joined(separator: " ")))
        Self.warnIfPartial(results.unavailableShards)
        if json {
            let output = OutputBuffer()
            output.write { results.appendJSON(to: &$0); $0.append(UInt8(ascii: "\n")) }
            output.flush()
        } else {
            print(Self.render(results, headlines: Self.headlineFields(of: environment.configuration),
                              facetValues: facetValues, limit: limit, offset: offset))
        }
        if results.total == 0 { Self.exitNothingFound() }
    }

    /// A semantic or hybrid search (`--mode`): the model is loaded once, and the queries of `--queries` are answered
    /// in turn, each with the keyword index and the vectors.
    private func runInMode(_ mode: SearchMode, environment: CommandEnvironment, filters: [SearchFilter]) async throws {
        guard environment.configuration.embeddings != nil else { throw HybridSearchError.embeddingsNotConfigured(mode: mode) }
        if explain { throw ValidationError("--explain shows how the keyword index weighted each word; it works with --mode keyword only") }
        if case .field = SearchSort(parsing: sort) {
            throw HybridSearchError.sortNeedsKeywordMode(mode: mode, field: sort)
        }
        let isReplica = ReplicaFollower.replicaSource(at: environment.configuration.indexPath) != nil
        let store = isReplica ? nil : try environment.openStoreForReading(sealingForeignChanges: false)
        let keyword = try IndexSearcher(configuration: environment.configuration, store: store, allowsPartialResults: allowPartial)
        let semantic = try SemanticIndex(configuration: environment.configuration, mode: mode)
        try semantic.checkVectors()
        let searcher = HybridSearcher(keyword: keyword, semantic: semantic)
        let highlight = !json && Terminal.usesColor
        func request(_ text: String) -> SearchRequest {
            SearchRequest(text, entities: entities, filters: filters, offset: offset, limit: limit, facets: facets,
                          snippet: SnippetOptions(highlightStart: highlight ? Terminal.bold : "",
                                                  highlightEnd: highlight ? Terminal.reset : "", format: .plain),
                          prefix: prefix)
        }
        let headlines = Self.headlineFields(of: environment.configuration)
        let output = OutputBuffer()
        var foundAny = false
        func answer(_ text: String) throws {
            let results = try searcher.search(request(text), mode: mode)
            Self.warnIfPartial(results.unavailableShards)
            if results.total > 0 { foundAny = true }
            output.write { bytes in
                if json {
                    results.appendJSON(to: &bytes)
                    bytes.append(UInt8(ascii: "\n"))
                } else {
                    bytes.append(contentsOf: Self.render(results, headlines: headlines, facetValues: facetValues,
                                                         limit: limit, offset: offset).utf8)
                    bytes.append(contentsOf: (queries == nil ? "\n" : "\n\n").utf8)
                }
            }
        }
        if let queries {
            let reader = try LineReader(path: queries)
            reader.beforeWaiting = { output.flush() }
            var number = 0
            while let bytes = try reader.nextLine() {
                number += 1
                guard let line = String(validating: bytes, as: UTF8.self) else {
                    output.flush()
                    throw CommandFailure(message: "line \(number) of \(queries) is not UTF-8 text; convert the file (e.g. with iconv)")
                }
                let query = line.trimmingCharacters(in: .whitespaces)
                if query.isEmpty { continue }
                do {
                    try answer(query)
                } catch let error as SearchError {
                    output.flush()
                    throw CommandFailure(message: "line \(number) of \(queries): \(error.commandLineDescription)")
                }
            }
        } else {
            try answer(words.joined(separator: " "))
        }
        output.flush()
        if !foundAny { Self.exitNothingFound() }
    }

    /// One answer of a `--queries` batch, written out as text on the thread that searched it.
    struct PrintedAnswer: Sendable {
        var text: [UInt8]
        var found: Bool
        var unavailableShards: [String]
    }

    /// One query per line of `path` (`-`: standard input), answered in the order of the lines. The searchers
    /// (their databases, their parsers) are opened once for the batch; the lines read so far are answered together,
    /// on the pool's searchers at once, each answer written out as text by the thread that searched it, before the
    /// input is read again; answers are written in large pieces, flushed whenever the input makes us wait, so a
    /// program feeding queries through a pipe gets each answer promptly.
    private func runBatch(_ path: String, pool: SearcherPool, headlines: [String: String],
                          request: (String) -> SearchRequest) throws {
        let reader = try LineReader(path: path)
        let output = OutputBuffer()
        defer { output.flush() }
        reader.beforeWaiting = { output.flush() }
        var foundAny = false
        var number = 0
        // Lines read but not answered yet, with their line numbers.
        var waiting: [(number: Int, query: String)] = []
        let json = self.json, facetValues = self.facetValues, limit = self.limit
        func answerWaiting() throws {
            let outcomes = pool.search(waiting.map { request($0.query) }) { outcome in
                outcome.map { results in
                    var text: [UInt8] = []
                    if json {
                        results.appendJSON(to: &text)
                        text.append(UInt8(ascii: "\n"))
                    } else {
                        text.append(contentsOf: Self.render(results, headlines: headlines, facetValues: facetValues,
                                                            limit: limit, offset: offset).utf8)
                        text.append(contentsOf: "\n\n".utf8)
                    }
                    return PrintedAnswer(text: text, found: results.total > 0, unavailableShards: results.unavailableShards)
                }
            }
            for (line, outcome) in zip(waiting, outcomes) {
                let answer: PrintedAnswer
                do {
                    answer = try outcome.get()
                    Self.warnIfPartial(answer.unavailableShards)
                } catch let error as SearchError {
                    throw CommandFailure(message: "line \(line.number) of \(path): \(error.commandLineDescription)")
                }
                if answer.found { foundAny = true }
                output.write { $0.append(contentsOf: answer.text) }
            }
            waiting.removeAll(keepingCapacity: true)
        }
        while true {
            // Answer before the input may make us wait (or when enough lines are waiting, to bound memory).
            if !waiting.isEmpty && (!reader.hasBufferedLine || waiting.count >= Self.batchLines) { try answerWaiting() }
            guard let bytes = try reader.nextLine() else { break }
            number += 1
            guard let line = String(validating: bytes, as: UTF8.self) else {
                try answerWaiting()
                throw CommandFailure(message: "line \(number) of \(path) is not UTF-8 text; convert the file (e.g. with iconv)")
            }
            let query = line.trimmingCharacters(in: .whitespaces)
            if query.isEmpty { continue }
            waiting.append((number, query))
        }
        try answerWaiting()
        // Not in a defer: exiting there would swallow the error of a later line, unprinted.
        if !foundAny {
            output.flush()
            Self.exitNothingFound()
        }
    }

    /// The most lines of `--queries` answered together: enough to keep every searcher busy, few enough that the
    /// answers waiting to be written stay small.
    static let batchLines = 256

    /// One line on stderr for an answer that left unreachable shards out (`--allow-partial`): `shards` are its
    /// ``SearchResults/unavailableShards``.
    static func warnIfPartial(_ shards: [String]) {
        guard !shards.isEmpty else { return }
        Terminal.printError("warning: partial results: shard\(shards.count == 1 ? "" : "s") \(shards.joined(separator: ", ")) could not be reached; the hits and totals cover the other shards only")
    }

    /// Like grep, a search that finds nothing exits 1, after printing its (empty) results.
    static func exitNothingFound() {
        fflush(nil)
        Foundation.exit(ExitStatus.noResults)
    }

    /// The field shown after each hit's key on its first line, by entity: the entity's first text field returned
    /// with hits (`store = true`) other than its key, in configuration order (a package's summary, a note's title).
    static func headlineFields(of configuration: SpotliteConfiguration) -> [String: String] {
        var headlines: [String: String] = [:]
        for entity in configuration.entities {
            headlines[entity.name] = entity.fields.first { $0.type == .text && $0.store && $0.name != entity.key }?.name
        }
        return headlines
    }

    /// The answer printed for humans: `headlines` from ``headlineFields(of:)``; `facetValues`, `limit` and `offset`
    /// are the command's options.
    static func render(_ results: SearchResults, headlines: [String: String], facetValues: Int, limit: Int,
                       offset: Int) -> String {
        var lines: [String] = []
        if let filters = results.correctedFilters {
            let values = filters.map(\.description).joined(separator: " ")
            lines.append("No results with the filters as written (values are case-sensitive); showing results with \(Terminal.strong(values)).")
        }
        if let corrected = results.corrected {
            lines.append("No results for \"\(results.query)\"; showing results for \(Terminal.strong(corrected)).")
        } else if results.hits.isEmpty, let suggestion = results.suggestion, !suggestion.isEmpty, suggestion != results.query {
            lines.append("Did you mean \(Terminal.strong(suggestion))?")
        }
        if results.total == 0 {
            // Filters alone (no words): there is no query to quote.
            lines.append(results.query.trimmingCharacters(in: .whitespaces).isEmpty ? "No results." : "No results for \"\(results.query)\".")
        }
        if let explanation = results.explanation {
            lines.append(Terminal.faint("Parsed:   ") + explanation.parsedQuery)
            lines.append(Terminal.faint("Searched: ") + explanation.executedQuery)
            for use in explanation.synonyms {
                lines.append(Terminal.faint("Synonyms: ") + use.words + " → " + use.synonyms.joined(separator: ", "))
            }
            if let word = explanation.typedWord {
                let shown = explanation.completions.isEmpty ? "no word of the index starts with it"
                    : explanation.completions.joined(separator: ", ")
                lines.append(Terminal.faint("Prefix:   ") + word + "… → " + shown + Terminal.faint(" (the most frequent)"))
            }
            if !explanation.addedTerms.isEmpty {
                lines.append(Terminal.faint("Added by expansion: ") + explanation.addedTerms
                    .map { "\($0.term) ×\(String(format: "%.3f", $0.scale))" }.joined(separator: ", "))
            }
        }
        for (index, hit) in results.hits.enumerated() {
            let key = hit.key.description
            var header = "\(hit.rank). " + Terminal.strong(key) + "  " + Terminal.faint("\(hit.entity) · \(hit.percent)%" + Self.origin(of: hit, mode: results.mode))
            let headline = headlines[hit.entity]
            if let headline, let value = hit.fields[headline], key != value.description {
                header += "  " + Self.shortened(value.description, to: 160)
            }
            lines.append(header)
            let otherFields = hit.fields.filter { $0.key != headline && $0.value.description != key && !$0.value.description.isEmpty }
                .sorted { $0.key < $1.key }
                .map { "\($0.key): \(Self.shortened($0.value.description, to: 80))" }
            if !otherFields.isEmpty { lines.append("   " + Terminal.faint(otherFields.joined(separator: "  "))) }
            if !hit.snippet.isEmpty {
                lines.append("   " + PrintedText.flattened(hit.snippet))
            }
            if let terms = results.explanation?.hitTerms, index < terms.count {
                let parts = terms[index].sorted { $0.weight > $1.weight }
                    .map { "\($0.term) \(String(format: "%.3f", $0.weight)) (frequency \($0.frequency))" }
                let rest = hit.score - terms[index].reduce(0) { $0 + $1.weight }
                lines.append("   " + Terminal.faint("score \(String(format: "%.3f", hit.score)) = ") + parts.joined(separator: " + ")
                    + (rest > 0.0005 ? " + proximity \(String(format: "%.3f", rest))" : ""))
            }
        }
        for field in results.facets.keys.sorted() {
            let values = results.facets[field]!
            let shownValues = facetValues == 0 ? values[...] : values.prefix(facetValues)
            var counts = shownValues.map { "\($0.value) (\(Terminal.number($0.count)))" }
            if shownValues.count < values.count {
                counts.append(Terminal.faint("… \(Plural.count(values.count - shownValues.count, "more value")) (--facet-values 0 shows all)"))
            }
            lines.append("\(Terminal.strong(field)): " + (counts.isEmpty ? "no values" : counts.joined(separator: ", ")))
        }
        let shown: String
        if let first = results.hits.first, let last = results.hits.last {
            shown = " (showing \(first.rank)–\(last.rank))"
        } else if results.total > 0 && limit == 0 {
            shown = " (none shown: --limit 0)"
        } else if results.total > 0 && offset > 0 {
            // An empty page of a search that matched: the page starts past the matches, which is worth saying.
            shown = " (none shown: --offset \(Terminal.number(offset)) is past the last)"
        } else {
            shown = ""
        }
        lines.append(Terminal.faint("About \(Plural.count(results.total, "result"))\(shown) in \(Terminal.duration(results.seconds))."))
        return lines.joined(separator: "\n")
    }

    /// Where a semantic or hybrid hit came from: its similarity and its rank in each list; nothing in keyword mode.
    static func origin(of hit: SearchHit, mode: SearchMode) -> String {
        guard mode != .keyword else { return "" }
        var parts: [String] = []
        if let similarity = hit.similarity { parts.append("similarity " + String(format: "%.2f", similarity)) }
        if mode == .hybrid {
            parts.append("words " + (hit.keywordRank.map { "#\($0)" } ?? "–"))
            parts.append("meaning " + (hit.semanticRank.map { "#\($0)" } ?? "–"))
        }
        return parts.map { " · " + $0 }.joined()
    }

    /// `text` cut to `length` characters, with a mark when it was cut.
    static func shortened(_ text: String, to length: Int) -> String {
        let flat = PrintedText.flattened(text)
        // No more characters than bytes: most values are known to fit without counting their characters.
        return flat.utf8.count <= length || flat.count <= length ? flat : String(flat.prefix(length - 1)) + "…"
    }
}

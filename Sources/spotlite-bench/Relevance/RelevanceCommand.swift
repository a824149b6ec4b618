import ArgumentParser
import Foundation
import Spotlite
import SpotliteHybrid
import SpotliteTooling

/// `spotlite-bench relevance`: ranking quality on a TREC-style test collection, Spotlite side by side with SQLite FTS5
/// and plain Xapian in the same run, plus the cost of query expansion and, with `--ablation`, each ranking lever.
struct RelevanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relevance",
        abstract: "Measure ranking on a test collection (MAP, nDCG@10, P@10, recall) against FTS5 and plain Xapian.",
        discussion: """
        The documents are imported and indexed with the configuration (its first entity, or --entity); each query is \
        lower-cased with punctuation removed and run as an OR of its words, top --depth, by: Spotlite (the \
        configuration's [search] ranking), SQLite FTS5 (bm25() with the configured text field weights, porter \
        unicode61) and plain Xapian (every text field at weight 1, English stemming, no stop words, BM25 defaults). \
        MAP counts every judged document (grade > 0) as relevant; nDCG@10 uses 2^grade − 1 as gain.
        """
    )

    @Option(help: "The documents: JSON Lines (optionally .xz), one object per document with the entity's key.")
    var docs: String
    @Option(help: "The queries: one `id<TAB>text` line per query.")
    var queries: String
    @Option(help: "The judgements: TREC qrels lines `query_id 0 doc_id grade`.")
    var qrels: String
    @Option(help: "The Spotlite configuration describing the documents' entity and fields.")
    var config: String
    @Option(help: "The entity the documents belong to (default: the configuration's first).")
    var entity: String?
    @Option(help: "A name for the collection in the output (default: the queries file's name).")
    var name: String?
    @Option(help: "Only the first N documents (judgements of the others count as not found, for every engine and mode alike).")
    var limit: Int?
    @Option(help: "Ranked documents evaluated per query.")
    var depth = 1000
    @Option(help: "Passes over the queries when timing searches with and without expansion (the median is kept).")
    var timingPasses = 3
    @Option(help: "Also score this many known-item queries drawn from the documents' FIELD (2–3 of its words; the one right answer is the document), as the suite's relevance figure does.")
    var knownItems = 0
    @Option(help: "The field known-item queries are drawn from (default: the first text field that is not the key).")
    var knownItemField: String?
    @Flag(help: "Also measure spelling correction: each query (and known item) with one seeded typo, searched with every word required; how often the suggestion restores the word, for the configured spelling fields and for the fields weighted above 1 only.")
    var spelling = false
    @Flag(help: "Also measure each ranking lever on its own (the ablation table in docs/benchmarks.md).")
    var ablation = false
    @Option(help: "Search modes compared side by side: a comma-separated list of keyword, semantic and hybrid (semantic and hybrid embed the documents with --model).")
    var mode = "keyword"
    @Option(help: "The embedding model folder, for the semantic and hybrid modes.")
    var model = "Index/models/all-MiniLM-L6-v2"
    @Option(help: "The fields embedded, comma-separated, joined by a line break in this order (default: the entity's text fields).")
    var embed: String?
    @Option(help: "Where the documents' vectors are kept between runs (one folder per model, fields and documents).")
    var vectorCache = "Index/relevance-vectors"
    @Option(help: "Documents per call to the model when embedding.")
    var embedBatch = 64
    @Option(help: "Hybrid: one fusion for every query, no feedback, with this reciprocal rank fusion constant k (default: the product's ranking by query length, with feedback).")
    var fusionK: Double?
    @Option(help: "Hybrid: one fusion for every query with this keyword list weight (default: the product's ranking).")
    var keywordWeight: Double?
    @Option(help: "Hybrid: one fusion for every query with this semantic list weight (default: the product's ranking).")
    var semanticWeight: Double?
    @Option(help: "Hybrid: the top N of each list fused (default: the product's).")
    var fusionDepth = HybridSearcher.defaultDepth
    @Flag(help: "Hybrid: also score a grid of fusion settings (semantic weight, k, N), to choose the defaults on several collections.")
    var fusionGrid = false
    @Option(help: "Modes: write each query's keyword and semantic lists (and its judgements) to this JSON file, to study fusions offline.")
    var listsOutput: String?
    @Option(help: "Write every measurement as JSON to this file.")
    var jsonOutput: String?
    @Option(help: "Work in this directory (default: a new temporary one, removed at the end).")
    var workDirectory: String?

    func validate() throws {
        guard depth >= 10 else { throw ValidationError("--depth must be at least 10, got \(depth)") }
        guard timingPasses >= 1 else { throw ValidationError("--timing-passes must be at least 1, got \(timingPasses)") }
        guard knownItems >= 0 else { throw ValidationError("--known-items must be 0 or more, got \(knownItems)") }
        _ = try modes
        guard [fusionK, keywordWeight, semanticWeight].allSatisfy({ $0 == nil || ($0! >= 0 && $0!.isFinite) }) else {
            throw ValidationError("--fusion-k, --keyword-weight and --semantic-weight must be finite numbers of 0 or more")
        }
        guard fusionDepth >= 10 else { throw ValidationError("--fusion-depth must be at least 10, got \(fusionDepth)") }
        guard embedBatch >= 1 else { throw ValidationError("--embed-batch must be at least 1, got \(embedBatch)") }
    }

    /// The product's hybrid ranking, or one fixed fusion when `--fusion-k`, `--keyword-weight` or `--semantic-weight`
    /// is given.
    var hybridRanking: HybridRanking {
        guard fusionK != nil || keywordWeight != nil || semanticWeight != nil else { return .measured }
        return .fixed(ReciprocalRankFusion(k: fusionK ?? 60, keywordWeight: keywordWeight ?? 1, semanticWeight: semanticWeight ?? 1))
    }

    /// The modes of `--mode`, in the order given.
    var modes: [SearchMode] {
        get throws {
            let names = mode.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let parsed = try names.map { name -> SearchMode in
                guard let mode = SearchMode(rawValue: name) else {
                    throw ValidationError("--mode: unknown mode \(name); give keyword, semantic or hybrid, or several separated by commas")
                }
                return mode
            }
            guard !parsed.isEmpty else { throw ValidationError("--mode: give keyword, semantic or hybrid, or several separated by commas") }
            return parsed
        }
    }

    func run() async throws {
        let currentDirectory = FileManager.default.currentDirectoryPath
        let work = workDirectory.map { SpotliteConfiguration.resolvePath($0, against: currentDirectory) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-relevance-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create the work directory \(work): \(error.localizedDescription); pass a writable --work-directory")
        }
        defer { if workDirectory == nil { try? FileManager.default.removeItem(atPath: work) } }

        var configuration = try SpotliteConfiguration(
            contentsOf: SpotliteConfiguration.resolvePath(config, against: currentDirectory), baseDirectory: currentDirectory)
        configuration.storePath = work + "/store.sqlite"
        configuration.indexPath = work + "/index"
        guard let entity = entity.map({ configuration.entity(named: $0) }) ?? configuration.entities.first else {
            throw BenchError(entity.map { "the configuration \(config) has no entity \($0)" }
                ?? "the configuration \(config) describes no entity; pass --config with one that does")
        }
        let collection: TRECCollection
        do {
            collection = try TRECCollection(topicsPath: SpotliteConfiguration.resolvePath(queries, against: currentDirectory),
                                            qrelsPath: SpotliteConfiguration.resolvePath(qrels, against: currentDirectory))
        } catch let error as TRECCollectionError {
            throw BenchError("\(error); give --queries as id<TAB>text lines and --qrels as TREC qrels")
        }
        let topics = collection.judgedTopics
        guard !topics.isEmpty else {
            throw BenchError("no query of \(queries) has a relevant document in \(qrels); check that their query ids match")
        }
        let collectionName = name ?? URL(fileURLWithPath: queries).deletingPathExtension().lastPathComponent

        Progress.note("reading \(docs)")
        let corpus = try Corpus.prepare(source: SpotliteConfiguration.resolvePath(docs, against: currentDirectory),
                                        limit: limit, key: entity.key, destination: work + "/corpus.jsonl")
        let engines = try RelevanceEngines(corpus: corpus, configuration: configuration, entity: entity, work: work)
        Progress.note("indexing \(corpus.records.count) documents with Spotlite, FTS5 and plain Xapian")
        try await engines.build()

        let plainQueries = topics.map { (id: $0.id, text: TRECCollection.plainQuery($0.text)) }
        func score(_ search: (String) throws -> [String]) throws -> [String: RankingMetrics] {
            var scores: [String: RankingMetrics] = [:]
            for query in plainQueries {
                scores[query.id] = RankingMetrics(ranking: try search(query.text), grades: collection.judgements[query.id] ?? [:],
                                                  depth: depth)
            }
            return scores
        }

        Progress.note("running \(topics.count) queries of \(collectionName)")
        let spotliteSearcher = try engines.searcher(ranking: configuration.ranking)
        var runs: [RelevanceRun] = []
        runs.append(RelevanceRun(engine: "Spotlite", perQuery: try score { try engines.spotlite(spotliteSearcher, $0, limit: depth) }))
        runs.append(RelevanceRun(engine: "SQLite FTS5 bm25()", perQuery: try score { try engines.fts5($0, limit: depth) }))
        runs.append(RelevanceRun(engine: "Xapian defaults", perQuery: try score { try engines.plainXapian($0, limit: depth) }))
        let bestPeer = runs.dropFirst().max { $0.mean.averagePrecision < $1.mean.averagePrecision }!
        let comparison = QueryComparison(ours: runs[0].perQuery.mapValues(\.averagePrecision),
                                         theirs: bestPeer.perQuery.mapValues(\.averagePrecision))

        Progress.note("timing Spotlite with and without expansion")
        let timing = try ExpansionTiming.measure(queries: plainQueries.map(\.text), passes: timingPasses,
                                                 searcher: spotliteSearcher)

        var knownItemQueries: [QueryWorkload.Query] = []
        if knownItems > 0 {
            let field = try knownItemField ?? engines.descriptiveField
            knownItemQueries = QueryWorkload.knownItems(records: corpus.records, key: entity.key, field: field,
                                                        count: knownItems)
        }
        func knownItemMRR(_ searcher: IndexSearcher) throws -> Double? {
            guard !knownItemQueries.isEmpty else { return nil }
            return try RelevanceFigure.score(knownItemQueries) { try engines.spotlite(searcher, $0.text, limit: 10) }.mrrAt10
        }
        let spotliteKnownItems = try knownItemMRR(spotliteSearcher)

        var spellingResults: [SpellingEvaluation] = []
        if spelling {
            var sets = [(name: "\(collectionName) queries", queries: plainQueries.map(\.text))]
            if !knownItemQueries.isEmpty {
                sets.append((name: "known items", queries: knownItemQueries.map { TRECCollection.plainQuery($0.text) }))
            }
            spellingResults = try await measureSpelling(sets: sets, configuration: configuration, entity: entity,
                                                        searcher: spotliteSearcher, work: work)
        }

        var levers: [RelevanceLever] = []
        if ablation {
            for (label, ranking) in RelevanceLever.variants(of: configuration.ranking) {
                Progress.note("ablation: \(label)")
                let searcher = try engines.searcher(ranking: ranking)
                let perQuery = try score { try engines.spotlite(searcher, $0, limit: depth) }
                levers.append(RelevanceLever(label: label, mean: RankingMetrics.mean(Array(perQuery.values)),
                                             knownItemMRR: try knownItemMRR(searcher)))
            }
        }

        var modeEvaluation: SearchModeEvaluation?
        let modes = try modes
        if modes.contains(where: \.needsEmbeddings) {
            let fields = embed.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                ?? entity.fields.filter { $0.type == .text }.map(\.name)
            Progress.note("semantic: embedding \(fields.joined(separator: " + ")) with \(model)")
            let semantic = try SemanticEngine(
                model: SpotliteConfiguration.resolvePath(model, against: currentDirectory),
                cache: SpotliteConfiguration.resolvePath(vectorCache, against: currentDirectory), corpus: corpus,
                fields: fields, entity: entity.name, batchSize: embedBatch)
            let queries = topics.map { SearchModeEvaluation.Query(id: $0.id, text: $0.text, plain: TRECCollection.plainQuery($0.text)) }
            modeEvaluation = try SearchModeEvaluation.measure(
                modes: modes, queries: queries, judgements: collection.judgements,
                knownItems: knownItemQueries.map { .init(text: $0.text, target: $0.target ?? "") }, depth: depth,
                ranking: hybridRanking,
                fusionDepth: fusionDepth, grid: fusionGrid,
                listsOutput: listsOutput.map { SpotliteConfiguration.resolvePath($0, against: currentDirectory) },
                keyword: { try engines.spotlite(spotliteSearcher, $0, limit: $1) }, semantic: semantic)
        }

        let report = RelevanceReportOutput(
            collection: collectionName, documents: corpus.records.count, queries: topics.count, depth: depth,
            machine: MachineDescription.current().summary, command: CommandLine.arguments.joined(separator: " "),
            runs: runs, bestPeer: bestPeer.engine, comparison: comparison, timing: timing,
            knownItems: knownItemQueries.count, spotliteKnownItemMRR: spotliteKnownItems, levers: levers,
            spelling: spellingResults, modes: modeEvaluation)
        print(report.rendered)
        if let modeEvaluation { print("\n" + modeEvaluation.rendered(depth: depth)) }
        for result in spellingResults { print(result.rendered) }
        if let jsonOutput {
            try report.write(to: SpotliteConfiguration.resolvePath(jsonOutput, against: currentDirectory))
        }
    }

    /// Spelling correction with the configured spelling fields, and with only the fields weighted above 1 feeding
    /// the spelling table (a second index of the same store), on the same misspelled queries.
    private func measureSpelling(sets: [(name: String, queries: [String])], configuration: SpotliteConfiguration,
                                 entity: EntityConfiguration, searcher: IndexSearcher,
                                 work: String) async throws -> [SpellingEvaluation] {
        let cases = try sets.map { try SpellingEvaluation.cases(queries: $0.queries, seed: 0x5_9E11, searcher: searcher) }
        let textFields = entity.fields.filter { $0.type == .text }.map(\.name)
        let configured = configuration.indexer.spelling ?? textFields
        // The alternative: the short fields weighted above 1 (the first text field when none is).
        let weighted = entity.fields.filter { $0.type == .text && $0.weight > 1 }.map(\.name)
        var every = configuration
        every.indexer.spelling = weighted.isEmpty ? Array(textFields.prefix(1)) : weighted
        every.indexer.author = configuration.indexer.author + ".spelling"
        every.indexPath = work + "/index-spelling-weighted"
        Progress.note("spelling: indexing with \(every.indexer.spelling!.joined(separator: ", ")) feeding the spelling table")
        let store = try SpotliteStore(path: configuration.storePath, model: every.storeModel)
        try await SpotliteIndexer(store: store, configuration: every, indexPath: every.indexPath).update()
        let everySearcher = try IndexSearcher(configuration: every, ranking: configuration.ranking)
        var results: [SpellingEvaluation] = []
        for (set, setCases) in zip(sets, cases) {
            results.append(try SpellingEvaluation.measure(
                setCases, label: "\(set.name), spelling from \(configured.joined(separator: ", "))", searcher: searcher))
            results.append(try SpellingEvaluation.measure(
                setCases, label: "\(set.name), spelling from \(every.indexer.spelling!.joined(separator: ", ")) only",
                searcher: everySearcher))
        }
        return results
    }
}

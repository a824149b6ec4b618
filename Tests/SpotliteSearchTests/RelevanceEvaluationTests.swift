@testable import SpotliteTooling
import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// The relevance evaluation helper: query sets as TSV, MRR@10 and success@10, and known-item query generation.
@Suite("Relevance evaluation", .blockingWork)
struct RelevanceEvaluationTests {
    @Test("query sets read key<TAB>query lines, skipping blank lines and comments")
    func parsesTSV() throws {
        let set = try RelevanceQuerySet(tsv: "# known items\nvim\tsyntax highlighting editor\r\n\n  \nnano\tpico replacement\nodd key\twith\ttabs  \n")
        #expect(set.judgments == [
            RelevanceJudgment(key: "vim", query: "syntax highlighting editor"),
            RelevanceJudgment(key: "nano", query: "pico replacement"),
            RelevanceJudgment(key: "odd key", query: "with\ttabs"),
        ])
        #expect(try RelevanceQuerySet(tsv: set.tsv).judgments.map(\.key) == ["vim", "nano", "odd key"])
        #expect(set.tsv.hasPrefix("vim\tsyntax highlighting editor\n"))
        #expect(try RelevanceQuerySet(tsv: "").judgments.isEmpty)
    }

    @Test("malformed query sets are errors naming the line and the format",
          arguments: [("vim\tok\nno tab here\n", 2, QuerySetProblem.noTab), ("\tquery\n", 1, QuerySetProblem.emptyKey),
                      ("vim\t   \n", 1, QuerySetProblem.emptyQuery)])
    func malformedTSV(text: String, line: Int, problem: QuerySetProblem) {
        let error = #expect(throws: SearchError.self) { try RelevanceQuerySet(tsv: text, source: "queries.tsv") }
        guard case let .invalidQuerySet(source, errorLine, reason)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        // The words of each cause, with the format, are checked once in `SearchErrorCauseTests.sentences`.
        #expect(source == "queries.tsv" && errorLine == line && reason == problem)
    }

    @Test("a missing query set file is an error naming it")
    func missingFile() {
        let error = #expect(throws: SearchError.self) { try RelevanceQuerySet(contentsOf: "/nonexistent/queries.tsv") }
        #expect(error?.description.hasPrefix("/nonexistent/queries.tsv") == true)
    }

    @Test("MRR@k and success@k from the ranks of the wanted records; unparsable queries count as misses")
    func metrics() async throws {
        let fixture = try await SearchFixture()
        let ranked = try fixture.keys(SearchRequest("editor", entities: ["Package"]))
        #expect(ranked.count == 4)
        let set = RelevanceQuerySet([
            RelevanceJudgment(key: "vim", query: "name:vim"),        // rank 1
            RelevanceJudgment(key: ranked[1], query: "editor"),      // rank 2
            RelevanceJudgment(key: ranked[3], query: "editor"),      // rank 4
            RelevanceJudgment(key: "0ad", query: "editor"),          // not returned
            RelevanceJudgment(key: "vim", query: "vim AND"),         // cannot be parsed
        ])
        let evaluator = RelevanceEvaluator(searcher: fixture.searcher, entities: ["Package"])
        let report = try evaluator.evaluate(set)
        #expect(report.outcomes.map(\.rank) == [1, 2, 4, nil, nil])
        #expect(abs(report.meanReciprocalRank - (1 + 0.5 + 0.25) / 5) < 1e-12)
        #expect(report.successRate == 3.0 / 5)
        #expect(report.firstRate == 1.0 / 5)
        #expect(report.misses.count == 2)
        #expect(report.outcomes[4].error?.contains("cannot parse") == true)
        #expect(report.outcomes[1].returnedKeys == ranked)
        #expect(report.jsonObject["queries"] as? Int == 5)

        var top3 = evaluator
        top3.cutoff = 3
        let cut = try top3.evaluate(set)
        #expect(cut.outcomes.map(\.rank) == [1, 2, nil, nil, nil])
        #expect(cut.successRate == 2.0 / 5)
        #expect(try evaluator.evaluate(RelevanceQuerySet([])).meanReciprocalRank == 0)
    }

    @Test("evaluating against a missing index is an error, not a score of zero")
    func missingIndex() throws {
        let sandbox = try IndexerSandbox()
        #expect(throws: SearchError.indexMissing(path: sandbox.indexPath)) {
            try RelevanceEvaluator(searcher: try sandbox.makeSearcher())
                .evaluate(RelevanceQuerySet([RelevanceJudgment(key: "vim", query: "vim")]))
        }
    }

    @Test("generated known-item queries: distinctive words of the record, reproducible from the seed")
    func generator() throws {
        // 60 records: shared filler words (too common), words of two records (distinctive), unique tokens (too rare).
        var records: [KnownItemQueryGenerator.Record] = []
        for number in 0..<60 {
            let pair = number / 2
            records.append(.init(key: "record\(number)", text: "common filler text alpha\(pair) beta\(pair) gamma\(pair) delta\(pair) unique\(number) xy"))
        }
        records.append(.init(key: "twin-a", text: "identical twin text"))
        records.append(.init(key: "twin-b", text: "identical twin text"))
        var generator = KnownItemQueryGenerator(records: records)
        generator.maximumDocumentFrequencyFraction = 0.05
        let set = generator.generate(count: 1000, seed: 7)
        #expect(set.judgments.count == 60, "each usable record once; the twins are ambiguous")
        #expect(!set.judgments.contains { $0.key.hasPrefix("twin") })
        for judgment in set.judgments {
            let number = Int(judgment.key.dropFirst("record".count))!
            let words = judgment.query.split(separator: " ").map(String.init)
            #expect((2...3).contains(words.count), "\(judgment)")
            #expect(words.allSatisfy { $0.hasSuffix("\(number / 2)") && !$0.hasPrefix("unique") }, "\(judgment)")
            let order = ["alpha", "beta", "gamma", "delta"]
            let positions = words.map { word in order.firstIndex { word.hasPrefix($0) }! }
            #expect(positions == positions.sorted(), "words keep their order in the text: \(judgment)")
        }
        #expect(generator.generate(count: 10, seed: 7) == generator.generate(count: 10, seed: 7))
        #expect(generator.generate(count: 10, seed: 7) != generator.generate(count: 10, seed: 8))
        #expect(generator.generate(count: 5, seed: 7).judgments.count == 5)
        #expect(KnownItemQueryGenerator.words(in: "Vi-IMproved, a x11 e-mail 2024 ÉDITEUR") == ["improved", "x11", "mail", "éditeur"])
    }

    @Test("on a sample of the Debian corpus, the shipped configuration finds most known items in the top 10")
    func corpusSample() async throws {
        let corpus = try DebianCorpus.load(limit: 4000)
        let sandbox = try IndexerSandbox(configuration: try DebianCorpus.shippedConfiguration())
        try DebianCorpus.importRecords(corpus, into: sandbox)
        try await sandbox.makeIndexer().update()
        let generator = KnownItemQueryGenerator(records: corpus.map { .init(key: $0.name, text: $0.description) })
        let queries = generator.generate(count: 150, seed: 42)
        #expect(queries.judgments.count == 150)
        let report = try RelevanceEvaluator(searcher: try sandbox.makeSearcher()).evaluate(queries)
        // Floors well under the measured figures (README), to catch a ranking regression, not noise.
        #expect(report.meanReciprocalRank > 0.5, "MRR@10 \(report.meanReciprocalRank)")
        #expect(report.successRate > 0.7, "success@10 \(report.successRate)")
        #expect(!report.outcomes.contains { $0.error != nil })
    }
}

/// The Debian package corpus (`/work/shared/corpus/debian-packages.jsonl.xz`, or `$SPOTLITE_CORPUS`).
enum DebianCorpus {
    struct Package: Sendable {
        var name: String
        var summary: String
        var description: String
        var line: String
    }

    static var path: String {
        ProcessInfo.processInfo.environment["SPOTLITE_CORPUS"] ?? "/work/shared/corpus/debian-packages.jsonl.xz"
    }

    /// The first `limit` packages (all without a limit), decompressed with `xz`.
    static func load(limit: Int? = nil) throws -> [Package] {
        try #require(FileManager.default.fileExists(atPath: path),
                     "the Debian corpus is missing at \(path); set SPOTLITE_CORPUS to its path")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xz")
        process.arguments = ["-dc", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var packages: [Package] = []
        var buffer = Data()
        let handle = output.fileHandleForReading
        reading: while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                packages.append(Package(name: object["name"] as? String ?? "", summary: object["summary"] as? String ?? "",
                                        description: object["description"] as? String ?? "",
                                        line: String(decoding: line, as: UTF8.self)))
                if let limit, packages.count >= limit { break reading }
            }
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return packages
    }

    /// The configuration shipped in the repository (config/spotlite.toml): what users get.
    static func shippedConfiguration() throws -> SpotliteConfiguration {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try SpotliteConfiguration(contentsOf: repository.appendingPathComponent("config/spotlite.toml").path)
    }

    /// Imports the packages through the store's importer, as `spotlite import` does.
    static func importRecords(_ packages: [Package], into sandbox: IndexerSandbox) throws {
        let file = sandbox.directory + "/corpus.jsonl"
        try packages.map(\.line).joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let importer = try RecordImporter(store: sandbox.store, entity: "Package", batchSize: 5000)
        let summary = try importer.run(from: try FileHandle(forReadingFrom: URL(fileURLWithPath: file)))
        #expect(summary.inserted + summary.updated == Set(packages.map(\.name)).count)
    }
}

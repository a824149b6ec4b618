import Foundation
import SpotliteSearch

/// Figure 2: Spotlite's full rebuild (store snapshot → documents → new generation → fsync → switch) against the
/// raw engine loop with identical term generation and no store, then the engine's own levers against the naive loop.
///
/// Every run builds each variant once, in the same order, so ratios compare builds made minutes apart on the same
/// machine state; the figures are medians over runs of those per-run ratios.
enum RebuildFigure {
    struct Variant: Codable, Sendable {
        var name: String
        var seconds: Double
        /// Median over runs of this variant's time divided by the naive loop's time in the same run.
        var relativeToNaive: Double
        var samples: [Double]
    }

    struct Result: FigureResult {
        var runs: Int
        var documents: Int
        var spotliteSeconds: Double
        /// The raw loop with Spotlite's write scheme: `DB_NO_SYNC`, then one fsync before use.
        var rawSeconds: Double
        var rawNaiveSeconds: Double
        /// Spotlite / raw loop with the same write scheme: the cost of the store, the mapping and the generations.
        var ratio: Double
        var ratioToNaive: Double
        var levers: [Variant]
        /// Whether the raw loop's index holds the same documents and term statistics as Spotlite's.
        var termGenerationMatches: Bool
        var termsCompared: Int

        static let target = 1.2

        var rows: [TableRow] {
            var rows = [
                TableRow("2 rebuild", "Spotlite rebuild, \(documents) docs (median of \(runs))", Format.seconds(spotliteSeconds)),
                TableRow("2 rebuild", "raw loop, same write scheme (no-sync + one fsync)", Format.seconds(rawSeconds)),
                TableRow("2 rebuild", "Spotlite / raw loop", Format.ratio(ratio), target: "≤ 1.2×", met: ratio <= Self.target),
                TableRow("2 rebuild", "raw loop, naive (fsync on every commit)", Format.seconds(rawNaiveSeconds)),
                TableRow("2 rebuild", "Spotlite / naive raw loop", Format.ratio(ratioToNaive)),
            ]
            for lever in levers {
                rows.append(TableRow("2 rebuild", "raw: \(lever.name)",
                                     "\(Format.seconds(lever.seconds)) (\(Format.ratio(lever.relativeToNaive)) of naive)"))
            }
            rows.append(TableRow("2 rebuild", "raw index = Spotlite index (\(termsCompared) term frequencies, doc count)",
                                 termGenerationMatches ? "identical" : "DIFFERENT", target: "identical",
                                 met: termGenerationMatches))
            return rows
        }
    }

    private struct Lever {
        var name: String
        var options: RawIndexer.Options
    }

    static func run(_ context: BenchContext) async throws -> Result {
        // Import first: the store's creation is not part of a rebuild.
        _ = try context.store()
        let records = context.corpus.records
        let indexer = try context.makeIndexer()
        var sameScheme = RawIndexer.Options()
        sameScheme.noSync = true
        var oneFlush = sameScheme
        oneFlush.flushThreshold = max(records.count + 1, 10_000)
        var noPositions = sameScheme
        noPositions.variations.positions = false
        var noSpelling = sameScheme
        noSpelling.variations.spelling = false
        var pipelined = noSpelling
        pipelined.pipelined = true
        var allLevers = pipelined
        allLevers.flushThreshold = oneFlush.flushThreshold
        let levers = [
            Lever(name: "DB_NO_SYNC + one fsync", options: sameScheme),
            Lever(name: "+ flush threshold \(oneFlush.flushThreshold!) (one flush)", options: oneFlush),
            Lever(name: "+ no positions (no phrase search)", options: noPositions),
            Lever(name: "+ no spelling data (no correction)", options: noSpelling),
            Lever(name: "+ no spelling, documents built on a 2nd thread", options: pipelined),
            Lever(name: "all of: no-sync, one flush, no spelling, 2nd thread", options: allLevers),
        ]

        var spotlite: [Double] = []
        var naive: [Double] = []
        var leverSamples = Array(repeating: [Double](), count: levers.count)
        var ratios: [Double] = []
        var ratiosToNaive: [Double] = []
        var leverRatios = Array(repeating: [Double](), count: levers.count)
        let naivePath = context.path("raw-naive")
        for run in 0..<context.settings.slowRuns {
            let spotliteTime = try await Stopwatch.seconds { try await indexer.rebuild(reason: "benchmark") }
            let naiveTime = try RawIndexer.build(records: records, configuration: context.configuration,
                                                 entity: context.entity.name, path: naivePath,
                                                 options: RawIndexer.Options()).seconds
            var leverTimes: [Double] = []
            for (index, lever) in levers.enumerated() {
                let path = context.path("raw-lever")
                let time = try RawIndexer.build(records: records, configuration: context.configuration,
                                                entity: context.entity.name, path: path, options: lever.options).seconds
                try? FileManager.default.removeItem(atPath: path)
                leverSamples[index].append(time)
                leverRatios[index].append(time / naiveTime)
                leverTimes.append(time)
            }
            spotlite.append(spotliteTime)
            naive.append(naiveTime)
            ratios.append(spotliteTime / leverTimes[0])
            ratiosToNaive.append(spotliteTime / naiveTime)
            Progress.note(String(format: "rebuild run %d/%d: Spotlite %.2f s, raw same scheme %.2f s, naive %.2f s; levers %@",
                                 run + 1, context.settings.slowRuns, spotliteTime, leverTimes[0], naiveTime,
                                 leverTimes.map { String(format: "%.2f", $0) }.joined(separator: " ")))
        }
        context.markIndexReady()
        let (matches, compared) = try compareIndexes(spotlite: context.liveGenerationPath(), raw: naivePath,
                                                     context: context)
        return Result(
            runs: spotlite.count, documents: records.count, spotliteSeconds: Statistics.median(spotlite),
            rawSeconds: Statistics.median(leverSamples[0]), rawNaiveSeconds: Statistics.median(naive),
            ratio: Statistics.median(ratios), ratioToNaive: Statistics.median(ratiosToNaive),
            levers: levers.indices.map { index in
                Variant(name: levers[index].name, seconds: Statistics.median(leverSamples[index]),
                        relativeToNaive: Statistics.median(leverRatios[index]), samples: leverSamples[index])
            },
            termGenerationMatches: matches, termsCompared: compared)
    }

    /// Compares the document counts and the frequencies of a sample of terms of every kind (plain words, prefixed
    /// words, keyword terms, id terms) between the two indexes.
    static func compareIndexes(spotlite: String, raw: String, context: BenchContext) throws -> (Bool, Int) {
        let left = try XapianDatabase(path: spotlite)
        let right = try XapianDatabase(path: raw)
        guard try left.documentCount() == right.documentCount() else { return (false, 0) }
        var terms = Set<String>()
        var generator = SeededGenerator(seed: 0x7E57)
        let records = context.corpus.records
        for _ in 0..<min(200, records.count) {
            let record = records[Int.random(in: 0..<records.count, using: &generator)]
            terms.insert("Q\(context.entity.name):\(record[context.entity.key] ?? "")")
            for field in context.entity.fields {
                guard let value = record[field.name] else { continue }
                switch field.type {
                case .text:
                    for word in QueryWorkload.distinctWords(value).prefix(3) {
                        terms.insert(word)
                        if let prefix = field.prefix { terms.insert("XT" + prefix.uppercased() + ":" + word) }
                    }
                case .keyword:
                    for keyword in RawDocumentFactory.keywords(in: value, separator: field.separator).prefix(2) {
                        terms.insert("XK" + field.name.uppercased() + ":" + keyword)
                    }
                default:
                    break
                }
            }
        }
        for term in terms where try left.termFrequency(term) != right.termFrequency(term) {
            Progress.note("term \(term): Spotlite index \(try left.termFrequency(term)) documents, raw index \(try right.termFrequency(term))")
            return (false, terms.count)
        }
        return (true, terms.count)
    }
}

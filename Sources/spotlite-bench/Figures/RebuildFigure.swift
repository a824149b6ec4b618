import Foundation
import SpotliteSearch

/// Figure 2: Spotlite's full rebuild (store snapshot → documents → new generation → fsync → switch) against the
/// raw engine loop with identical term generation and no store, then the engine's own levers against the naive loop.
///
/// Spotlite's rebuild runs in a child process (`spotlite-bench child-rebuild`), so that the same runs give the
/// rebuild's peak memory (figure 7); its time is measured inside the child, around the rebuild alone. Every run
/// builds each variant once, in the same order, so ratios compare builds made moments apart on the same machine
/// state; the figures are medians over runs of those per-run ratios. The levers are measured on the first
/// `leverRecords` records (20,000 by default, still two automatic flushes at Xapian's default threshold) to keep
/// the suite within its time budget.
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
        var spotliteSamples: [Double]
        /// Peak resident memory of each Spotlite rebuild (child process).
        var spotlitePeakResidentBytes: [Int]
        /// The raw loop with Spotlite's write scheme: `DB_NO_SYNC`, then one fsync before use.
        var rawSeconds: Double
        var rawSamples: [Double]
        /// Spotlite / raw loop with the same write scheme: the cost of the store, the mapping and the generations.
        var ratio: Double
        var leverDocuments: Int
        /// The naive raw loop (default open flags: every commit and automatic flush fsyncs) on the lever records.
        var naiveSeconds: Double
        var levers: [Variant]
        /// Whether the raw loop's index holds the same documents and term statistics as Spotlite's.
        var termGenerationMatches: Bool
        var termsCompared: Int

        static let target = 1.2

        var rows: [TableRow] {
            var rows = [
                TableRow("2 rebuild", "Spotlite rebuild, \(documents) docs (median of \(runs))", Format.seconds(spotliteSeconds)),
                TableRow("2 rebuild", "raw loop, same term generation and write scheme", Format.seconds(rawSeconds)),
                TableRow("2 rebuild", "Spotlite / raw loop", Format.ratio(ratio), target: "≤ 1.2×", met: ratio <= Self.target),
                TableRow("2 rebuild", "raw index = Spotlite index (\(termsCompared) term frequencies, doc count)",
                         termGenerationMatches ? "identical" : "DIFFERENT", target: "identical",
                         met: termGenerationMatches),
                TableRow("2 rebuild", "naive raw loop, \(leverDocuments) docs (median of \(runs))", Format.seconds(naiveSeconds)),
            ]
            for lever in levers {
                rows.append(TableRow("2 rebuild", "raw \(lever.name)",
                                     "\(Format.seconds(lever.seconds)) = \(Format.ratio(lever.relativeToNaive)) naive"))
            }
            return rows
        }
    }

    private struct Lever {
        var name: String
        var options: RawIndexer.Options
    }

    static func run(_ context: BenchContext) throws -> Result {
        // Import first: creating the store is not part of a rebuild.
        _ = try context.store()
        let records = context.corpus.records
        let leverRecords = Array(records.prefix(context.settings.leverRecords))
        var sameScheme = RawIndexer.Options()
        sameScheme.noSync = true
        var oneFlush = sameScheme
        oneFlush.flushThreshold = leverRecords.count + 1
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
            Lever(name: "+ one flush (threshold \(oneFlush.flushThreshold!))", options: oneFlush),
            Lever(name: "+ no positions (no phrase search)", options: noPositions),
            Lever(name: "+ no spelling data (no correction)", options: noSpelling),
            Lever(name: "+ no spelling, documents built on a 2nd thread", options: pipelined),
            Lever(name: "no-sync, one flush, no spelling, 2nd thread", options: allLevers),
        ]

        var spotlite: [Double] = []
        var peaks: [Int] = []
        var raw: [Double] = []
        var ratios: [Double] = []
        var naive: [Double] = []
        var leverSamples = Array(repeating: [Double](), count: levers.count)
        var leverRatios = Array(repeating: [Double](), count: levers.count)
        let rawPath = context.path("raw-index")
        let scratch = context.path("raw-lever")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        func build(_ records: [Corpus.Record], _ options: RawIndexer.Options, at path: String) throws -> Double {
            try RawIndexer.build(records: records, configuration: context.configuration, entity: context.entity.name,
                                 path: path, options: options).seconds
        }
        for run in 0..<context.settings.slowRuns {
            let child = try ChildRebuild.run(configurationPath: context.configurationPath,
                                             storePath: context.storePath, indexPath: context.indexPath)
            let rawTime = try build(records, sameScheme, at: rawPath)
            spotlite.append(child.report.seconds)
            peaks.append(child.peakResidentBytes)
            raw.append(rawTime)
            ratios.append(child.report.seconds / rawTime)
            let naiveTime = try build(leverRecords, RawIndexer.Options(), at: scratch)
            naive.append(naiveTime)
            for (index, lever) in levers.enumerated() {
                let time = try build(leverRecords, lever.options, at: scratch)
                leverSamples[index].append(time)
                leverRatios[index].append(time / naiveTime)
            }
            Progress.note(String(format: "rebuild run %d/%d: Spotlite %.2f s (peak RSS %@), raw %.2f s; on %d docs: naive %.2f s, levers %@",
                                 run + 1, context.settings.slowRuns, child.report.seconds,
                                 Format.bytes(child.peakResidentBytes), rawTime, leverRecords.count, naiveTime,
                                 leverSamples.map { String(format: "%.2f", $0.last!) }.joined(separator: " ")))
        }
        context.markIndexReady()
        let (matches, compared) = try compareIndexes(spotlite: context.liveGenerationPath(), raw: rawPath,
                                                     context: context)
        return Result(
            runs: spotlite.count, documents: records.count, spotliteSeconds: Statistics.median(spotlite),
            spotliteSamples: spotlite, spotlitePeakResidentBytes: peaks, rawSeconds: Statistics.median(raw),
            rawSamples: raw, ratio: Statistics.median(ratios), leverDocuments: leverRecords.count,
            naiveSeconds: Statistics.median(naive),
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

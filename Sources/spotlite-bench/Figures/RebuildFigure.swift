import SpotliteTooling
import Foundation
import Spotlite

/// Figure 2: Spotlite's full rebuild (store snapshot → documents → new generation → fsync → switch) against the
/// raw engine loop with identical term generation and no store, then the engine's own levers against the naive loop.
///
/// Spotlite's rebuild and the raw loop each run in a child process (`spotlite-bench child-rebuild`,
/// `child-raw-build`), so that the same runs give the rebuild's peak memory (figure 7); times are measured inside
/// the children, around the builds alone (not process start, not corpus parsing). Every run
/// builds each variant once, in the same order, so ratios compare builds made moments apart on the same machine
/// state; the figures are medians over runs of those per-run ratios. The levers are measured on the first
/// `leverRecords` records (12,000 by default: one automatic flush at Xapian's default threshold of 10,000, then the
/// final commit), in this process, to keep the suite within its time budget.
enum RebuildFigure {
    struct Variant: Codable, Sendable {
        var name: String
        var seconds: Double
        /// Median over runs of this variant's time divided by the naive loop's time in the same run.
        var relativeToNaive: Double
        /// The same with CPU time, which the machine's other tenants disturb less (but which misses I/O waits).
        var cpuRelativeToNaive: Double
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
        /// Peak resident memory of each raw build (child process holding the parsed corpus besides the engine).
        var rawPeakResidentBytes: [Int]
        /// Spotlite / raw loop with the same write scheme: the cost of the store, the mapping and the generations.
        var ratio: Double
        /// The same ratio with CPU time instead of wall time.
        var cpuRatio: Double
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
                TableRow("2 rebuild", "Spotlite / raw loop (wall time; CPU time \(Format.ratio(cpuRatio)))", Format.ratio(ratio),
                         target: "≤ 1.2×", met: ratio <= Self.target),
                TableRow("2 rebuild", "raw index = Spotlite index (\(termsCompared) term frequencies, doc count)",
                         termGenerationMatches ? "identical" : "DIFFERENT", target: "identical",
                         met: termGenerationMatches),
                TableRow("2 rebuild", "naive raw loop, \(leverDocuments) docs (median of \(runs))", Format.seconds(naiveSeconds)),
            ]
            for lever in levers {
                rows.append(TableRow("2 rebuild", "raw \(lever.name)",
                                     "\(Format.seconds(lever.seconds)) = \(Format.ratio(lever.relativeToNaive)) naive (CPU \(Format.ratio(lever.cpuRelativeToNaive)))"))
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
        let weightedFields = context.entity.fields.filter { $0.type == .text && $0.weight > 1 }.map(\.name)
        let spellingFields = Set(weightedFields.isEmpty ? Array(context.textFields.prefix(1)) : weightedFields)
        var sameScheme = RawIndexer.Options()
        sameScheme.noSync = true
        var oneFlush = sameScheme
        oneFlush.flushThreshold = leverRecords.count + 1
        var noPrefixedPositions = sameScheme
        noPrefixedPositions.variations.prefixedPositions = false
        var noPositions = sameScheme
        noPositions.variations.positions = false
        var someSpelling = sameScheme
        someSpelling.variations.spellingFields = spellingFields
        var noSpelling = sameScheme
        noSpelling.variations.spelling = false
        var pipelined = noSpelling
        pipelined.pipelined = true
        let levers = [
            Lever(name: "DB_NO_SYNC + one fsync", options: sameScheme),
            Lever(name: "+ one flush (threshold \(oneFlush.flushThreshold!))", options: oneFlush),
            Lever(name: "+ no positions in prefixed copies (no field:\"…\" phrases)", options: noPrefixedPositions),
            Lever(name: "+ no positions at all (no phrase search)", options: noPositions),
            Lever(name: "+ spelling data from \(spellingFields.sorted().joined(separator: ", ")) only", options: someSpelling),
            Lever(name: "+ no spelling data (no correction)", options: noSpelling),
            Lever(name: "+ no spelling, documents built on a 2nd thread", options: pipelined),
        ]

        var spotlite: [Double] = []
        var peaks: [Int] = []
        var raw: [Double] = []
        var rawPeaks: [Int] = []
        var ratios: [Double] = []
        var naive: [Double] = []
        var leverSamples = Array(repeating: [Double](), count: levers.count)
        var leverRatios = Array(repeating: [Double](), count: levers.count)
        var leverCPURatios = Array(repeating: [Double](), count: levers.count)
        var cpuRatios: [Double] = []
        let rawPath = context.path("raw-index")
        let scratch = context.path("raw-lever")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for run in 0..<context.settings.slowRuns {
            // Both builds run in fresh child processes, in alternating order, so neither inherits the other's heap
            // or page-cache state more often than the other.
            var spotliteRun: ChildRebuild.Report?
            var rawRun: ChildRawBuild.Report?
            for step in (run % 2 == 0 ? [0, 1] : [1, 0]) {
                if step == 0 {
                    spotliteRun = try ChildRebuild.run(configurationPath: context.configurationPath,
                                                       storePath: context.storePath, indexPath: context.indexPath)
                } else {
                    rawRun = try ChildRawBuild.run(corpusPath: context.corpus.path,
                                                   configurationPath: context.configurationPath,
                                                   entity: context.entity.name, indexPath: rawPath, limit: nil,
                                                   options: sameScheme)
                }
            }
            guard let spotliteRun, let rawRun else { continue }
            spotlite.append(spotliteRun.seconds)
            peaks.append(spotliteRun.peakResidentBytes)
            raw.append(rawRun.seconds)
            rawPeaks.append(rawRun.peakResidentBytes)
            ratios.append(spotliteRun.seconds / rawRun.seconds)
            cpuRatios.append(spotliteRun.cpuSeconds / rawRun.cpuSeconds)

            let naiveBuild = try RawIndexer.build(records: leverRecords, configuration: context.configuration,
                                                  entity: context.entity.name, path: scratch,
                                                  options: RawIndexer.Options())
            let naiveTime = naiveBuild.seconds
            naive.append(naiveTime)
            for (index, lever) in levers.enumerated() {
                let build = try RawIndexer.build(records: leverRecords, configuration: context.configuration,
                                                 entity: context.entity.name, path: scratch, options: lever.options)
                leverSamples[index].append(build.seconds)
                leverRatios[index].append(build.seconds / naiveTime)
                leverCPURatios[index].append(build.cpuSeconds / naiveBuild.cpuSeconds)
            }
            Progress.note(String(format: "rebuild run %d/%d: Spotlite %.2f s (peak RSS %@), raw %.2f s; on %d docs: naive %.2f s, levers %@",
                                 run + 1, context.settings.slowRuns, spotliteRun.seconds,
                                 Format.bytes(spotliteRun.peakResidentBytes), rawRun.seconds, leverRecords.count,
                                 naiveTime, leverSamples.map { String(format: "%.2f", $0.last!) }.joined(separator: " ")))
        }
        context.markIndexReady()
        let (matches, compared) = try compareIndexes(spotlite: context.liveGenerationPath(), raw: rawPath,
                                                     context: context)
        return Result(
            runs: spotlite.count, documents: records.count, spotliteSeconds: Statistics.median(spotlite),
            spotliteSamples: spotlite, spotlitePeakResidentBytes: peaks, rawSeconds: Statistics.median(raw),
            rawSamples: raw, rawPeakResidentBytes: rawPeaks, ratio: Statistics.median(ratios),
            cpuRatio: Statistics.median(cpuRatios),
            leverDocuments: leverRecords.count, naiveSeconds: Statistics.median(naive),
            levers: levers.indices.map { index in
                Variant(name: levers[index].name, seconds: Statistics.median(leverSamples[index]),
                        relativeToNaive: Statistics.median(leverRatios[index]),
                        cpuRelativeToNaive: Statistics.median(leverCPURatios[index]), samples: leverSamples[index])
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

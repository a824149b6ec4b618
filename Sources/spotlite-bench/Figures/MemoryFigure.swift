import Foundation

/// Figure 7 (first half): peak resident memory of a full rebuild of the corpus, measured on a child process that
/// does nothing else (`spotlite-bench child-rebuild`), as its own high-water mark (see ``ProcessResources`` for why
/// not `ru_maxrss`). Taken from the rebuild figure's
/// runs when it ran; otherwise from rebuilds of its own.
enum MemoryFigure {
    struct Result: FigureResult {
        var runs: Int
        var documents: Int
        var peakResidentBytes: Int
        /// The raw loop's child, for comparison (it also holds the parsed corpus); nil when not measured.
        var rawPeakResidentBytes: Int?

        static let limit = 1 << 30

        var rows: [TableRow] {
            var rows = [
                TableRow("7 memory", "peak RSS of a rebuild, \(documents) docs (child process, median of \(runs))",
                         Format.bytes(peakResidentBytes), target: "< 1 GiB", met: peakResidentBytes < Self.limit),
            ]
            if let rawPeakResidentBytes {
                rows.append(TableRow("7 memory", "peak RSS of the raw loop (corpus parsed in memory included)",
                                     Format.bytes(rawPeakResidentBytes)))
            }
            return rows
        }
    }

    static func run(_ context: BenchContext, rebuild: RebuildFigure.Result?) throws -> Result {
        if let rebuild, !rebuild.spotlitePeakResidentBytes.isEmpty {
            return Result(runs: rebuild.spotlitePeakResidentBytes.count, documents: rebuild.documents,
                          peakResidentBytes: Int(Statistics.median(rebuild.spotlitePeakResidentBytes.map(Double.init))),
                          rawPeakResidentBytes: Int(Statistics.median(rebuild.rawPeakResidentBytes.map(Double.init))))
        }
        _ = try context.store()
        var peaks: [Double] = []
        var documents = 0
        let runs = context.settings.slowRuns
        let indexPath = context.path("index-child")
        defer { try? FileManager.default.removeItem(atPath: indexPath) }
        for run in 0..<runs {
            let report = try ChildRebuild.run(configurationPath: context.configurationPath,
                                              storePath: context.storePath, indexPath: indexPath)
            peaks.append(Double(report.peakResidentBytes))
            documents = report.documents
            Progress.note(String(format: "memory run %d/%d: rebuild of %d docs in %.2f s, peak RSS %@", run + 1, runs,
                                 documents, report.seconds, Format.bytes(report.peakResidentBytes)))
        }
        return Result(runs: runs, documents: documents, peakResidentBytes: Int(Statistics.median(peaks)),
                      rawPeakResidentBytes: nil)
    }
}

import Foundation

/// Figure 7 (first half): peak resident memory of a full rebuild of the corpus, measured on a child process that
/// does nothing else (`spotlite-bench child-rebuild`), as `wait4`'s `ru_maxrss`.
enum MemoryFigure {
    struct Result: FigureResult {
        var runs: Int
        var documents: Int
        var peakResidentBytes: Int
        var rebuildSeconds: Double

        static let limit = 1 << 30

        var rows: [TableRow] {
            [
                TableRow("7 memory", "peak RSS of a rebuild, \(documents) docs (child process, median of \(runs))",
                         Format.bytes(peakResidentBytes), target: "< 1 GiB", met: peakResidentBytes < Self.limit),
            ]
        }
    }

    static func run(_ context: BenchContext) throws -> Result {
        _ = try context.store()
        var peaks: [Double] = []
        var seconds: [Double] = []
        var documents = 0
        let runs = max(1, min(2, context.settings.slowRuns))
        for run in 0..<runs {
            let outcome = try ChildRebuild.run(configurationPath: context.configurationPath,
                                               storePath: context.storePath, indexPath: context.path("index-child"))
            peaks.append(Double(outcome.peakResidentBytes))
            seconds.append(outcome.report.seconds)
            documents = outcome.report.documents
            Progress.note(String(format: "memory run %d/%d: rebuild of %d docs in %.2f s, peak RSS %@", run + 1, runs,
                                 documents, outcome.report.seconds, Format.bytes(outcome.peakResidentBytes)))
        }
        try? FileManager.default.removeItem(atPath: context.path("index-child"))
        return Result(runs: runs, documents: documents, peakResidentBytes: Int(Statistics.median(peaks)),
                      rebuildSeconds: Statistics.median(seconds))
    }
}

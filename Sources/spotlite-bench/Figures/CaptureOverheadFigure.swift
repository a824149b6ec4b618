import SpotliteTooling
import Spotlite

/// Figure 1: importing the corpus with history capture vs without (SpotliteStore's ``CaptureBenchmark``: the same
/// batched upserts of 1,000 rows per transaction into a plain WAL database and into a store whose triggers record
/// every row). Each run times both, each the best of two rounds (imports last under a second, so one descheduling
/// would otherwise decide a run); the ratio is taken within a run, then the median over runs.
enum CaptureOverheadFigure {
    struct Result: FigureResult {
        var runs: Int
        var records: Int
        var plainSeconds: Double
        var capturedSeconds: Double
        var ratio: Double
        var ratios: [Double]

        static let target = 1.3

        var rows: [TableRow] {
            [
                TableRow("1 capture", "import without capture (median of \(runs))", Format.seconds(plainSeconds)),
                TableRow("1 capture", "import with capture (median of \(runs))", Format.seconds(capturedSeconds)),
                TableRow("1 capture", "overhead ratio", Format.ratio(ratio), target: "≤ 1.3×", met: ratio <= Self.target),
            ]
        }
    }

    static func run(_ context: BenchContext) throws -> Result {
        var plain: [Double] = []
        var captured: [Double] = []
        var ratios: [Double] = []
        var records = 0
        for run in 0..<context.settings.runs {
            let result = try CaptureBenchmark.run(corpus: context.corpus.path, batchSize: 1000, rounds: 2)
            plain.append(result.plainSeconds)
            captured.append(result.capturedSeconds)
            ratios.append(result.ratio)
            records = result.rows
            Progress.note("capture run \(run + 1)/\(context.settings.runs): \(result)")
        }
        return Result(runs: ratios.count, records: records, plainSeconds: Statistics.median(plain),
                      capturedSeconds: Statistics.median(captured), ratio: Statistics.median(ratios), ratios: ratios)
    }
}

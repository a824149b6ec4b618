import Foundation

/// Everything a run measured, as written by `--json-output`.
struct BenchReport: Codable, Sendable {
    struct CorpusDescription: Codable, Sendable {
        var path: String
        var records: Int
        var entity: String
    }

    var machine: MachineDescription
    var command: String
    var corpus: CorpusDescription
    var settings: RunSettings
    var totalSeconds: Double = 0
    var capture: CaptureOverheadFigure.Result?
    var rebuild: RebuildFigure.Result?
    var shards: ShardFigure.Result?
    var remote: RemoteShardFigure.Result?
    var size: IndexSizeFigure.Result?
    var query: QueryLatencyFigure.Result?
    var cli: CommandLineQueryFigure.Result?
    var relevance: RelevanceFigure.Result?
    var memory: MemoryFigure.Result?
    var incremental: IncrementalUpdateFigure.Result?
    var freshness: FreshnessFigure.Result?
    var serve: ServeFigure.Result?
    var largeUpdate: LargeUpdateFigure.Result?
    var largeTransaction: LargeTransactionFigure.Result?
    var scale: ScaleFigure.Result?
    /// The printed table, line by line.
    var table: [TableRow] = []

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: path))
        } catch {
            throw BenchError("cannot write the JSON report to \(path): \(error.localizedDescription); choose a writable --json-output path")
        }
    }
}

import Foundation
import Spotlite

/// Figure 7 (second half), behind `--scale`: a store of `scaleRecords` records derived from the corpus (see
/// ``ScaleDerivation``), imported through the ``RecordImporter``; a full rebuild in a child process (time and peak
/// memory); then one pass of the query workload, OR and AND, through the query API. One run: it takes minutes.
enum ScaleFigure {
    struct Result: FigureResult {
        var records: Int
        var importSeconds: Double
        var rebuildSeconds: Double
        var peakResidentBytes: Int
        var indexBytes: Int
        var queryOr: LatencySummary
        var queryAnd: LatencySummary

        var rows: [TableRow] {
            [
                TableRow("7 scale", "import \(records) derived records with capture (1 run)", Format.seconds(importSeconds)),
                TableRow("7 scale", "rebuild (child process, 1 run)", Format.seconds(rebuildSeconds)),
                TableRow("7 scale", "peak RSS of the rebuild", Format.bytes(peakResidentBytes), target: "< 1 GiB",
                         met: peakResidentBytes < MemoryFigure.Result.limit),
                TableRow("7 scale", "index size", Format.bytes(indexBytes)),
                TableRow("7 scale", "query OR: mean / p50 / p99",
                         "\(Format.milliseconds(queryOr.mean)) / \(Format.milliseconds(queryOr.p50)) / \(Format.milliseconds(queryOr.p99))"),
                TableRow("7 scale", "query AND: mean / p50 / p99",
                         "\(Format.milliseconds(queryAnd.mean)) / \(Format.milliseconds(queryAnd.p50)) / \(Format.milliseconds(queryAnd.p99))"),
            ]
        }
    }

    static func run(_ context: BenchContext) throws -> Result {
        let total = context.settings.scaleRecords
        let storePath = context.path("scale-store.sqlite")
        let indexPath = context.path("scale-index")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
            try? FileManager.default.removeItem(atPath: indexPath)
        }
        let descriptive = try context.descriptiveField
        let mixed = context.textFields.filter { $0 != context.entity.key && $0 != descriptive }
        let derivation = ScaleDerivation(records: context.corpus.records, key: context.entity.key, mixedFields: mixed)
        let pipe = Pipe()
        derivation.stream(total: total, to: pipe.fileHandleForWriting)
        Progress.note("scale: importing \(total) derived records")
        let (importSeconds, imported) = try Stopwatch.measure {
            try StoreFixture.importRecords(from: pipe.fileHandleForReading, into: storePath,
                                           configuration: context.configuration, entity: context.entity.name).1
        }
        guard imported.inserted == total else {
            throw BenchError("the scale import inserted \(imported.inserted) records of \(total); derived keys collided")
        }
        Progress.note(String(format: "scale: imported in %.1f s; rebuilding in a child process", importSeconds))
        let report = try ChildRebuild.run(configurationPath: context.configurationPath, storePath: storePath,
                                                  indexPath: indexPath)
        let peak = report.peakResidentBytes
        Progress.note(String(format: "scale: rebuilt %d documents in %.1f s, peak RSS %@", report.documents,
                             report.seconds, Format.bytes(peak)))
        let searcher = try IndexSearcher(configuration: context.configuration, indexPath: indexPath)
        let queries = QueryWorkload.adHoc(records: context.corpus.records, textFields: context.textFields,
                                          count: context.settings.queries)
        var or: [Double] = []
        var and: [Double] = []
        for query in queries {
            or.append(try Stopwatch.seconds {
                _ = try searcher.search(SearchRequest(query.text, snippet: SnippetOptions(length: 0), defaultOperator: .or))
            })
            and.append(try Stopwatch.seconds {
                _ = try searcher.search(SearchRequest(query.text, snippet: SnippetOptions(length: 0), defaultOperator: .and))
            })
        }
        var liveSize = 0
        if let stub = try? String(contentsOfFile: indexPath + "/XAPIANDB", encoding: .utf8),
           let name = stub.split(whereSeparator: { $0 == " " || $0 == "\n" }).last {
            liveSize = DirectorySize.bytes(atPath: indexPath + "/" + name)
        }
        return Result(records: total, importSeconds: importSeconds, rebuildSeconds: report.seconds,
                      peakResidentBytes: peak, indexBytes: liveSize, queryOr: LatencySummary(samples: or),
                      queryAnd: LatencySummary(samples: and))
    }
}

import SpotliteTooling
import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("Capture benchmark", .blockingWork)
struct CaptureBenchmarkTests {
    @Test func runsOnASmallCorpusAndRecordsEveryRow() throws {
        let directory = try TemporaryDirectory()
        let corpus = directory.path("corpus.jsonl")
        let lines = (0..<250).map { #"{"name": "pkg\#($0)", "summary": "package \#($0)", "size": \#($0), "homepage": null}"# }
        try (lines.joined(separator: "\n") + "\n").write(toFile: corpus, atomically: true, encoding: .utf8)
        let result = try CaptureBenchmark.run(corpus: corpus, batchSize: 100, rounds: 1)
        #expect(result.rows == 250)
        #expect(result.batches == 3)
        #expect(result.recordedChanges == 250)
        #expect(result.plainSeconds > 0 && result.capturedSeconds > 0)
        #expect(result.description.contains("250 rows"))
    }

    @Test func malformedLineIsReportedWithItsNumber() throws {
        let directory = try TemporaryDirectory()
        let corpus = directory.path("corpus.jsonl")
        try "{\"name\": \"a\"}\n{\"name\": 5}\n".write(toFile: corpus, atomically: true, encoding: .utf8)
        let error = #expect(throws: CaptureBenchmark.Failure.self) { try CaptureBenchmark.run(corpus: corpus) }
        guard case .malformedLine(let path, let line)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(path == corpus && line == 2)
    }

    @Test func missingOrEmptyCorpusIsAnError() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: CaptureBenchmark.Failure.self) { try CaptureBenchmark.run(corpus: directory.path("none.jsonl")) }
        let empty = directory.path("empty.jsonl")
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        let error = #expect(throws: CaptureBenchmark.Failure.self) { try CaptureBenchmark.run(corpus: empty) }
        guard case .emptyCorpus(let path)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(path == empty)
    }
}

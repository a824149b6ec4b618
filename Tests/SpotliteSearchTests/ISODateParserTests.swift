import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// One date rule on both sides: the dates stored in documents (read in Swift with Foundation's ISO 8601 parsing)
/// and the dates of `field:A..B` queries (read by the shim) accept the same days and land on the same seconds.
@Suite("Date rule", .blockingWork)
struct ISODateParserTests {
    @Test("stored dates: only days that exist, times within the day, years 1583 to 9999", arguments: [
        ("2024-02-29", 1_709_164_800.0), ("2000-02-29", 951_782_400), ("1583-01-01", -12_212_553_600),
        ("9999-12-31", 253_402_214_400), ("2024-02-10T10:20", 1_707_560_400), ("2024-02-10T10:20:30Z", 1_707_560_430),
        ("2024-02-10 10:20:30", 1_707_560_430), ("2024-02-10T10:20:30.250Z", 1_707_560_430.25),
        ("2024-02-10T10:20:30+02:00", 1_707_553_230), ("2024-02-10T10:20:30-0500", 1_707_578_430),
        ("2024-02-10T10:20:30.5+05:30", 1_707_540_630.5), (" 2024-02-29 ", 1_709_164_800), ("1712345678", 1_712_345_678),
    ])
    func validDates(text: String, seconds: Double) {
        #expect(ISODateParser.seconds(from: text) == seconds, "\(text)")
    }

    @Test("impossible or malformed stored dates are not dates", arguments: [
        "2024-02-31", "2023-02-29", "1900-02-29", "2024-04-31", "2024-13-01", "2024-00-10", "2024-01-00",
        "2024-02-10T24:00", "2024-02-10T10:60", "2024-02-10T10:20:60Z", "2024-02-10T10:20:30+24:00",
        "1582-12-31", "0001-01-01", "2024-02-10x", "2024-02-10T10", "24-02-10", "yesterday", "",
    ])
    func invalidDates(text: String) {
        #expect(ISODateParser.seconds(from: text) == nil, "\(text)")
    }

    @Test("a stored date and the same date in a query agree; an impossible one is neither stored nor searchable")
    func storedAndQueriedDatesAgree() async throws {
        let sandbox = try IndexerSandbox()
        let released = ["a": "1583-01-01", "b": "2024-02-29", "c": "2000-02-29T23:59:59Z", "d": "2024-03-01 00:00:00",
                        "e": "2024-02-31"]
        try sandbox.write(released.map { SamplePackage(name: $0.key, summary: "package \($0.key)", released: $0.value) })
        try await sandbox.makeIndexer().update()
        #expect(try sandbox.keys("released:1583-01-01") == ["a"])
        #expect(try sandbox.keys("released:2024-02-29") == ["b"])
        #expect(try sandbox.keys("released:2000-02-29") == ["c"])
        #expect(try sandbox.keys("released:2000-02-29T23:59:59") == ["c"])
        #expect(try sandbox.keys("released:2024-03-01T00:00") == ["d"])
        #expect(Set(try sandbox.keys("released:2024-02..2024-03")) == ["b", "d"], "2024-02-31 is not read as March 2nd")
        let error = try #require(throws: SearchError.self) { _ = try sandbox.keys("released:2024-02-31") }
        guard case let .invalidQuery(_, reason) = error else {
            Issue.record("expected invalidQuery, got \(error)")
            return
        }
        guard case let .refused(explanation) = reason else {
            Issue.record("expected the range processor's refusal, got \(reason)")
            return
        }
        #expect(explanation.contains("'2024-02-31'") && explanation.contains("a day that exists"), "\(explanation)")
    }
}

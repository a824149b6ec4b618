import Foundation
import SpotliteJSON
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// The hand-written JSON of `spotlite search --json` says exactly what `SearchResults.jsonObject` says (both in
/// SpotliteJSON, the command line's JSON shapes).
@Suite("Search results as JSON text", .blockingWork)
struct SearchResultsJSONTests {
    /// Text that needs every kind of escaping JSON has, and some that needs none.
    static let awkward = "quote \" backslash \\ slash / newline \n return \r tab \t bell \u{7} nul \u{0} "
        + "escape \u{1B}[31m del \u{7F} é 漢字 😀 \u{2028} end"

    static func parse(_ results: SearchResults) throws -> [String: Any] {
        var bytes: [UInt8] = []
        results.appendJSON(to: &bytes)
        #expect(!bytes.contains(UInt8(ascii: "\n")), "one line per result")
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func reference(_ results: SearchResults) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: results.jsonObject)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("awkward text, numbers of every kind, facets and an explanation: the same object as JSONSerialization's")
    func sameAsFoundation() throws {
        let hit = SearchHit(entity: "Package", key: .text(Self.awkward), rank: 1, score: 12.345678901234567, percent: 100,
                            fields: ["name": .text(Self.awkward), "size": .integer(-9_007_199_254_740_993),
                                     "ratio": .real(0.1), "tiny": .real(.leastNonzeroMagnitude), "huge": .real(1.7976931348623157e308),
                                     "whole": .real(3)],
                            snippet: Self.awkward)
        let second = SearchHit(entity: "Note", key: .integer(42), rank: 2, score: 1e-7, percent: 1, fields: [:], snippet: "")
        var results = SearchResults(query: Self.awkward, total: 1234, corrected: "corrected \"query\"", suggestion: nil,
                                    hits: [hit, second],
                                    facets: ["section": [FacetCount(value: Self.awkward, count: 3), FacetCount(value: "utils", count: 1)],
                                             "empty": []],
                                    seconds: 0.5)
        results.explanation = SearchExplanation(
            parsedQuery: "Query((Zfoo@1 OR \"bar\"@2))", executedQuery: "Query(…)",
            addedTerms: [.init(term: "Zbaz", expansionWeight: 2.5, scale: 0.25)],
            hitTerms: [[.init(term: "Zfoo", frequency: 3, weight: 1.75)], []])
        results.correctedFilters = [SearchFilter(field: "section", value: Self.awkward), SearchFilter(field: "tags", value: "a:b")]
        let written = try Self.parse(results)
        #expect(NSDictionary(dictionary: written).isEqual(to: try Self.reference(results)))
        let hits = try #require(written["hits"] as? [[String: Any]])
        #expect(hits.first?["key"] as? String == Self.awkward, "text comes back byte for byte")
        #expect((hits.first?["fields"] as? [String: Any])?["size"] as? Int == -9_007_199_254_740_993)
        var bytes: [UInt8] = []
        results.appendJSON(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"score\":12.345678901234567,"),
                "scores in their shortest exact form")
    }

    @Test("no hits, no correction, no facets")
    func empty() throws {
        let results = SearchResults(query: "", total: 0, corrected: nil, suggestion: "x", hits: [], facets: [:], seconds: 0)
        let written = try Self.parse(results)
        #expect(written["corrected"] is NSNull)
        #expect(written["corrected_filters"] == nil)
        #expect(written["explain"] == nil)
        #expect(NSDictionary(dictionary: written).isEqual(to: try Self.reference(results)))
    }

    @Test("a partial answer says so and names the shards left out; a complete one has neither key")
    func partial() throws {
        var results = SearchResults(query: "q", total: 3, corrected: nil, suggestion: nil, hits: [], facets: [:], seconds: 0)
        #expect(try Self.parse(results)["partial"] == nil)
        #expect(try Self.parse(results)["unavailable_shards"] == nil)
        results.unavailableShards = ["127.0.0.1:4001", "/index/gen-000002/shard-1"]
        let written = try Self.parse(results)
        #expect(written["partial"] as? Bool == true)
        #expect(written["unavailable_shards"] as? [String] == results.unavailableShards)
        #expect(Set(written.keys) == Set(results.jsonObject.keys))
    }

    @Test("non-finite scores, which JSON cannot hold, are null")
    func nonFinite() throws {
        let hit = SearchHit(entity: "E", key: .real(.nan), rank: 1, score: .infinity, percent: 0, fields: [:], snippet: "")
        let results = SearchResults(query: "q", total: 1, corrected: nil, suggestion: nil, hits: [hit], facets: [:], seconds: 0)
        let written = try Self.parse(results)
        let first = try #require((written["hits"] as? [[String: Any]])?.first)
        #expect(first["score"] is NSNull)
        #expect(first["key"] is NSNull)
    }
}

import Foundation
import SpotliteTestSupport
import SpotliteJSON
import Testing
@testable import SpotliteSearch
import Spotlite

/// Ranking through the query API: expansion on and off, explanations, determinism, single values on number and date
/// fields, and the `[search]` table.
@Suite("Search ranking", .blockingWork)
struct SearchRankingTests {
    static let everyQuery = QueryExpansion(documents: 3, terms: 6, weight: 0.5, minimumWords: 1)

    @Test("expansion re-ranks the matches without adding or dropping any, and only when asked or long enough")
    func expansionOnAndOff() async throws {
        let fixture = try await SearchFixture()
        func run(_ expansion: SearchRequest.Expansion) throws -> SearchResults {
            try fixture.searcher.search(SearchRequest("editor program", entities: ["Package"], limit: 100,
                                                      correctsSpelling: false, expansion: expansion, explains: true))
        }
        let off = try run(.off)
        let on = try run(.on(Self.everyQuery))
        let configured = try run(.configured)
        #expect(off.explanation?.addedTerms.isEmpty == true)
        #expect(on.explanation?.addedTerms.isEmpty == false)
        #expect(on.explanation?.addedTerms.allSatisfy { $0.term.first.map { $0.isLowercase || $0 == "Z" } ?? false } == true)
        #expect(Set(on.hits.map(\.key.description)) == Set(off.hits.map(\.key.description)))
        #expect(on.total == off.total)
        // The measured default expands queries of 5 words or more: two words run as with expansion off.
        #expect(configured.explanation?.addedTerms.isEmpty == true)
        #expect(configured.hits.map(\.key.description) == off.hits.map(\.key.description))
        #expect(on.explanation?.executedQuery.contains("AND_MAYBE") == true)
    }

    @Test("the same query ranks the same way run after run, expansion on or off")
    func deterministic() async throws {
        let fixture = try await SearchFixture()
        for expansion in [SearchRequest.Expansion.off, .on(Self.everyQuery)] {
            let request = SearchRequest("text editor database tools", limit: 100, correctsSpelling: false, expansion: expansion)
            let first = try fixture.searcher.search(request)
            for _ in 0..<3 {
                let again = try fixture.searcher.search(request)
                #expect(again.hits.map(\.key) == first.hits.map(\.key))
                #expect(again.hits.map(\.score) == first.hits.map(\.score))
            }
            let other = try IndexSearcher(configuration: fixture.sandbox.configuration)
            #expect(try other.search(request).hits.map(\.key) == first.hits.map(\.key), "a new searcher agrees")
        }
    }

    @Test("explanations show the parsed query and what each matched word adds; only when asked")
    func explanations() async throws {
        let fixture = try await SearchFixture()
        let plain = try fixture.searcher.search(SearchRequest("editors", entities: ["Package"]))
        #expect(plain.explanation == nil)
        #expect(plain.jsonObject["explain"] == nil)
        let explained = try fixture.searcher.search(SearchRequest("editors", entities: ["Package"], explains: true))
        let explanation = try #require(explained.explanation)
        #expect(explanation.parsedQuery.contains("Zeditor"))
        #expect(explanation.hitTerms.count == explained.hits.count)
        for (hit, terms) in zip(explained.hits, explanation.hitTerms) {
            #expect(terms.contains { $0.term == "Zeditor" && $0.frequency > 0 && $0.weight > 0 })
            #expect(abs(terms.reduce(0) { $0 + $1.weight } - hit.score) < 1e-9, "one word, no proximity: the parts add up")
        }
        #expect(explained.jsonObject["explain"] != nil)
    }

    @Test("sorting by a field never expands")
    func sortedSearchesAreNotExpanded() async throws {
        let fixture = try await SearchFixture()
        let results = try fixture.searcher.search(SearchRequest("editor program", entities: ["Package"],
                                                                sort: .field("size", ascending: true),
                                                                expansion: .on(Self.everyQuery), explains: true))
        #expect(results.explanation?.addedTerms.isEmpty == true)
        #expect(!results.hits.isEmpty)
    }

    @Test("ranking options out of range are refused with the reason")
    func invalidRanking() async throws {
        let fixture = try await SearchFixture()
        #expect(throws: SearchError.invalidRanking(reason: .negativeOrNotFinite(.k1, value: -1))) {
            _ = try IndexSearcher(configuration: fixture.sandbox.configuration, ranking: RankingOptions(k1: -1, b: 0.5))
        }
        var proximity = RankingOptions.measured
        proximity.proximity = ProximityBoost(window: 1, weight: 0.2)
        #expect(throws: SearchError.invalidRanking(reason: .proximityWindow(1))) {
            _ = try IndexSearcher(configuration: fixture.sandbox.configuration, ranking: proximity)
        }
        do {
            _ = try fixture.searcher.search(SearchRequest("editor", expansion: .on(QueryExpansion(documents: 0, terms: 5, weight: 1))))
            Issue.record("an expansion from no documents must be refused")
        } catch let error as SearchError {
            guard case .invalidRanking(.expansionCounts(documents: 0, terms: 5, minimumWords: _)) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.recovery == nil, "the reason names the range: \(error)")
        }
    }

    @Test("a single number or date matches those records; a value that is not one is an error")
    func singleValues() async throws {
        let fixture = try await SearchFixture()
        #expect(try fixture.keySet("size:1600") == ["grep"])
        #expect(try fixture.keySet("size:1600 OR size:700") == ["grep", "xapian-tools"])
        #expect(try fixture.keySet("released:2023-01-10") == ["grep"])
        #expect(try fixture.keySet("released:2021") == ["coreutils"])
        #expect(try fixture.keySet("released:2023-02") == ["xapian-tools"])
        #expect(try fixture.keySet("editor released:2023") == ["vim", "gimp", "inkscape"])
        #expect(try fixture.keySet("size:1000..5000") == ["vim", "nano", "grep", "sqlite3"], "ranges unchanged")
        for bad in ["size:abc", "size:12kb", "released:yesterday", "released:2023-13"] {
            do {
                _ = try fixture.keys(bad)
                Issue.record("\(bad) must be an error, not an empty result")
            } catch let error as SearchError {
                guard case let .invalidQuery(_, reason) = error else { Issue.record("unexpected \(error)"); continue }
                #expect(reason.description.contains(bad.hasPrefix("size") ? "size is a number field" : "released is a date field"), "\(reason)")
                #expect(error.recovery == nil, "the explanation is the way out: \(reason)")
            }
        }
    }

    @Test("the [search] table sets the ranking; bad values name the key")
    func searchTable() throws {
        let configuration = try SpotliteConfiguration(tomlString: """
            [search]
            k1 = 1.2
            b = 0.75
            proximity = false
            expand = { documents = 3, terms = 8, weight = 0.4, min_words = 3 }
            stemming = "all"
            """, source: "test.toml")
        #expect(configuration.ranking.k1 == 1.2 && configuration.ranking.b == 0.75)
        #expect(configuration.ranking.proximity == nil)
        #expect(configuration.ranking.expansion == QueryExpansion(documents: 3, terms: 8, weight: 0.4, minimumWords: 3))
        #expect(configuration.ranking.stemming == .all)
        let defaults = try SpotliteConfiguration(tomlString: "[search]\nexpand = true\nproximity = { window = 6 }\n", source: "test.toml")
        #expect(defaults.ranking.expansion == .measured)
        #expect(defaults.ranking.proximity == ProximityBoost(window: 6, weight: ProximityBoost.measured.weight))
        #expect(try SpotliteConfiguration(tomlString: "", source: "test.toml").ranking == .measured)
        let shallow = try SpotliteConfiguration(tomlString: "[search]\nproximity = { depth = 30 }\n", source: "test.toml")
        #expect(shallow.ranking.proximity == ProximityBoost(window: ProximityBoost.measured.window,
                                                            weight: ProximityBoost.measured.weight, depth: 30))

        for (text, key) in [("k1 = -1", "search.k1"), ("b = 2", "search.b"), ("expand = \"yes\"", "search.expand"),
                            ("expand = { documents = 0 }", "search.expand.documents"), ("stemming = \"most\"", "search.stemming"),
                            ("proximity = { window = 1 }", "search.proximity.window"), ("boost = 1", "search.boost"),
                            ("proximity = { depth = 0 }", "search.proximity.depth"),
                            ("k1 = \"high\"", "search.k1")] {
            do {
                _ = try SpotliteConfiguration(tomlString: "[search]\n" + text + "\n", source: "test.toml")
                Issue.record("\(text) must be refused")
            } catch {
                #expect(error.keyPath == key, "\(text): \(error)")
            }
        }
    }
}

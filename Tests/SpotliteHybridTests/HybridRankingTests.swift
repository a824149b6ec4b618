import SpotliteHybrid
import Testing

@Suite("Hybrid ranking by query length, with feedback")
struct HybridRankingTests {
    @Test("distinct words are runs of letters and digits, without case", arguments: [
        ("vim", 1), ("Vim vim VIM", 1), ("text editor", 2), ("C++ compiler for x86-64", 5),
        ("what are the structural problems of high speed aircraft .", 9), ("", 0), ("  --  ", 0),
        ("café crème", 2),
    ])
    func distinctWords(query: String, words: Int) {
        #expect(HybridRanking.distinctWords(in: query) == words)
    }

    @Test("short queries are lookups, from five distinct words a query is descriptive")
    func descriptive() {
        let ranking = HybridRanking.measured
        #expect(!ranking.isDescriptive("baking loaves of bread"))
        #expect(ranking.isDescriptive("heat transfer in hypersonic boundary layers"))
        #expect(!ranking.isDescriptive("the the the the the"), "one distinct word")
        #expect(ranking.fusion(for: "vim").semanticWeight == 0.1)
        #expect(ranking.fusion(for: "heat transfer in hypersonic boundary layers").semanticWeight == 1)
    }

    @Test("a short query's meaning list counts a tenth of its words list, and asks for no feedback")
    func shortQuery() {
        var asked = false
        let fused = HybridRanking.measured.fuse(query: "vim", keyword: ["a", "b", "c"], semantic: ["c", "x"]) { _ in
            asked = true
            return ["y"]
        }
        #expect(!asked)
        // c: 1/63 + 0.1/61 passes a (1/61); x, found by meaning alone, gets 0.1/62 and comes after every word match.
        #expect(fused.map(\.key) == ["c", "a", "b", "x"])
        #expect(abs(fused[0].score - (1.0 / 63 + 0.1 / 61)) < 1e-12)
    }

    @Test("a descriptive query is fused again with the list read from the moved query")
    func feedback() throws {
        var best: [String] = []
        let fused = HybridRanking.measured.fuse(query: "one two three four five", keyword: ["a", "b", "c", "d"],
                                                 semantic: ["c", "x", "y"]) { records in
            best = records
            return ["d", "z"]
        }
        // The first fusion: c (3rd and 1st), a, then b and x (2nd of one list each; b first by its keyword rank).
        #expect(best == ["c", "a", "b"])
        // The second one fuses the keyword list with ["d", "z"]: d rises to the top, x and y are gone.
        #expect(fused.map(\.key) == ["d", "a", "b", "z", "c"])
        let d = try #require(fused.first)
        #expect(d.keywordRank == 4 && d.semanticRank == 1)
    }

    @Test("no feedback when it is off, when the research returns nil, or for a fixed fusion")
    func noFeedback() {
        var off = HybridRanking.measured
        off.feedbackRecords = 0
        let long = "one two three four five"
        let plain = ReciprocalRankFusion().fuse(keyword: ["a", "b"], semantic: ["b", "x"]).map(\.key)
        #expect(off.fuse(query: long, keyword: ["a", "b"], semantic: ["b", "x"]) { _ in ["z"] }.map(\.key) == plain)
        #expect(HybridRanking.measured.fuse(query: long, keyword: ["a", "b"], semantic: ["b", "x"]) { _ in nil }.map(\.key) == plain)
        let fixed = HybridRanking.fixed(ReciprocalRankFusion(k: 30, keywordWeight: 1, semanticWeight: 0.5))
        #expect(fixed.fusion(for: "vim") == fixed.fusion(for: long))
        #expect(fixed.fuse(query: long, keyword: ["a"], semantic: ["x"]) { _ in ["z"] }.map(\.key) == ["a", "x"])
    }

    @Test("the moved query is the query plus the weighted mean of the vectors, of length 1")
    func movedQuery() throws {
        let ranking = HybridRanking.measured
        let moved = ranking.movedQuery([1, 0, 0], toward: [[0, 1, 0], [0, 0, 1]])
        // (1, 0.5, 0.5) normalised.
        let norm = (1.0 + 0.25 + 0.25).squareRoot()
        let expected = [1 / norm, 0.5 / norm, 0.5 / norm]
        for (value, wanted) in zip(moved, expected) { #expect(abs(Double(value) - wanted) < 1e-6) }
        #expect(ranking.movedQuery([1, 0], toward: []) == [1, 0], "nothing to move toward")
        #expect(ranking.movedQuery([1, 0], toward: [[0, 1, 0]]) == [1, 0], "vectors of other dimensions are ignored")
        #expect(ranking.movedQuery([1, 0], toward: [[-1, 0]]) == [1, 0], "a move to the origin keeps the query")
    }
}

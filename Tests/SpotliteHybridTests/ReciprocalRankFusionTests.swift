import SpotliteHybrid
import Testing

@Suite("Reciprocal rank fusion")
struct ReciprocalRankFusionTests {
    @Test("scores are the sum of 1/(k + rank) over the lists that hold a record")
    func scores() throws {
        let fused = ReciprocalRankFusion().fuse(keyword: ["a", "b", "c"], semantic: ["c", "d"])
        #expect(fused.map(\.key) == ["c", "a", "b", "d"])
        let c = try #require(fused.first)
        #expect(abs(c.score - (1.0 / 63 + 1.0 / 61)) < 1e-12)
        #expect(c.keywordRank == 3 && c.semanticRank == 1)
        let d = fused[3]
        #expect(d.keywordRank == nil && d.semanticRank == 2)
        #expect(abs(d.score - 1.0 / 62) < 1e-12)
    }

    @Test("equal scores fall back to the better rank, then the keyword rank, never to hashing")
    func ties() {
        // a and x have 1/61 each (first of one list); b and y 1/62 each.
        let fused = ReciprocalRankFusion().fuse(keyword: ["a", "b"], semantic: ["x", "y"])
        #expect(fused.map(\.key) == ["a", "x", "b", "y"])
        let again = ReciprocalRankFusion().fuse(keyword: ["a", "b"], semantic: ["x", "y"])
        #expect(again == fused)
    }

    @Test("a weight of zero leaves that list's order to break ties only")
    func weights() {
        let keywordOnly = ReciprocalRankFusion(keywordWeight: 1, semanticWeight: 0)
            .fuse(keyword: ["a", "b", "c"], semantic: ["c", "b", "a"])
        #expect(keywordOnly.map(\.key) == ["a", "b", "c"])
        let semanticHeavy = ReciprocalRankFusion(keywordWeight: 0.5, semanticWeight: 2)
            .fuse(keyword: ["a", "b"], semantic: ["b", "a"])
        #expect(semanticHeavy.map(\.key) == ["b", "a"])
    }

    @Test("a key repeated in one list counts once, at its best rank; empty lists give an empty result")
    func duplicatesAndEmpty() {
        let fused = ReciprocalRankFusion().fuse(keyword: ["a", "a", "b"], semantic: [String]())
        #expect(fused.map(\.key) == ["a", "b"])
        #expect(fused[1].keywordRank == 3)
        #expect(ReciprocalRankFusion().fuse(keyword: [Int](), semantic: []).isEmpty)
    }

    @Test("k = 0 is allowed and gives the head of each list the most weight")
    func zeroK() {
        let fused = ReciprocalRankFusion(k: 0).fuse(keyword: ["a", "b"], semantic: ["b"])
        #expect(fused.first?.key == "b")
        #expect(abs(fused[0].score - 1.5) < 1e-12)
    }

    @Test("modes say whether they need the embedding model")
    func modes() {
        #expect(!SearchMode.keyword.needsEmbeddings)
        #expect(SearchMode.semantic.needsEmbeddings && SearchMode.hybrid.needsEmbeddings)
        #expect(SearchMode(rawValue: "hybrid") == .hybrid && SearchMode(rawValue: "Hybrid") == nil)
    }
}

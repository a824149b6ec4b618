import CXapian
import Foundation
import SpotliteTestSupport
import Testing

/// The proximity re-ranker (`cx::ProximityReranker`, CXProximityReranker.cpp), pinned on real databases through
/// `cx_database_search`: what a near pair adds, which matches are re-ranked, and that shards change nothing.
@Suite("CXapian proximity re-ranker", .blockingWork)
struct ShimProximityRerankerTests {
    private struct Page: Equatable {
        var ids: [String] = []
        var weights: [Double] = []
        var reweighed = 0
    }

    private func parse(_ text: String, stemming: Int32? = nil) throws -> OpaquePointer {
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        _ = cx_query_parser_set_stemmer(parser, "english", &err)
        if let stemming { _ = cx_query_parser_set_stemming_strategy(parser, stemming, &err) }
        let query = withText(text) { cx_query_parser_parse(parser, $0, $1, cx_qp_flag_default, &err) }
        if let error = takeError(&err) { Issue.record("parsing \(text) failed: \(error)") }
        return try #require(query)
    }

    /// `text` searched (stemmed) and re-ranked by the nearness of its unstemmed words (window 4) over the best
    /// `depth` matches; `depth` nil: no boost.
    private func search(_ db: OpaquePointer, _ text: String, depth: UInt32?, weight: Double = 1, offset: UInt32 = 0,
                        limit: UInt32 = 50) throws -> Page {
        let query = try parse(text)
        defer { cx_query_free(query) }
        let words = try parse(text, stemming: cx_stem_none)
        defer { cx_query_free(words) }
        var err: OpaquePointer?
        var proximity = cx_proximity_options()
        proximity.words = words
        proximity.window = 4
        proximity.weight = weight
        proximity.depth = depth ?? 1
        let mset = withUnsafePointer(to: &proximity) { pointer in
            var options = cx_search_options()
            options.offset = offset
            options.limit = limit
            options.proximity = depth == nil ? nil : pointer
            return cx_database_search(db, query, &options, &err)
        }
        if let error = takeError(&err) { Issue.record("searching \(text) failed: \(error)") }
        let results = try #require(mset)
        defer { cx_mset_free(results) }
        var page = Page(reweighed: cx_mset_reweighed_documents(results))
        for index in 0..<cx_mset_size(results) {
            var hit = cx_hit()
            #expect(cx_mset_hit(results, index, &hit, &err))
            page.weights.append(hit.weight)
            if case let .success(bytes) = readBytes({ cx_mset_hit_data(results, index, $0, $1, $2) }) {
                page.ids.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return page
    }

    /// A database at `name` in `directory` holding `texts` (id, text) in this order, then `fillers` documents
    /// without the query words, so that the words are rare enough to weigh.
    private func database(_ directory: ShimTemporaryDirectory, _ name: String, _ texts: [(String, String)],
                          fillers: Int = 0) throws -> String {
        let path = directory.database(name)
        let writer = try openWriter(path)
        for (id, text) in texts { #expect(addDocument(writer, id: id, text: text) == nil) }
        for index in 0..<fillers {
            #expect(addDocument(writer, id: "filler\(index)", text: "nothing of the kind here, number \(index)") == nil)
        }
        var err: OpaquePointer?
        #expect(cx_writable_database_commit(writer, &err))
        #expect(takeError(&err) == nil)
        cx_writable_database_free(writer)
        return path
    }

    /// The weight of `id` for the one unstemmed term `word`, as BM25 with Xapian's defaults gives it.
    private func termWeight(_ db: OpaquePointer, _ word: String, of id: String) throws -> Double {
        let term = try parse(word, stemming: cx_stem_none)
        defer { cx_query_free(term) }
        var err: OpaquePointer?
        var options = cx_search_options()
        options.limit = 1000
        let mset = try #require(cx_database_search(db, term, &options, &err))
        defer { cx_mset_free(mset) }
        for index in 0..<cx_mset_size(mset) {
            var hit = cx_hit()
            _ = cx_mset_hit(mset, index, &hit, &err)
            if case let .success(bytes) = readBytes({ cx_mset_hit_data(mset, index, $0, $1, $2) }),
               String(decoding: bytes, as: UTF8.self) == id {
                return hit.weight
            }
        }
        Issue.record("\(id) does not hold \(word)")
        return 0
    }

    @Test func eachNearPairAddsItsShareOfTheWeightTimesItsWordsWeightsAndFarPairsAddNothing() throws {
        let directory = try ShimTemporaryDirectory()
        let db = try openReader(try database(directory, "db", [
            ("both", "wall heat transfer one two three four five six seven eight"),
            ("first", "wall heat one two three four five six transfer"),
            ("none", "wall one two three heat four five six seven transfer"),
            ("other", "plate and a wall of a kind"),
        ], fillers: 20))
        defer { cx_database_free(db) }
        let base = try search(db, "wall heat transfer", depth: nil)
        for weight in [0.25, 1.0] {
            let boosted = try search(db, "wall heat transfer", depth: 100, weight: weight)
            #expect(Set(boosted.ids) == Set(base.ids), "re-ranking never changes what matches")
            func gain(_ id: String) -> Double {
                boosted.weights[boosted.ids.firstIndex(of: id)!] - base.weights[base.ids.firstIndex(of: id)!]
            }
            // Three words, two pairs: each pair's share is half the weight.
            let share = weight / 2
            let wall = try termWeight(db, "wall", of: "both"), heat = try termWeight(db, "heat", of: "both")
            let transfer = try termWeight(db, "transfer", of: "both")
            #expect(abs(gain("both") - (share * (wall + heat) + share * (heat + transfer))) < 1e-9)
            let firstWall = try termWeight(db, "wall", of: "first"), firstHeat = try termWeight(db, "heat", of: "first")
            #expect(abs(gain("first") - share * (firstWall + firstHeat)) < 1e-9, "only the near pair counts")
            #expect(gain("none") == 0 && gain("other") == 0, "no near pair: the base weight, bit for bit")
            #expect(boosted.ids.first == "both")
            #expect(zip(boosted.weights, boosted.weights.dropFirst()).allSatisfy { $0 >= $1 })
        }
    }

    @Test func matchesTiedWithTheFirstOneLeftOutStayOutOfTheReRanking() throws {
        let directory = try ShimTemporaryDirectory()
        // The same length and counts, so the same base weight: only the order of the words differs.
        let db = try openReader(try database(directory, "db", [
            ("far", "heat one two three four five transfer"),
            ("near", "heat transfer one two three four five"),
            ("weaker", "heat and transfer in one much longer text about many other things entirely"),
        ], fillers: 20))
        defer { cx_database_free(db) }
        let base = try search(db, "heat transfer", depth: nil)
        #expect(base.ids == ["far", "near", "weaker"] && base.weights[0] == base.weights[1])
        // A depth of 1 would split the tie: neither is re-ranked (the order among equals differs across shards).
        let split = try search(db, "heat transfer", depth: 1)
        #expect(split == Page(ids: base.ids, weights: base.weights, reweighed: 0))
        let whole = try search(db, "heat transfer", depth: 2)
        #expect(whole.ids == ["near", "far", "weaker"] && whole.reweighed == 2)
        #expect(whole.weights[1] == base.weights[0] && whole.weights[2] == base.weights[2])
    }

    @Test func pagesPastTheDepthReadNoPositionsAndOneWordHasNoPairs() throws {
        let directory = try ShimTemporaryDirectory()
        let texts = (0..<12).map { ("d\($0)", "heat " + String(repeating: "filler ", count: $0) + "transfer") }
        let db = try openReader(try database(directory, "db", texts, fillers: 20))
        defer { cx_database_free(db) }
        let base = try search(db, "heat transfer", depth: nil)
        let past = try search(db, "heat transfer", depth: 4, offset: 4, limit: 5)
        #expect(past.reweighed == 0 && past.ids == Array(base.ids[4..<9]) && past.weights == Array(base.weights[4..<9]))
        let single = try search(db, "heat", depth: 4)
        let unboosted = try search(db, "heat", depth: nil)
        #expect(single.reweighed == 0 && single.ids == unboosted.ids)
        let inside = try search(db, "heat transfer", depth: 4, limit: 4)
        #expect(inside.reweighed > 0 && Set(inside.ids) == Set(base.ids.prefix(4)))
    }

    @Test func aShardedIndexReRanksAsOneDatabaseDoes() throws {
        let directory = try ShimTemporaryDirectory()
        let vocabulary = ["heat", "transfer", "flow", "wall", "layer", "pressure", "wing", "plate"]
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let texts = (0..<150).map { id in
            ("d\(id)", (0..<(3 + next(12))).map { _ in vocabulary[next(vocabulary.count)] }.joined(separator: " "))
        }
        let single = try openReader(try database(directory, "single", texts))
        defer { cx_database_free(single) }
        let sharded = try openReader(try database(directory, "even", texts.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)))
        defer { cx_database_free(sharded) }
        var err: OpaquePointer?
        #expect(cx_database_add_database(sharded, try database(directory, "odd", texts.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)), &err))
        #expect(takeError(&err) == nil)
        for text in ["heat transfer", "wall layer pressure"] {
            for (offset, limit) in [(0, 10), (5, 20), (0, 150)] as [(UInt32, UInt32)] {
                let one = try search(single, text, depth: 40, offset: offset, limit: limit)
                let two = try search(sharded, text, depth: 40, offset: offset, limit: limit)
                #expect(one.weights.count == two.weights.count && one.weights.count > 0)
                for (left, right) in zip(one.weights, two.weights) {
                    #expect(abs(left - right) <= 1e-12 * max(1, abs(left)), "\(text) \(offset)+\(limit): the same weights")
                }
                // Equal weights may come in another order (document ids interleave across shards).
                for (id, weight) in zip(two.ids, two.weights) {
                    if let index = one.ids.firstIndex(of: id) {
                        #expect(abs(one.weights[index] - weight) <= 1e-12 * max(1, abs(weight)), "\(text) \(id)")
                    }
                }
            }
        }
    }
}

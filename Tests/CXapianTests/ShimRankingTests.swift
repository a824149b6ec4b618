import CXapian
import Foundation
import SpotliteTestSupport
import Testing

/// The shim's ranking levers: pseudo-relevance feedback, the proximity boost, stemming strategies, weight
/// explanations, and single values on number and date fields.
@Suite("CXapian ranking", .blockingWork)
struct ShimRankingTests {
    /// A small collection where "wing" documents also talk about "lift" and "airfoil", and one document uses those
    /// words without "wing": feedback from the best "wing" documents should lift it among the query's matches.
    private static let texts: [(String, String)] = [
        ("1", "wing lift airfoil wing design"),
        ("2", "wing lift airfoil measurements"),
        ("3", "wing airfoil lift drag"),
        ("4", "lift airfoil theory of the wing"),
        ("5", "boundary layer heat transfer"),
        ("6", "heat transfer in a wing boundary layer"),
        ("7", "supersonic flow over a cone"),
        ("8", "the wing of a bird"),
    ]

    private func makeCollection(_ directory: ShimTemporaryDirectory) throws -> OpaquePointer {
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        for (id, text) in Self.texts {
            #expect(addDocument(writer, id: id, text: text, extraBooleanTerm: "XKSECTION:aero") == nil)
        }
        var err: OpaquePointer?
        #expect(cx_writable_database_commit(writer, &err))
        #expect(takeError(&err) == nil)
        return try openReader(directory.database())
    }

    private func parse(_ text: String, strategy: Int32? = nil) throws -> OpaquePointer {
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        _ = cx_query_parser_set_stemmer(parser, "english", &err)
        if let strategy { _ = cx_query_parser_set_stemming_strategy(parser, strategy, &err) }
        let query = withText(text) { cx_query_parser_parse(parser, $0, $1, cx_qp_flag_default, &err) }
        if let error = takeError(&err) { Issue.record("parsing \(text) failed: \(error)") }
        return try #require(query)
    }

    private struct Outcome: Equatable {
        var ids: [String]
        var weights: [Double]
        var added: [String]
    }

    private func search(_ db: OpaquePointer, _ query: OpaquePointer, expansion: cx_expansion_options? = nil,
                        explain: Bool = false) throws -> (Outcome, OpaquePointer) {
        var err: OpaquePointer?
        var options = cx_search_options()
        options.limit = 20
        options.explain = explain
        var expansionCopy = expansion ?? cx_expansion_options()
        let mset = withUnsafePointer(to: &expansionCopy) { pointer in
            options.expansion = expansion == nil ? nil : pointer
            return cx_database_search(db, query, &options, &err)
        }
        if let error = takeError(&err) { Issue.record("search failed: \(error)") }
        let results = try #require(mset)
        var outcome = Outcome(ids: [], weights: [], added: [])
        for index in 0..<cx_mset_size(results) {
            var hit = cx_hit()
            _ = cx_mset_hit(results, index, &hit, &err)
            outcome.weights.append(hit.weight)
            if case let .success(bytes) = readBytes({ cx_mset_hit_data(results, index, $0, $1, $2) }) {
                outcome.ids.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        for index in 0..<cx_mset_expansion_term_count(results) {
            if case let .success(bytes) = readBytes({ cx_mset_expansion_term(results, index, $0, $1, nil, nil, $2) }) {
                outcome.added.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return (outcome, results)
    }

    private func feedback(documents: UInt32 = 3, terms: UInt32 = 4, weight: Double = 1, minimumTerms: UInt32 = 0)
        -> cx_expansion_options {
        var options = cx_expansion_options()
        options.documents = documents
        options.terms = terms
        options.weight = weight
        options.minimum_terms = minimumTerms
        return options
    }

    @Test func expansionAddsFreeTextTermsOfTheBestDocumentsAndKeepsTheMatches() throws {
        let directory = try ShimTemporaryDirectory()
        let db = try makeCollection(directory)
        defer { cx_database_free(db) }
        let query = try parse("wing design")
        defer { cx_query_free(query) }
        let (plain, plainSet) = try search(db, query)
        cx_mset_free(plainSet)
        let (expanded, expandedSet) = try search(db, query, expansion: feedback())
        cx_mset_free(expandedSet)
        #expect(plain.added.isEmpty)
        #expect(!expanded.added.isEmpty && expanded.added.count <= 4)
        #expect(expanded.added.allSatisfy { $0.first.map { $0.isLowercase || $0 == "Z" } ?? false },
                "no prefixed term (ids, filters) is ever added: \(expanded.added)")
        #expect(expanded.added.contains { $0.hasSuffix("lift") || $0.hasSuffix("airfoil") }, "\(expanded.added)")
        #expect(Set(expanded.ids) == Set(plain.ids), "expansion re-ranks the query's matches, never adds or drops any")
        // "lift airfoil theory of the wing" shares the feedback documents' words: it rises above "the wing of a bird".
        let theory = try #require(expanded.ids.firstIndex(of: "4"))
        let bird = try #require(expanded.ids.firstIndex(of: "8"))
        #expect(theory < bird)
        // Deterministic: the same search gives the same ranking and weights.
        let (again, againSet) = try search(db, query, expansion: feedback())
        cx_mset_free(againSet)
        #expect(again == expanded)
    }

    @Test func shortQueriesStayUnexpandedBelowTheMinimum() throws {
        let directory = try ShimTemporaryDirectory()
        let db = try makeCollection(directory)
        defer { cx_database_free(db) }
        let query = try parse("wing design")
        defer { cx_query_free(query) }
        let (below, belowSet) = try search(db, query, expansion: feedback(minimumTerms: 3))
        cx_mset_free(belowSet)
        let (plain, plainSet) = try search(db, query)
        cx_mset_free(plainSet)
        #expect(below.added.isEmpty)
        #expect(below == plain)
    }

    @Test func invalidExpansionOptionsAreRefused() throws {
        let directory = try ShimTemporaryDirectory()
        let db = try makeCollection(directory)
        defer { cx_database_free(db) }
        let query = try parse("wing")
        defer { cx_query_free(query) }
        for bad in [feedback(documents: 0), feedback(terms: 0), feedback(weight: 0), feedback(weight: .nan)] {
            var err: OpaquePointer?
            var options = cx_search_options()
            options.limit = 5
            var copy = bad
            let mset = withUnsafePointer(to: &copy) { pointer in
                options.expansion = pointer
                return cx_database_search(db, query, &options, &err)
            }
            #expect(mset == nil)
            #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        }
    }

    @Test func explanationsAddUpToEachHitsWeight() throws {
        let directory = try ShimTemporaryDirectory()
        let db = try makeCollection(directory)
        defer { cx_database_free(db) }
        let query = try parse("wing lift heat")
        defer { cx_query_free(query) }
        let (outcome, mset) = try search(db, query, expansion: feedback(), explain: true)
        defer { cx_mset_free(mset) }
        var err: OpaquePointer?
        for (index, weight) in outcome.weights.enumerated() {
            let count = cx_mset_hit_term_count(mset, index, &err)
            #expect(count > 0)
            var sum = 0.0
            for term in 0..<count {
                var part = 0.0
                var wdf: UInt32 = 0
                _ = readBytes { cx_mset_hit_term(mset, index, term, $0, $1, &wdf, &part, $2) }
                #expect(wdf > 0)
                sum += part
            }
            #expect(abs(sum - weight) < 1e-9 * max(1, weight), "hit \(outcome.ids[index]): \(sum) vs \(weight)")
        }
        #expect(takeError(&err) == nil)
        let (_, unexplained) = try search(db, query)
        defer { cx_mset_free(unexplained) }
        _ = cx_mset_hit_term_count(unexplained, 0, &err)
        #expect(takeError(&err)?.code == CX_ERR_RANGE, "a search that was not asked to explain has no explanation")
    }

    @Test func proximityRaisesNearWordsWithoutChangingMatches() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        for (id, text) in [("far", "heat flows slowly while much later we discuss transfer"), ("near", "heat transfer"),
                           ("one", "heat alone")] {
            #expect(addDocument(writer, id: id, text: text) == nil)
        }
        var err: OpaquePointer?
        _ = cx_writable_database_commit(writer, &err)
        cx_writable_database_free(writer)
        let db = try openReader(directory.database())
        defer { cx_database_free(db) }
        let query = try parse("heat transfer")
        defer { cx_query_free(query) }
        let words = try parse("heat transfer", strategy: cx_stem_none)
        defer { cx_query_free(words) }
        let boosted = try #require(cx_query_with_proximity(query, words, 4, 1, &err))
        defer { cx_query_free(boosted) }
        let (plain, plainSet) = try search(db, query)
        cx_mset_free(plainSet)
        let (near, nearSet) = try search(db, boosted)
        cx_mset_free(nearSet)
        #expect(Set(near.ids) == Set(plain.ids))
        #expect(near.ids.first == "near")
        let nearGain = near.weights[near.ids.firstIndex(of: "near")!] - plain.weights[plain.ids.firstIndex(of: "near")!]
        let farGain = near.weights[near.ids.firstIndex(of: "far")!] - plain.weights[plain.ids.firstIndex(of: "far")!]
        #expect(nearGain > 0 && abs(farGain) < 1e-12, "only the document with the words within the window gains")
        #expect(cx_query_with_proximity(query, words, 1, 1, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        #expect(cx_query_with_proximity(query, words, 4, -1, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
    }

    private struct Refusal: Error {
        var code: cx_error_code
    }

    /// Searches `query` re-ranked by a proximity boost over `words` (window 4, weight 1), the page `offset`,
    /// `limit`; a failure carries the shim's error code.
    private func reranked(_ db: OpaquePointer, _ query: OpaquePointer, words: OpaquePointer, depth: UInt32,
                          offset: UInt32 = 0, limit: UInt32 = 20) -> Result<Outcome, Refusal> {
        rerankedCounting(db, query, words: words, depth: depth, offset: offset, limit: limit).map(\.outcome)
    }

    /// `reranked`, with the boost's weight given, and how many matches had their positions read.
    private func rerankedCounting(_ db: OpaquePointer, _ query: OpaquePointer, words: OpaquePointer, depth: UInt32,
                                  offset: UInt32 = 0, limit: UInt32 = 20,
                                  weight: Double = 1) -> Result<(outcome: Outcome, reweighed: Int), Refusal> {
        var err: OpaquePointer?
        var proximity = cx_proximity_options()
        proximity.words = words
        proximity.window = 4
        proximity.weight = weight
        proximity.depth = depth
        let mset = withUnsafePointer(to: &proximity) { pointer in
            var options = cx_search_options()
            options.offset = offset
            options.limit = limit
            options.proximity = pointer
            return cx_database_search(db, query, &options, &err)
        }
        guard let mset else { return .failure(Refusal(code: takeError(&err)?.code ?? CX_ERR_UNKNOWN)) }
        defer { cx_mset_free(mset) }
        var outcome = Outcome(ids: [], weights: [], added: [])
        for index in 0..<cx_mset_size(mset) {
            var hit = cx_hit()
            _ = cx_mset_hit(mset, index, &hit, &err)
            outcome.weights.append(hit.weight)
            #expect(hit.rank == offset + UInt32(index))
            if case let .success(bytes) = readBytes({ cx_mset_hit_data(mset, index, $0, $1, $2) }) {
                outcome.ids.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return .success((outcome, cx_mset_reweighed_documents(mset)))
    }

    @Test func proximityReRankingReadsPositionsOnlyWhereThePageCanChange() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        // 400 documents of 4 to 19 words drawn from a small vocabulary (a fixed linear congruential sequence), so
        // that the query's words meet in many documents, near and far, with many different weights.
        let vocabulary = ["heat", "transfer", "flow", "wall", "layer", "pressure", "wing", "plate", "surface", "model",
                          "shock", "wave", "cone", "drag", "lift", "jet"]
        var state: UInt64 = 42
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        for id in 0..<400 {
            let words = (0..<(4 + next(16))).map { _ in vocabulary[next(vocabulary.count)] }
            #expect(addDocument(writer, id: "d\(id)", text: words.joined(separator: " ")) == nil)
        }
        var err: OpaquePointer?
        _ = cx_writable_database_commit(writer, &err)
        cx_writable_database_free(writer)
        let db = try openReader(directory.database())
        defer { cx_database_free(db) }
        for text in ["heat transfer", "wall layer pressure", "shock wave cone drag"] {
            let query = try parse(text)
            defer { cx_query_free(query) }
            let words = try parse(text, strategy: cx_stem_none)
            defer { cx_query_free(words) }
            for weight in [0.25, 1] {
                // A page reaching past the depth weighs every match again: the reference.
                let whole = try rerankedCounting(db, query, words: words, depth: 100, limit: 400, weight: weight).get()
                #expect(whole.outcome.ids.count > 100, "\(text): the query must match more than the depth")
                for (offset, limit) in [(0, 10), (0, 1), (3, 7), (20, 10), (90, 20), (99, 1)] as [(UInt32, UInt32)] {
                    let page = try rerankedCounting(db, query, words: words, depth: 100, offset: offset, limit: limit,
                                                    weight: weight).get()
                    let range = Int(offset)..<min(Int(offset + limit), whole.outcome.ids.count)
                    #expect(page.outcome.ids == Array(whole.outcome.ids[range]), "\(text) weight \(weight) page \(offset)+\(limit)")
                    // Bit for bit: the same arithmetic on the same numbers.
                    #expect(page.outcome.weights == Array(whole.outcome.weights[range]), "\(text) weight \(weight) page \(offset)+\(limit)")
                    #expect(page.reweighed <= whole.reweighed)
                }
                let first = try rerankedCounting(db, query, words: words, depth: 100, limit: 10, weight: weight).get()
                #expect(first.reweighed < whole.reweighed,
                        "\(text) weight \(weight): the first page read positions of \(first.reweighed) matches, the whole list \(whole.reweighed)")
            }
        }
    }

    @Test func proximityReRankingWeighsTheBestMatchesAsTheChainedBoostAndLeavesTheRest() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        // Lengths and repetitions vary so that no two matches weigh the same.
        let texts = [("adjacent", "heat transfer one two three four five six seven eight nine ten eleven twelve"),
                     ("close", "heat and its transfer"),
                     ("far", "heat one two three four transfer one two three four heat one two three four transfer"),
                     ("heat", "heat heat heat alone here"), ("transfer", "transfer of funds"),
                     ("twice", "transfer of heat transfer of heat in a wall"), ("none", "nothing of the kind")]
        for (id, text) in texts { #expect(addDocument(writer, id: id, text: text) == nil) }
        var err: OpaquePointer?
        _ = cx_writable_database_commit(writer, &err)
        cx_writable_database_free(writer)
        let db = try openReader(directory.database())
        defer { cx_database_free(db) }
        let query = try parse("heat transfer")
        defer { cx_query_free(query) }
        let words = try parse("heat transfer", strategy: cx_stem_none)
        defer { cx_query_free(words) }
        let chained = try #require(cx_query_with_proximity(query, words, 4, 1, &err))
        defer { cx_query_free(chained) }
        let (everyMatch, everySet) = try search(db, chained)
        cx_mset_free(everySet)
        let (plain, plainSet) = try search(db, query)
        cx_mset_free(plainSet)
        #expect(Set(plain.weights).count == plain.weights.count, "no ties: \(plain.weights)")

        // Deep enough for every match: the weights of the boost chained into the query (one pair: the words' BM25
        // weights, computed by the shim as Xapian does), in the same order.
        let deep = try reranked(db, query, words: words, depth: 100).get()
        #expect(deep.ids == everyMatch.ids)
        for (left, right) in zip(deep.weights, everyMatch.weights) { #expect(Swift.abs(left - right) < 1e-9) }
        #expect(deep.ids != plain.ids, "the collection must be one where the boost changes the order")

        // Depth 3: the best three matches of the query are weighed again and sorted; the rest keep their weights.
        let shallow = try reranked(db, query, words: words, depth: 3).get()
        #expect(Set(shallow.ids.prefix(3)) == Set(plain.ids.prefix(3)))
        #expect(Array(shallow.ids.dropFirst(3)) == Array(plain.ids.dropFirst(3)))
        #expect(Array(shallow.weights.dropFirst(3)) == Array(plain.weights.dropFirst(3)))
        #expect(shallow.weights[0] >= shallow.weights[1] && shallow.weights[1] >= shallow.weights[2])
        for id in shallow.ids.prefix(3) {
            let weight = shallow.weights[shallow.ids.firstIndex(of: id)!]
            #expect(Swift.abs(weight - everyMatch.weights[everyMatch.ids.firstIndex(of: id)!]) < 1e-9)
        }

        // Pages of one hit, inside and past the re-ranked matches, put together give the whole list.
        for depth: UInt32 in [3, 100] {
            let whole = try reranked(db, query, words: words, depth: depth).get()
            var paged: [String] = []
            for offset in 0..<UInt32(whole.ids.count + 1) {
                paged += try reranked(db, query, words: words, depth: depth, offset: offset, limit: 1).get().ids
            }
            #expect(paged == whole.ids, "depth \(depth)")
        }

        // One word: nothing to re-rank, the query's own order.
        let single = try parse("heat", strategy: cx_stem_none)
        defer { cx_query_free(single) }
        #expect(try reranked(db, query, words: single, depth: 100).get() == plain)
        if case let .failure(refusal) = reranked(db, query, words: words, depth: 0) {
            #expect(refusal.code == CX_ERR_INVALID_ARGUMENT)
        } else {
            Issue.record("a depth of 0 must be refused")
        }
    }

    @Test func stemmingStrategiesAreExposedAndCheckedAndTheirDescriptionsDiffer() throws {
        let some = try parse("Wings flying", strategy: cx_stem_some)
        defer { cx_query_free(some) }
        let allZ = try parse("Wings flying", strategy: cx_stem_all_z)
        defer { cx_query_free(allZ) }
        func description(_ query: OpaquePointer) -> String {
            guard case let .success(bytes) = readBytes({ cx_query_description(query, $0, $1, $2) }) else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(description(some).contains("wings") && !description(some).contains("Zwing"))
        #expect(description(allZ).contains("Zwing"))
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        #expect(!cx_query_parser_set_stemming_strategy(parser, 99, &err))
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
    }

    @Test func singleValuesOnNumberAndDateFieldsMatchAndBadValuesAreErrors() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        var err: OpaquePointer?
        // (id, size, date) with dates as Unix seconds: 2024-01-05 10:00, 2024-07-01, 2023-12-31 23:59:59.
        for (id, size, seconds) in [("a", 1600.0, 1_704_448_800.0), ("b", 700.0, 1_719_792_000.0), ("c", 1600.5, 1_704_067_199.0)] {
            let document = try #require(cx_document_new(&err))
            _ = cx_document_set_value_number(document, 1, size, &err)
            _ = cx_document_set_value_number(document, 2, seconds, &err)
            withText(id) { _ = cx_document_set_data(document, $0, $1, &err) }
            withText("Q" + id) { _ = cx_writable_database_replace_document(writer, $0, $1, document, nil, &err) }
            cx_document_free(document)
        }
        _ = cx_writable_database_commit(writer, &err)
        cx_writable_database_free(writer)
        #expect(takeError(&err) == nil)
        let db = try openReader(directory.database())
        defer { cx_database_free(db) }
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        withText("size:") { _ = cx_query_parser_add_number_range(parser, 1, $0, $1, &err) }
        withText("at:") { _ = cx_query_parser_add_date_range(parser, 2, $0, $1, &err) }
        #expect(takeError(&err) == nil)
        func ids(_ text: String) throws -> Set<String> {
            let query = try #require(withText(text) { cx_query_parser_parse(parser, $0, $1, cx_qp_flag_default, &err) })
            defer { cx_query_free(query) }
            let (outcome, mset) = try search(db, query)
            cx_mset_free(mset)
            return Set(outcome.ids)
        }
        #expect(try ids("size:1600") == ["a"])
        #expect(try ids("size:1600.5") == ["c"])
        #expect(try ids("size:700..1600") == ["a", "b"], "ranges still work")
        #expect(try ids("at:2024") == ["a", "b"], "a year is every second of it")
        #expect(try ids("at:2024-01-05") == ["a"])
        #expect(try ids("at:2024-07") == ["b"])
        #expect(try ids("at:2023-12-31T23:59:59Z") == ["c"])
        #expect(try ids("at:2024..2024") == ["a", "b"])
        for (bad, field) in [("size:abc", "size"), ("size:12kb", "size"), ("at:yesterday", "at"), ("at:2024-13", "at")] {
            let query = withText(bad) { cx_query_parser_parse(parser, $0, $1, cx_qp_flag_default, &err) }
            #expect(query == nil, "\(bad) must not parse")
            let error = takeError(&err)
            #expect(error?.code == CX_ERR_QUERY_PARSER)
            #expect(error?.message.contains("is a \(field == "size" ? "number" : "date") field") == true, "\(String(describing: error))")
            cx_query_free(query)
        }
    }
}

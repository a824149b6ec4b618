import Foundation
import SpotliteTooling
import SpotliteTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import SpotliteSearch

/// The proximity re-rank over the remote backend, which reads each candidate's term list instead of the words'
/// posting lists (a remote posting list comes whole from the server): every page must be the local database's,
/// and a server lost between or during searches must fail the search with a network error naming it.
@Suite("Proximity re-ranking over remote databases", .serialized, .blockingWork)
struct XapianRemoteRankingTests {
    /// `count` documents of `shortest` to `longest` words drawn from the first `vocabularySize` words of a small
    /// vocabulary (a fixed linear congruential sequence), so that the query's words meet in many documents, near and
    /// far, with many different weights.
    private static func texts(count: Int, vocabularySize: Int, shortest: Int, longest: Int) -> [String] {
        let vocabulary = Array(["heat", "transfer", "flow", "wall", "layer", "pressure", "wing", "plate", "surface", "model",
                                "shock", "wave", "cone", "drag", "lift", "jet"].prefix(vocabularySize))
        var state: UInt64 = 42
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in
            (0..<(shortest + next(longest - shortest + 1))).map { _ in vocabulary[next(vocabulary.count)] }.joined(separator: " ")
        }
    }

    /// The two readings the remote re-rank chooses between: 400 documents of up to 19 words from 16 (the words'
    /// postings are fewer than the candidates' terms: posting lists), and 3,000 documents of 4 to 6 words from 6
    /// (far more postings than terms: term lists).
    private static let corpora = [texts(count: 400, vocabularySize: 16, shortest: 4, longest: 19),
                                  texts(count: 3000, vocabularySize: 6, shortest: 4, longest: 6)]

    private func remote(_ server: XapianTcpServer, timeout: Duration = .seconds(10)) -> XapianRemote {
        XapianRemote(host: "127.0.0.1", port: server.port, timeout: timeout, connectTimeout: timeout)
    }

    /// The value slot where the documents of `fill(_:_:ids:)` hold their id terms when asked to.
    private static let idSlot: UInt32 = 7

    /// Writes `texts`, in order (so with the same document ids wherever written), to `writer`; the documents of
    /// `shard` of `shards` only (document `i` belongs to shard `i` mod `shards`), each with its id term in
    /// ``idSlot`` when `ids`.
    private func fill(_ writer: XapianWritableDatabase, _ texts: [String] = corpora[0], ids: Bool = false,
                      shard: Int = 0, of shards: Int = 1) throws {
        let generator = try XapianTermGenerator()
        for (id, text) in texts.enumerated() where id % shards == shard {
            let document = try XapianDocument()
            try generator.startDocument(document)
            try generator.indexText(text)
            try document.setData("d\(id)")
            if ids { try document.setValue(slot: Self.idSlot, string: "Qd\(id)") }
            _ = try writer.replaceDocument(uniqueTerm: "Qd\(id)", document: document)
        }
        try writer.commit()
    }

    /// A page of `text` boosted by proximity (window 4, depth 100): each hit's data and weight. With `idSlot`, the
    /// boost is worked out by remote servers from the candidates' id terms in that slot.
    private func page(_ db: XapianDatabase, _ text: String, weight: Double, offset: Int, limit: Int,
                      idSlot: UInt32? = nil) throws -> [(String, Double)] {
        try search(db, text, weight: weight, offset: offset, limit: limit, idSlot: idSlot).hits
            .map { (String(decoding: $0.data, as: UTF8.self), $0.weight) }
    }

    /// `checkAtLeast`: matches to look at (over remote shards, more than ``collapsedMatchesLimit`` makes the
    /// servers' boost read the candidates' documents for their id terms instead of learning them with the match).
    private func search(_ db: XapianDatabase, _ text: String, weight: Double, offset: Int, limit: Int,
                        idSlot: UInt32? = nil, checkAtLeast: Int = 0) throws -> XapianSearchResults {
        let parser = try XapianQueryParser()
        let query = try parser.parse(text)
        try parser.setStemmingStrategy(.none)
        let words = try parser.parse(text)
        return try db.search(query, offset: offset, limit: limit, checkAtLeast: checkAtLeast,
                             proximity: XapianProximity(words: words, window: 4, weight: weight, depth: 100, idSlot: idSlot))
    }

    /// The shim's `collapsed_matches_limit`.
    private static let collapsedMatchesLimit = 1000

    /// The same hits in the same order, weights equal within rounding (the servers add the same terms up in
    /// another order).
    private func expectSame(_ got: [(String, Double)], _ expected: [(String, Double)], _ context: String) {
        #expect(!expected.isEmpty, "\(context)")
        #expect(got.map(\.0) == expected.map(\.0), "\(context)")
        #expect(got.count == expected.count && zip(got, expected).allSatisfy { abs($0.1 - $1.1) <= 1e-12 * max(1, abs($1.1)) },
                "\(context): \(got.map(\.1)) against \(expected.map(\.1))")
    }

    @Test(arguments: [0, 1])
    func theBoostWorkedOutByThreeServersGivesEveryPageOfTheLocalShards(corpus: Int) throws {
        let directory = try XapianTestDirectory()
        let servers = try (0..<3).map {
            try XapianTcpServer(databasePath: directory.database("served\($0)"), lifetime: .seconds(120))
        }
        defer { servers.forEach { $0.stop() } }
        for (shard, server) in servers.enumerated() {
            try fill(XapianWritableDatabase(remote: remote(server)), Self.corpora[corpus], ids: true, shard: shard, of: 3)
            try fill(XapianWritableDatabase(path: directory.database("local\(shard)")), Self.corpora[corpus], ids: true,
                     shard: shard, of: 3)
        }
        let served = try XapianDatabase(remote: remote(servers[0]))
        for server in servers.dropFirst() { try served.addDatabase(remote: remote(server)) }
        let local = try XapianDatabase(paths: (0..<3).map { directory.database("local\($0)") })
        // A local shard searched with two servers: its reads run beside the servers' on a thread of their own.
        let mixed = try XapianDatabase(path: directory.database("local0"))
        for server in servers.dropFirst() { try mixed.addDatabase(remote: remote(server)) }
        let queries = corpus == 0 ? ["heat transfer", "wall layer pressure", "shock wave cone drag"]
                                  : ["heat transfer", "flow wall layer", "transfer heat pressure flow"]
        for text in queries {
            for weight in [0.25, 1] {
                for (offset, limit) in [(0, 10), (0, 1), (3, 7), (20, 10), (90, 20), (99, 1), (120, 10), (0, 400)] {
                    // The candidates' id terms learnt with the match (a few matches looked at), and read from their
                    // documents (every match looked at, as for exact facet counts).
                    for checkAtLeast in [0, 100, Self.collapsedMatchesLimit + 1] {
                        let context = "\(text) weight \(weight) page \(offset)+\(limit), looking at \(checkAtLeast)"
                        // The local shards read positions; the servers match the candidates by their id terms.
                        let expectedResults = try search(local, text, weight: weight, offset: offset, limit: limit,
                                                         idSlot: Self.idSlot, checkAtLeast: checkAtLeast)
                        let expected = expectedResults.hits.map { (String(decoding: $0.data, as: UTF8.self), $0.weight) }
                        let got = try search(served, text, weight: weight, offset: offset, limit: limit, idSlot: Self.idSlot,
                                             checkAtLeast: checkAtLeast)
                        expectSame(got.hits.map { (String(decoding: $0.data, as: UTF8.self), $0.weight) }, expected, context)
                        let gotMixed = try search(mixed, text, weight: weight, offset: offset, limit: limit, idSlot: Self.idSlot,
                                                  checkAtLeast: checkAtLeast)
                        expectSame(gotMixed.hits.map { (String(decoding: $0.data, as: UTF8.self), $0.weight) }, expected,
                                   "\(context), one shard local")
                        // (Totals are estimates that Xapian merges otherwise over remote shards, collapsing or not.)
                        // (The second corpus ties so many matches that the depth may shrink to none.)
                        if corpus == 0 && offset < 100 { #expect(got.reweighedDocuments > 0, "\(context): the candidates are weighed again") }
                    }
                }
            }
        }
    }

    @Test func documentsWithoutTheirIdTermAreReRankedByReadingPositionsWithTheSamePages() throws {
        let directory = try XapianTestDirectory()
        let server = try XapianTcpServer(databasePath: directory.database("served"), lifetime: .seconds(120))
        defer { server.stop() }
        try fill(XapianWritableDatabase(remote: remote(server)))
        try fill(XapianWritableDatabase(path: directory.database("local")))
        let served = try XapianDatabase(remote: remote(server)), local = try XapianDatabase(path: directory.database("local"))
        for text in ["heat transfer", "wall layer pressure"] {
            for (offset, limit) in [(0, 10), (20, 10)] {
                let expected = try page(local, text, weight: 1, offset: offset, limit: limit)
                let got = try page(served, text, weight: 1, offset: offset, limit: limit, idSlot: Self.idSlot)
                #expect(got.map(\.0) == expected.map(\.0) && got.map(\.1) == expected.map(\.1), "\(text) \(offset)+\(limit)")
            }
        }
    }

    @Test(arguments: [0, 1])
    func everyPageOfARemoteDatabaseIsTheLocalOneBitForBit(corpus: Int) throws {
        let directory = try XapianTestDirectory()
        let server = try XapianTcpServer(databasePath: directory.database("served"), lifetime: .seconds(120))
        defer { server.stop() }
        try fill(XapianWritableDatabase(remote: remote(server)), Self.corpora[corpus])
        try fill(XapianWritableDatabase(path: directory.database("local")), Self.corpora[corpus])
        let served = try XapianDatabase(remote: remote(server)), local = try XapianDatabase(path: directory.database("local"))
        let queries = corpus == 0 ? ["heat transfer", "wall layer pressure", "shock wave cone drag"]
                                  : ["heat transfer", "flow wall layer", "transfer heat pressure flow"]
        for text in queries {
            for weight in [0.25, 1] {
                // Pages inside the depth (bounded: the remote reading stops early), across it, and past it.
                for (offset, limit) in [(0, 10), (0, 1), (3, 7), (20, 10), (90, 20), (99, 1), (120, 10), (0, 400)] {
                    let expected = try page(local, text, weight: weight, offset: offset, limit: limit)
                    let got = try page(served, text, weight: weight, offset: offset, limit: limit)
                    #expect(!expected.isEmpty, "\(text) page \(offset)+\(limit)")
                    #expect(got.map(\.0) == expected.map(\.0), "\(text) weight \(weight) page \(offset)+\(limit)")
                    // Bit for bit: the same bounds and the same arithmetic on the same numbers.
                    #expect(got.map(\.1) == expected.map(\.1), "\(text) weight \(weight) page \(offset)+\(limit)")
                }
            }
        }
    }

    @Test func aServerGoneBetweenSearchesOrHungDuringOneFailsTheSearchNamingIt() throws {
        let directory = try XapianTestDirectory()
        let server = try XapianTcpServer(databasePath: directory.database("served"), lifetime: .seconds(120))
        defer { server.stop() }
        try fill(XapianWritableDatabase(remote: remote(server)))

        // Hung: the connection stays open and nothing answers, so the operation timeout ends the search.
        let hung = try XapianDatabase(remote: remote(server, timeout: .milliseconds(300)))
        #expect(try page(hung, "heat transfer", weight: 1, offset: 0, limit: 10).count == 10)
        server.signal(SIGSTOP)
        let timedOut = engineFailure { _ = try page(hung, "wall layer pressure", weight: 1, offset: 0, limit: 10) }
        server.signal(SIGCONT)
        #expect(timedOut?.code == .networkTimeout, "\(String(describing: timedOut))")
        #expect(timedOut?.message.contains(server.hostAndPort) == true, "\(String(describing: timedOut))")

        // Gone: the connection a search reads from is closed under it.
        let open = try XapianDatabase(remote: remote(server))
        #expect(try page(open, "heat transfer", weight: 1, offset: 0, limit: 10).count == 10)
        server.stop()
        let closed = engineFailure { _ = try page(open, "shock wave cone drag", weight: 1, offset: 0, limit: 10) }
        #expect(closed?.code == .network, "\(String(describing: closed))")
        #expect(closed?.message.contains(server.hostAndPort) == true, "\(String(describing: closed))")
    }
}

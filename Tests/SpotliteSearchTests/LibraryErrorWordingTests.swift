import Foundation
import Spotlite
import Testing

/// The libraries advise in their own terms: a library error never tells an app's user to run a `spotlite` command
/// (the command line adds its own advice, see CommandAdvice.swift; the end-to-end tests check its words).
@Suite("Library errors name no command")
struct LibraryErrorWordingTests {
    static let engineFailures: [XapianError.Code] = [.databaseCorrupt, .database, .network]

    static var errors: [any Error & CustomStringConvertible] {
        let address = ReplicationAddress(host: "127.0.0.1", port: 7010)
        var errors: [any Error & CustomStringConvertible] = [
            SearchError.indexLocked(path: "/i", holderPID: nil),
            SearchError.indexLocked(path: "/i", holderPID: 1),
            SearchError.indexMissing(path: "/i"),
            SearchError.indexCorrupt(path: "/i", reason: "damaged"),
            SearchError.shardIdentityChanged(shard: "s0", expected: "a", found: "b"),
            SearchError.shardUnavailable(shard: "s0", reason: "down"),
            SearchError.indexingRunning,
            SearchError.historyDeletedWhileRebuilding(path: "/i", purgedThrough: HistoryToken(9), rebuilds: 6),
            ReplicationError.unreachable(address, reason: "refused"),
            ReplicationError.badLayout(address, reason: "no layout"),
            ReplicationError.cannotServe(address, reason: "in use"),
            SpotliteStoreError.unrecognizedSchema(path: "/s", matching: [], known: ["v1"]),
            SpotliteStoreError.unrecognizedSchema(path: "/s", matching: ["v1", "v2"], known: ["v1", "v2"]),
        ]
        for code in engineFailures {
            errors.append(SearchError.engine(XapianError(code: code, type: "DatabaseError", message: "failed"),
                                             outcome: .indexAtLastCommit(nextUpdateRetries: true)))
            errors.append(SearchError.indexPartlyDeleted(
                shard: "127.0.0.1:7011", error: XapianError(code: code, type: "DatabaseError", message: "failed")))
        }
        return errors
    }

    @Test("no library error tells its reader to run `spotlite`", arguments: 0..<errors.count)
    func noCommandInAdvice(_ index: Int) {
        let error = Self.errors[index]
        #expect(!error.description.contains("spotlite "), "\(error.description)")
        #expect(!error.description.contains("`index "), "\(error.description)")
        #expect(!error.description.contains(" --"), "no command-line option: \(error.description)")
    }

    @Test("a deletion cut short by a shard says what stays and how to finish, by the failure's kind")
    func partlyDeletedAdvice() {
        let network = SearchError.indexPartlyDeleted(
            shard: "127.0.0.1:7011", error: XapianError(code: .network, type: "NetworkError", message: "refused"))
        #expect(network.description == "search engine error (NetworkError) while emptying shard 127.0.0.1:7011 of the index: refused; the shard map stays until every shard is emptied; start the shard's server, then delete the index again (SpotliteIndexer.deleteIndex())")
        let disk = SearchError.indexPartlyDeleted(
            shard: "/data/s1", error: XapianError(code: .database, type: "DatabaseError", message: "disk full"))
        #expect(disk.description.hasSuffix("fix the shard, then delete the index again (SpotliteIndexer.deleteIndex())"))
    }
}

import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

@Suite("Positions", .blockingWork)
struct PositionTests {
    @Test func setReadReplaceAndRemove() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        try test.insertPackage("b")
        let t = try test.allHistory().map(\.token)
        #expect(try test.store.position(of: "indexer") == nil)

        let saved = Date(timeIntervalSince1970: 1_700_000_000)
        try test.store.setPosition(t[0], for: "indexer", timestamp: saved)
        #expect(try test.store.position(of: "indexer") == HistoryPosition(author: "indexer", token: t[0], timestamp: saved))
        try test.store.setPosition(t[1], for: "indexer")
        #expect(try test.store.position(of: "indexer")?.token == t[1])
        try test.store.setPosition(t[0], for: "app")
        #expect(try test.store.positions().map(\.author) == ["app", "indexer"])

        try test.store.removePosition(for: "indexer")
        #expect(try test.store.position(of: "indexer") == nil)
        #expect(try test.store.positions().map(\.author) == ["app"])
        try test.store.removePosition(for: "nobody")
    }

    @Test func positionsAreSharedByHandlesAndProcesses() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        let token = try #require(try test.store.currentToken())
        let other = try test.reopen()
        try other.setPosition(token, for: "importer")
        #expect(try test.store.position(of: "importer")?.token == token)

        let shellView = try SQLiteShell.run(test.path, "SELECT author || '=' || token FROM spotlite_position;")
        #expect(shellView.trimmingCharacters(in: .whitespacesAndNewlines) == "importer=\(token)")
    }

    @Test func positionForATokenTheStoreNeverIssuedIsRejected() throws {
        let test = try TestStore()
        #expect(throws: SpotliteStoreError.unknownToken(requested: HistoryToken(1), current: nil)) {
            try test.store.setPosition(HistoryToken(1), for: "indexer")
        }
        #expect(try test.store.positions().isEmpty)
    }

    @Test func commonPositionIsTheMinimumAndNilWhenOneIsMissing() throws {
        let test = try TestStore()
        for name in ["a", "b", "c"] { try test.insertPackage(name) }
        let t = try test.allHistory().map(\.token)
        try test.store.setPosition(t[2], for: "indexer")
        try test.store.setPosition(t[0], for: "app")
        #expect(try test.store.commonPosition(of: ["indexer", "app"]) == t[0])
        #expect(try test.store.commonPosition(of: ["indexer"]) == t[2])
        #expect(try test.store.commonPosition(of: ["indexer", "importer"]) == nil)
        #expect(try test.store.commonPosition(of: []) == nil)
    }

    @Test func readOnlyStoreReadsButDoesNotWritePositions() throws {
        let test = try TestStore()
        try test.insertPackage("a")
        let token = try #require(try test.store.currentToken())
        try test.store.setPosition(token, for: "indexer")
        let reader = try test.reopen(options: StoreOptions(readOnly: true))
        #expect(try reader.position(of: "indexer")?.token == token)
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .savePosition)) {
            try reader.setPosition(token, for: "other")
        }
        #expect(throws: SpotliteStoreError.readOnlyStore(operation: .removePosition)) {
            try reader.removePosition(for: "indexer")
        }
    }
}

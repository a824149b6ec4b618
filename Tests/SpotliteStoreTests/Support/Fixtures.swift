import Foundation
import GRDB
@testable import SpotliteStore

/// The model most tests use: a text-keyed entity, an integer-keyed entity, and room for untracked tables.
enum Fixtures {
    static let package = EntityDescription(
        name: "Package", key: "name", keyType: .text,
        attributes: [
            AttributeDescription(name: "summary", type: .text),
            AttributeDescription(name: "section", type: .text),
            AttributeDescription(name: "size", type: .integer),
        ],
        preserveOnDelete: ["name", "summary"])

    static let item = EntityDescription(
        name: "Item", key: "id", keyType: .integer,
        attributes: [
            AttributeDescription(name: "label", type: .text),
            AttributeDescription(name: "weight", type: .real),
            AttributeDescription(name: "payload", type: .any),
        ],
        preserveOnDelete: ["label", "weight", "payload"])

    static let model = StoreModel(entities: [package, item])
}

/// A store in its own temporary folder; the folder goes away with the value.
final class TestStore: Sendable {
    let directory: TemporaryDirectory
    let store: SpotliteStore
    var path: String { store.path }

    init(model: StoreModel = Fixtures.model, options: StoreOptions = StoreOptions()) throws {
        directory = try TemporaryDirectory()
        store = try SpotliteStore(path: directory.path("store.sqlite"), model: model, options: options)
    }

    /// Another handle on the same file, as a second app would open it.
    func reopen(model: StoreModel = Fixtures.model, options: StoreOptions = StoreOptions()) throws -> SpotliteStore {
        try SpotliteStore(path: store.path, model: model, options: options)
    }

    func insertPackage(_ name: String, summary: String = "summary", section: String? = nil, size: Int? = nil,
                       author: String? = "app", context: String? = nil) throws {
        try store.write(author: author, context: context) { db in
            try db.execute(
                sql: "INSERT INTO Package (name, summary, section, size) VALUES (?, ?, ?, ?)",
                arguments: [name, summary, section, size])
        }
    }

    /// Two transactions whose history is then deleted: fetching after `first` must throw `expiredToken`, deleted
    /// through `newest`.
    func expireHistory() throws -> (first: HistoryToken, newest: HistoryToken) {
        try insertPackage("vim")
        guard let first = try store.currentToken() else { throw ExpiredHistoryFixtureFailed() }
        try insertPackage("gimp")
        guard let newest = try store.currentToken() else { throw ExpiredHistoryFixtureFailed() }
        try store.deleteHistory(.through(newest))
        return (first, newest)
    }

    private struct ExpiredHistoryFixtureFailed: Error, CustomStringConvertible {
        var description: String { "a write left the store without a current token" }
    }

    func allHistory() throws -> [HistoryTransaction] {
        try store.fetchHistory(.allRetained)
    }

    /// Gives the transactions one second each, in token order, starting at the first one's timestamp: writes in
    /// quick succession may share a timestamp, and tests of fetching and deleting by date need distinct ones.
    func spaceOutTimestamps() throws {
        try store.databasePool.write { db in
            let tokens = try Int64.fetchAll(db, sql: "SELECT token FROM spotlite_transaction ORDER BY token")
            guard let first = try Double.fetchOne(db, sql: "SELECT timestamp FROM spotlite_transaction ORDER BY token LIMIT 1")
            else { return }
            for (index, token) in tokens.enumerated() {
                try db.execute(sql: "UPDATE spotlite_transaction SET timestamp = ? WHERE token = ?",
                               arguments: [first + Double(index), token])
            }
        }
    }
}

extension DatabaseValue {
    /// Whether the value is stored as an integer (not a real or a text).
    var isInteger: Bool {
        if case .int64 = storage { return true }
        return false
    }

    var isReal: Bool {
        if case .double = storage { return true }
        return false
    }
}

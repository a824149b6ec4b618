import Foundation
import GRDB
import SpotliteJSON
import SpotliteSearch
import SpotliteStore

/// Reads one record's row from the store, for `/records/{entity}/{key}`: only entities the configuration names,
/// by their key column, so a path can name nothing else (no table, no file).
struct RecordReader: Sendable {
    let configuration: SpotliteConfiguration
    let store: SpotliteStore

    /// The record as JSON (`entity`, `key`, `fields`: every column of its row), or a 404 problem.
    func record(entity name: String, key: String) throws -> Data {
        guard let entity = configuration.entity(named: name) else {
            let known = configuration.entities.map(\.name).joined(separator: ", ")
            throw Problem(.notFound, "no entity \(Problem.shown(name).debugDescription); the entities are \(known)")
        }
        let sql = "SELECT * FROM \(entity.name.quotedDatabaseIdentifier) WHERE \(entity.key.quotedDatabaseIdentifier) = ? LIMIT 1"
        let row = try store.read { db in try Row.fetchOne(db, sql: sql, arguments: [key]) }
        guard let row else {
            throw Problem(.notFound, "no \(entity.name) with \(entity.key) \(Problem.shown(key).debugDescription)")
        }
        var fields: [String: Any] = [:]
        var storedKey: Any = key
        for (column, value) in row {
            let json = Self.json(value)
            fields[column] = json
            if column == entity.key { storedKey = json }
        }
        return JSONDocument.line(["entity": entity.name, "key": storedKey, "fields": fields])
    }

    /// A column's value as JSON: numbers, text, null; a blob as base64 text.
    static func json(_ value: DatabaseValue) -> Any {
        switch value.storage {
        case .null: return NSNull()
        case let .int64(number): return number
        case let .double(number): return number.isFinite ? number : NSNull()
        case let .string(text): return text
        case let .blob(data): return data.base64EncodedString()
        }
    }
}

import SpotliteTooling
import Foundation
import GRDB
import Spotlite

/// JSON Lines for `spotlite import` that keep the `rev` ledger: new keys with rev 0, existing keys with their current
/// rev plus one, and deletes of existing keys. Each key appears once, so every line changes exactly one row and every
/// batch of the import is exactly `batch` changes of history.
struct ImportFileGenerator {
    let configuration: SpotliteConfiguration

    /// The current `rev` of every Item, by id.
    func currentRevisions() throws -> [String: Int] {
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel,
                                      options: StoreOptions(readOnly: true))
        return try store.read { db in
            var revisions: [String: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT id, rev FROM Item")
            while let row = try rows.next() { revisions[row["id"]] = row["rev"] ?? 0 }
            return revisions
        }
    }

    /// `lines` lines: about half new keys under `prefix`, a third updates, the rest deletes.
    func lines(_ lines: Int, prefix: String, random: inout SeededGenerator) throws -> [String] {
        let existing = try currentRevisions()
        var keys = existing.keys.sorted()
        var records = RecordGenerator(random: random.split())
        var output: [String] = []
        output.reserveCapacity(lines)
        for index in 0..<lines {
            let roll = random.unit()
            if roll < 0.5 || keys.isEmpty {
                output.append(records.item(id: "\(prefix)-\(index)").jsonLine)
                continue
            }
            let key = keys.remove(at: random.int(below: keys.count))
            if roll < 0.85 {
                output.append(records.item(id: key, rev: (existing[key] ?? 0) + 1).jsonLine)
            } else {
                let object: [String: Any] = ["id": key, "_delete": true]
                output.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
                                     as: UTF8.self))
            }
        }
        return output
    }
}

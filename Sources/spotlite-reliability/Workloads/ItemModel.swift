import Foundation

/// The entity the suites write and check: `Item(id, title, body, tag, n, rev)`, every field stored in the index so
/// that a hit can be compared with its row value for value.
///
/// `rev` is the ledger: every writer sets it to 0 on insert and adds 1 on each update, in the same statement, so the
/// history of a key must hold exactly `rev` updates since its last insert. A commit without its history, or history
/// without its commit, breaks that count.
enum ItemModel {
    static let entity = "Item"
    static let fieldNames = ["id", "title", "body", "tag", "n", "rev"]

    /// Authors of the library writers, and the consumer the concurrency suite runs.
    static let writerAuthors = ["writer-a", "writer-b"]
    static let slowConsumer = "slow-consumer"

    /// The configuration file of a suite's workspace.
    /// `shardLocations` places the shards (`shards = ["tcp://…", …]`) instead of counting them; `indexerAuthor` names
    /// the indexer's position (a second index of the same store needs its own).
    static func configuration(storePath: String, indexPath: String, batchSize: Int = 50,
                              bodyStored: Bool = true, shards: Int? = nil, shardLocations: [String]? = nil,
                              indexerAuthor: String? = nil) -> String {
        let shardsLine = shardLocations.map { "shards = [" + $0.map(tomlString).joined(separator: ", ") + "]" }
            ?? shards.map { "shards = \($0)" } ?? ""
        return """
        store = \(tomlString(storePath))
        index = \(tomlString(indexPath))
        \(shardsLine)

        [history]
        authors = ["writer-a", "writer-b", "\(slowConsumer)"]
        batch_authors = ["writer-a", "writer-b"]

        [indexer]
        batch_size = \(batchSize)
        \(indexerAuthor.map { "author = " + tomlString($0) } ?? "")

        [entities.Item]
        key = "id"
        preserve_on_delete = ["id", "title"]

        [entities.Item.fields]
        id    = { type = "keyword", store = true }
        title = { type = "text", weight = 2, prefix = "title", store = true }
        body  = { type = "text", store = \(bodyStored) }
        tag   = { type = "keyword", facet = true, store = true }
        n     = { type = "number", sortable = true, store = true }
        rev   = { type = "number", store = true }

        """
    }

    /// A TOML basic string.
    static func tomlString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// One Item row as the generators write it.
struct Item {
    var id: String
    var title: String
    var body: String
    var tag: String
    var n: Int
    var rev: Int

    /// The row as a JSON Lines object for `spotlite import`.
    var jsonLine: String {
        let object: [String: Any] = ["id": id, "title": title, "body": body, "tag": tag, "n": n, "rev": rev]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// `INSERT … ON CONFLICT DO UPDATE` for the plain SQL writers: an insert sets rev 0, an update adds 1.
    var upsertSQL: String {
        """
        INSERT INTO Item (id, title, body, tag, n, rev) VALUES (\(SQLText.literal(id)), \(SQLText.literal(title)), \
        \(SQLText.literal(body)), \(SQLText.literal(tag)), \(n), 0) ON CONFLICT(id) DO UPDATE SET title = excluded.title, \
        body = excluded.body, tag = excluded.tag, n = excluded.n, rev = rev + 1;
        """
    }
}

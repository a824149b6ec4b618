import Foundation
import Spotlite

/// A second history consumer that reads slowly: a page of transactions at a time, a pause between pages, its
/// position saved in the store after each page. It is a required author of cleanup, so the cleaner must never delete
/// a transaction it has not read; it records which `author#seq` transactions of the library writers it saw, and
/// counts any gap (an expired position, or tokens that go backwards).
struct SlowConsumer {
    struct Summary: Codable {
        var transactions = 0
        /// The `seq` numbers seen per library writer author.
        var seen: [String: [Int]] = [:]
        var gaps: [String] = []
        var finalToken: Int64 = 0
    }

    let store: SpotliteStore
    let author: String
    let pageSize: Int
    let pauseMicroseconds: UInt32

    /// Reads until `stopFile` exists and the consumer has caught up with the store.
    func run(stopFile: String) throws -> Summary {
        var summary = Summary()
        var position = try store.position(of: author)?.token
        if position == nil {
            position = try store.currentToken() ?? HistoryToken(0)
            try store.setPosition(position!, for: author)
        }
        while true {
            let page: [HistoryTransaction]
            do {
                page = try store.fetchHistory(HistoryRequest.after(position).limit(pageSize))
            } catch let error as SpotliteStoreError where error.area == .history {
                summary.gaps.append("after token \(position.map { "\($0)" } ?? "0"): \(error)")
                position = try store.currentToken()
                continue
            }
            if page.isEmpty {
                if FileManager.default.fileExists(atPath: stopFile), try store.currentToken() == position { break }
                usleep(20_000)
                continue
            }
            for transaction in page {
                if let position, transaction.token <= position {
                    summary.gaps.append("token \(transaction.token) came after position \(position)")
                }
                position = transaction.token
                summary.transactions += 1
                if let author = transaction.author, let context = transaction.contextName,
                   let hash = context.lastIndex(of: "#"), let seq = Int(context[context.index(after: hash)...]) {
                    summary.seen[author, default: []].append(seq)
                }
            }
            try store.setPosition(position!, for: author)
            usleep(pauseMicroseconds)
        }
        summary.finalToken = position?.rawValue ?? 0
        return summary
    }
}

import Foundation
import GRDB
import Spotlite

/// A writer through the Swift library: each transaction of its ``WriteScript`` is one `SpotliteStore.write` with its
/// author and the context `author#seq`, which lets a consumer tell exactly which transactions it has seen.
///
/// "database is locked" (SQLITE_BUSY / SQLITE_LOCKED) that outlasts the busy timeout is retried and counted; any
/// other error, or a transaction still locked after every retry, is a failure.
struct LibraryWriter {
    struct Summary: Codable {
        var author: String
        var committed: [Int] = []
        var busyRetries = 0
        var failed: [Int] = []
        var messages: [String] = []
        var seconds = 0.0
    }

    let store: SpotliteStore
    let author: String
    let script: WriteScript
    static let maximumRetries = 50

    func run(transactions: Int, pauseMicroseconds: UInt32 = 0) -> Summary {
        var summary = Summary(author: author)
        let started = ContinuousClock.now
        for seq in 0..<transactions {
            let statements = script.statements(for: seq)
            var attempt = 0
            while true {
                do {
                    try store.write(author: author, context: "\(author)#\(seq)") { db in
                        for statement in statements { try db.execute(sql: statement) }
                    }
                    summary.committed.append(seq)
                    break
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                    attempt += 1
                    summary.busyRetries += 1
                    if attempt > Self.maximumRetries {
                        summary.failed.append(seq)
                        summary.messages.append("transaction \(seq) still locked after \(Self.maximumRetries) retries: \(error)")
                        break
                    }
                    usleep(UInt32(1000 * attempt))
                } catch {
                    summary.failed.append(seq)
                    if summary.messages.count < 10 { summary.messages.append("transaction \(seq): \(error)") }
                    break
                }
            }
            if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
        }
        summary.seconds = (ContinuousClock.now - started).seconds
        return summary
    }
}

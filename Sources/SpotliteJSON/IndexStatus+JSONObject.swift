import Foundation
import SpotliteSearch

// The `[String: Any]` objects of `spotlite index status --json`: the command line's shape of the library's typed
// status, what scripts read.

extension IndexStatus {
    /// The JSON object of `spotlite index status --json`.
    package var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "index": index,
            // Before the first build documents and token are 0: this says that there is no index yet.
            "exists": exists,
            "documents": documents,
            "token": token?.rawValue ?? 0,
            "store_token": storeToken?.rawValue ?? 0,
            "pending_transactions": pendingTransactions,
            // Seconds since the oldest pending transaction was committed: how far the index lags; null when none is.
            "lag_seconds": oldestPendingDate.map { max(0, Date().timeIntervalSince($0)) as Any } ?? NSNull(),
            "oldest_history_token": oldestHistoryToken.map { $0.rawValue as Any } ?? NSNull(),
            "fingerprint": fingerprint ?? configurationFingerprint,
            // Why the next update rebuilds rather than applies the pending history; null when it applies it.
            "rebuild_reason": rebuildReason.map { $0 as Any } ?? NSNull(),
            "checkpoints": checkpoints.map { position in
                ["author": position.author, "token": position.token.rawValue,
                 "timestamp": ISO8601.string(from: position.timestamp)] as [String: Any]
            },
        ]
        if !shards.isEmpty {
            object["shards"] = shards.map(\.jsonObject)
            object["unavailable_shards"] = unavailableShards
        }
        if !shards.isEmpty && !unavailableShards.isEmpty { object["token"] = NSNull() }
        return object
    }
}

extension ShardStatus {
    /// The shard's entry in `spotlite index status --json`.
    package var jsonObject: [String: Any] {
        var object: [String: Any] = ["name": name, "available": isAvailable]
        if let location { object["location"] = location }
        if let documents { object["documents"] = documents }
        if isAvailable { object["token"] = token?.rawValue ?? 0 }
        if let problem { object["error"] = problem.description }
        return object
    }
}

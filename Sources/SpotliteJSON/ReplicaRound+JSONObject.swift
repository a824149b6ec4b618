import Foundation
import SpotliteReplication

extension ReplicaRound {
    /// The JSON object of a `spotlite index replicate follow --json` line.
    package var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "source": source,
            "replica": replica,
            "generation": generation,
            "shards": shards,
            "switched": switched,
            "full_copies": fullCopies,
            "documents": documents,
            "seconds": seconds,
        ]
        // An empty index has reached no token: the key is left out.
        if let token { object["token"] = token }
        return object
    }
}

import Foundation
import SpotliteSearch

// The `[String: Any]` object of `spotlite index update --json` (and of each `index watch --json` line, and the
// server's index events): the command line's shape of the library's typed summary, with the keys scripts read.

extension IndexUpdateSummary {
    /// The JSON object of `spotlite index update --json`.
    package var jsonObject: [String: Any] {
        [
            // Before the first commit the index reflects no history: 0, as `index status` says.
            "token": token?.rawValue ?? 0,
            "transactions": transactions,
            "changes": changes,
            "indexed": indexed,
            "deleted": deleted,
            "rebuilt": rebuilt,
            "reason": reason.map { $0 as Any } ?? NSNull(),
            "seconds": seconds,
            "unreadable_values": unreadableValues,
            "unreadable_examples": unreadableExamples,
        ]
    }
}

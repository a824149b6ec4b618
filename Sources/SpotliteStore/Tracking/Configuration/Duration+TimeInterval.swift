import Foundation

extension Duration {
    /// The duration in seconds, as the `Date` arithmetic of the cleaner and the summaries' `seconds` expect.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

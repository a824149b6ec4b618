import Foundation

/// ISO-8601 timestamps as the command line prints them (UTC, milliseconds).
package enum ISO8601 {
    /// The date as `2024-05-01T12:00:00.000Z`.
    package static func string(from date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

/// Durations as the configuration writes them: a whole number followed by `s`, `m`, `h` or `d` ("90m", "7d").
///
/// Deliberately narrow: no bare numbers ("7": seconds or days?), no fractions ("1.5d": write "36h"), no weeks, no
/// spaces or signs, nothing beyond a hundred years, no zero (a zero interval would clean on every change; a zero maximum would purge everything).
package enum DurationText {
    /// A hundred years: longer intervals mean "never", and would overflow date arithmetic long before `Int64` does.
    package static let maximumSeconds: Int64 = 36_500 * 86_400

    private static let secondsPerUnit: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]

    /// The duration `text` denotes, or nil when it is not one.
    package static func parse(_ text: String) -> Duration? {
        guard let unit = text.last, let multiplier = secondsPerUnit[unit] else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let count = Int64(digits), count > 0
        else { return nil }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: multiplier)
        return overflow || seconds > maximumSeconds ? nil : .seconds(seconds)
    }

    /// The shortest text that parses back to `duration`, for messages; sub-second durations are shown in seconds.
    package static func format(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        guard duration.components.attoseconds == 0, seconds > 0 else { return "\(duration)" }
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("m", 60)] where seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }

    /// A timeout as written in `[remote]`: `DurationText` plus milliseconds (`"500ms"`); nil when it is not one.
    package static func parseTimeout(_ text: String) -> Duration? {
        if text.hasSuffix("ms") {
            let digits = text.dropLast(2)
            guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let count = Int64(digits), count > 0 else { return nil }
            return .milliseconds(count)
        }
        return parse(text)
    }

    /// A timeout for messages: whole seconds as `format` shows them, anything else in milliseconds.
    package static func formatTimeout(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0, seconds > 0 { return format(duration) }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }
}

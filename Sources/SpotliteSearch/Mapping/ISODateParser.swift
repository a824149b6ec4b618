import Foundation

/// Reads the values of date fields: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH[:MM]]` (a space may replace
/// the `T`, as SQLite's `datetime()` writes it), or Unix seconds as text. Dates without a zone are UTC.
///
/// The rule, shared with the query side (the shim's date range processor reads `field:A..B` the same way): the
/// date must exist (2024-02-29 does, 2023-02-29 and 2024-02-31 do not), hours 00–23, minutes and seconds 00–59, and
/// years 1583–9999, the range ISO 8601 allows without prior agreement. Before 1583 calendars disagree (Foundation
/// switches to the Julian calendar before October 1582, the shim counts proleptic Gregorian days), so such dates
/// would land on different days on the two sides; Unix seconds reach any date.
enum ISODateParser {
    /// The years a written date may have.
    static let years = 1583...9999

    private static let dateOnly = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateSeparator(.dash)
    private static let utcDateTime = dateTime(fractionalSeconds: false, zone: .gmt)
    private static let utcDateTimeWithFraction = dateTime(fractionalSeconds: true, zone: .gmt)

    private static func dateTime(fractionalSeconds: Bool, zone: TimeZone) -> Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(timeZone: zone).year().month().day().dateSeparator(.dash)
            .dateTimeSeparator(.standard).time(includingFractionalSeconds: fractionalSeconds).timeSeparator(.colon)
    }

    /// The Unix seconds `text` stands for, or nil when it is not a date by the rule above.
    static func seconds(from text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Double(trimmed) { return number }
        let scalars = Array(trimmed.unicodeScalars)
        guard scalars.count >= 10, scalars.allSatisfy(\.isASCII),
              let year = Int(String(String.UnicodeScalarView(scalars[0..<4]))), years.contains(year) else { return nil }
        if scalars.count == 10 { return parse(trimmed, with: dateOnly) }
        guard scalars[10] == "T" || scalars[10] == " " else { return nil }
        var local = String(String.UnicodeScalarView(scalars[0..<10])) + "T" + String(String.UnicodeScalarView(scalars[11...]))
        var offset = 0
        if local.hasSuffix("Z") {
            local.removeLast()
        } else if let sign = local.lastIndex(where: { $0 == "+" || $0 == "-" }),
                  local.distance(from: local.startIndex, to: sign) > 10 {
            guard let zone = zoneOffset(local[local.index(after: sign)...]) else { return nil }
            offset = local[sign] == "+" ? zone : -zone
            local = String(local[..<sign])
        }
        // HH:MM gets its seconds, so that one style reads every form.
        if local.utf8.count == 16 { local += ":00" }
        guard local.utf8.count >= 19 else { return nil }
        let fractional = local.utf8.count > 19
        let style: Date.ISO8601FormatStyle
        if offset == 0 {
            style = fractional ? utcDateTimeWithFraction : utcDateTime
        } else {
            guard let zone = TimeZone(secondsFromGMT: offset) else { return nil }
            style = dateTime(fractionalSeconds: fractional, zone: zone)
        }
        return parse(local, with: style)
    }

    /// Foundation's reading of `text`, which must be exactly `style`'s form. Foundation rolls impossible fields over
    /// (it reads 2024-02-31 as 2024-03-02, 10:20:60 as 10:21:00), so a date is valid only if it formats back to the
    /// fields that were written.
    private static func parse(_ text: String, with style: Date.ISO8601FormatStyle) -> Double? {
        guard let date = try? style.parse(text), style.format(date).utf8.prefix(19).elementsEqual(text.utf8.prefix(19))
        else { return nil }
        return date.timeIntervalSince1970
    }

    /// Seconds east of UTC of `HH`, `HHMM` or `HH:MM`.
    private static func zoneOffset(_ text: Substring) -> Int? {
        let digits = text.replacingOccurrences(of: ":", with: "")
        guard digits.count == 2 || digits.count == 4, digits.utf8.allSatisfy({ (48...57).contains($0) }),
              let value = Int(digits) else { return nil }
        let hours = digits.count == 2 ? value : value / 100
        let minutes = digits.count == 2 ? 0 : value % 100
        guard hours < 24, minutes < 60 else { return nil }
        return hours * 3600 + minutes * 60
    }
}

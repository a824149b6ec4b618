import Foundation

/// Parses the date forms the configuration allows: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM]`, or Unix
/// seconds as text. Dates without a zone are UTC.
enum ISODateParser {
    static func seconds(from text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Double(trimmed) { return number }
        let bytes = Array(trimmed.utf8)
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == 45, bytes[7] == 45,
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0.0, offset = 0
        var index = 10
        if index < bytes.count {
            guard bytes[index] == 84 || bytes[index] == 32, // 'T' or ' '
                  let h = digits(index + 1, 2), index + 3 < bytes.count, bytes[index + 3] == 58,
                  let m = digits(index + 4, 2), h < 24, m < 60 else { return nil }
            hour = h; minute = m
            index += 6
            if index < bytes.count, bytes[index] == 58 {
                guard let s = digits(index + 1, 2), s < 61 else { return nil }
                second = Double(s)
                index += 3
                if index < bytes.count, bytes[index] == 46 {
                    var end = index + 1
                    while end < bytes.count, bytes[end] >= 48, bytes[end] <= 57 { end += 1 }
                    second += Double("0" + String(decoding: bytes[index..<end], as: UTF8.self)) ?? 0
                    index = end
                }
            }
            if index < bytes.count {
                if bytes[index] == 90 { // 'Z'
                    index += 1
                } else if bytes[index] == 43 || bytes[index] == 45 { // '+' / '-'
                    guard let oh = digits(index + 1, 2) else { return nil }
                    var om = 0
                    var next = index + 3
                    if next < bytes.count, bytes[next] == 58 { next += 1 }
                    if next < bytes.count { guard let m = digits(next, 2) else { return nil }; om = m; next += 2 }
                    offset = (oh * 3600 + om * 60) * (bytes[index] == 43 ? 1 : -1)
                    index = next
                }
                guard index == bytes.count else { return nil }
            }
        }
        // Days from the civil date (proleptic Gregorian), without Calendar: fast and locale-free.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second
    }
}

/// Counts in messages meant for people, with their digits grouped by threes as the command line prints every count
/// ("10,000 pending inserts"): one rule for the library's messages and the command's own.
package enum GroupedNumber {
    /// `value` with a comma between groups of three digits: `-1,234,567`.
    package static func text(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }
}

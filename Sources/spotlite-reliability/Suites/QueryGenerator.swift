import SpotliteTooling
/// Seeded hostile query text: Xapian syntax fragments in random order (operators without operands, unbalanced
/// quotes and brackets, field prefixes known and unknown, ranges, wildcards), control characters and NUL, the
/// replacement character that invalid UTF-8 decodes to, combining marks, and huge inputs.
struct QueryGenerator {
    private var random: SeededGenerator

    init(random: SeededGenerator) {
        self.random = random
    }

    static let fragments = [
        "AND", "OR", "NOT", "XOR", "NEAR", "ADJ", "NEAR/3", "ADJ/0", "and", "or", "not", "+", "-", "(", ")", "((", "))",
        "\"", "\"\"", "'", "*", "**", "a*", "x*y", "*a", "title:", "title:*", "tag:", "id:", "entity:", "entity:Item",
        "n:", "n:..", "n:1..", "n:..9", "n:10..2", "n:a..b", "n:1..2..3", "..", "...", ":", "::", "title::x", "ghost:x",
        "tag:\"a b\"", "title:\"", "~", "^", "\\", "\\\"", "{", "}", "[", "]", "<", ">", "&", "|", "!", "@", "#", "%",
        ";", "--", "/*", "*/", "' OR 1=1 --", "\"; DROP TABLE Item; --", "\u{0}", "\u{1}", "\u{7}", "\u{1B}[31m", "\t", "\n",
        "\r", "\u{7F}", "\u{85}", "\u{FFFD}", "\u{FFFD}\u{FFFD}", "\u{200B}", "\u{202E}", "\u{301}", "e\u{301}", "\"\u{301}",
        "🙂", "👩‍👩‍👧", "東京", "Ελληνικά", "ǅ", "ﬁ", "İ", "ß", "\u{10FFFF}", "search", "index", "xapian", "café",
    ]

    /// One query string.
    mutating func query() -> String {
        switch random.int(below: 20) {
        case 0:
            // A huge single token.
            return String(repeating: random.pick(["a", "é", "x", "東"]), count: random.int(in: 1000...100_000))
        case 1:
            // Very many terms.
            return (0..<random.int(in: 1000...20_000)).map { _ in random.pick(RecordGenerator.words) }
                .joined(separator: " ")
        case 2:
            // Deep nesting, balanced or not.
            let depth = random.int(in: 100...5000)
            return String(repeating: "(", count: depth) + "search" + String(repeating: ")", count: random.int(in: 0...depth))
        case 3:
            // Long chains of operators.
            return (0..<random.int(in: 100...3000)).map { _ in random.pick(["AND", "OR", "NOT", "search", "NEAR", "\""]) }
                .joined(separator: " ")
        case 4:
            // Random scalars, including control characters.
            return String(String.UnicodeScalarView((0..<random.int(in: 1...200)).compactMap { _ in
                Unicode.Scalar(UInt32(random.int(in: 0...0x2FFF)))
            }))
        default:
            let count = random.int(in: 1...12)
            var parts: [String] = []
            for _ in 0..<count {
                parts.append(random.chance(0.3) ? random.pick(RecordGenerator.words) : random.pick(Self.fragments))
            }
            return parts.joined(separator: random.chance(0.7) ? " " : "")
        }
    }

    mutating func entity() -> String {
        random.pick(["Item", "Item", "item", "Ghost", "", "Item; DROP TABLE Item", "Item\u{0}", "It\u{301}em"])
    }

    mutating func filter() -> (field: String, value: String) {
        let field = random.pick(["tag", "tag", "id", "title", "n", "ghost", "", "tag\u{0}", "entity"])
        let value = random.chance(0.5) ? random.pick(RecordGenerator.tags) : random.pick(Self.fragments)
        return (field, value)
    }

    mutating func sort() -> String {
        random.pick(["relevance", "n", "-n", "+n", "title", "-ghost", "", "-", "--n", "n\u{0}"])
    }

    mutating func facet() -> String {
        random.pick(["tag", "n", "title", "ghost", "", "tag\u{0}"])
    }

    mutating func paging() -> (offset: Int, limit: Int) {
        (random.pick([0, 0, 0, 5, 1_000_000, -1, Int.max, Int(Int32.max)]),
         random.pick([10, 10, 0, 1, 1000, -3, Int.max, Int(Int32.max) + 1]))
    }

    mutating func chance(_ probability: Double) -> Bool { random.chance(probability) }
}

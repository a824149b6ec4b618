import SpotliteTooling
/// Seeded records and text. Values include quotes, semicolons, SQL comment markers and non-ASCII text, so that every
/// suite also exercises quoting on its way through SQL, JSON and the index.
struct RecordGenerator {
    private var random: SeededGenerator

    init(random: SeededGenerator) {
        self.random = random
    }

    static let words = [
        "search", "index", "history", "token", "commit", "crash", "writer", "reader", "query", "phrase", "stem",
        "document", "store", "table", "column", "trigger", "journal", "wal", "checkpoint", "lock", "busy", "retry",
        "author", "context", "tombstone", "position", "cleanup", "watermark", "snapshot", "generation", "rebuild",
        "xapian", "sqlite", "spotlight", "linux", "swift", "actor", "mutex", "signal", "process", "kernel", "inotify",
        "package", "library", "editor", "graphics", "network", "database", "compression", "archive", "font",
        "music", "video", "science", "biology", "physics", "chemistry", "astronomy", "garden", "kitchen", "bicycle",
        "river", "mountain", "forest", "ocean", "desert", "island", "valley", "meadow", "harbor", "castle",
        "café", "naïve", "über", "smørrebrød", "東京", "données", "São", "Ελληνικά", "привет", "emoji🙂",
        "O'Brien", "semi;colon", "\"quoted\"", "back\\slash", "--comment", "drop;table", "it's", "50%", "a_b",
    ]

    static let tags = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
                       "lambda", "mu", "it's", "semi;colon", "naïve", "東京", "x--y", "q\"uote", "sp ace", "omega"]

    mutating func word() -> String { random.pick(Self.words) }

    mutating func text(words count: Int) -> String {
        (0..<count).map { _ in word() }.joined(separator: " ")
    }

    mutating func item(id: String, rev: Int = 0) -> Item {
        Item(id: id, title: text(words: random.int(in: 2...5)), body: text(words: random.int(in: 5...40)),
             tag: random.pick(Self.tags), n: random.int(in: -1000...1_000_000), rev: rev)
    }

    mutating func int(in range: ClosedRange<Int>) -> Int { random.int(in: range) }
    mutating func chance(_ probability: Double) -> Bool { random.chance(probability) }
    mutating func pick<T>(_ items: [T]) -> T { random.pick(items) }
}

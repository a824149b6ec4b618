import SpotliteStore
import SpotliteSearch
import Foundation

/// Builds known-item queries from records' text, the way a user remembers an item: a few distinctive words of it.
///
/// For each sampled record, the query is 2 or 3 words of its text, each chosen with a probability proportional to
/// its inverse document frequency among the words that are neither rare nor common:
/// - words are runs of letters and digits, lower-cased, 3 to 20 characters long, with at least one letter;
/// - a word is a candidate when at least ``minimumDocumentFrequency`` records (default 2: not a unique token, which
///   would make the query trivial) and at most ``maximumDocumentFrequencyFraction`` of them (default 2%: this also
///   drops stopwords) contain it;
/// - records with fewer than 3 candidate words, and records whose text is exactly another record's (the wanted item
///   would be ambiguous by construction), are skipped;
/// - the chosen words keep their order in the text.
/// Records are sampled without replacement in an order drawn from `seed`, so a set is reproducible.
package struct KnownItemQueryGenerator: Sendable {
    /// A record: its key, and the text queries are drawn from.
    package struct Record: Sendable, Hashable {
        /// The record's key, as the evaluation compares it with hit keys.
        package var key: String
        /// The text queries are drawn from (e.g. a description).
        package var text: String

        /// A record with its key and text.
        package init(key: String, text: String) {
            self.key = key
            self.text = text
        }
    }

    /// Words in fewer records than this are too rare to be remembered (unique tokens, typos).
    package var minimumDocumentFrequency = 2
    /// Words in more than this fraction of the records are too common to identify one.
    package var maximumDocumentFrequencyFraction = 0.02
    /// How many words each query has (each count equally likely).
    package var wordsPerQuery: ClosedRange<Int> = 2...3

    private let records: [Record]
    private let words: [[String]]
    private let documentFrequency: [String: Int]
    private let duplicated: Set<Int>

    /// Counts the words of every record; keys are not required to be unique, but duplicates are ambiguous.
    package init(records: [Record]) {
        self.records = records
        words = records.map { Self.words(in: $0.text) }
        var frequency: [String: Int] = [:]
        for list in words {
            for word in Set(list) { frequency[word, default: 0] += 1 }
        }
        documentFrequency = frequency
        var firstByText: [String: Int] = [:]
        var duplicated = Set<Int>()
        for (index, record) in records.enumerated() {
            if let first = firstByText[record.text] {
                duplicated.insert(first)
                duplicated.insert(index)
            } else {
                firstByText[record.text] = index
            }
        }
        self.duplicated = duplicated
    }

    /// Up to `count` queries (fewer when the records run out), reproducible for a given seed.
    package func generate(count: Int, seed: UInt64 = 1) -> RelevanceQuerySet {
        var random = SeededGenerator(seed: seed)
        let maximumFrequency = max(minimumDocumentFrequency, Int(Double(records.count) * maximumDocumentFrequencyFraction))
        let total = Double(records.count)
        var judgments: [RelevanceJudgment] = []
        for index in Array(records.indices).shuffled(using: &random) {
            guard judgments.count < count else { break }
            guard !duplicated.contains(index) else { continue }
            var seen = Set<String>()
            let candidates = words[index].filter { word in
                let frequency = documentFrequency[word] ?? 0
                return frequency >= minimumDocumentFrequency && frequency <= maximumFrequency && seen.insert(word).inserted
            }
            guard candidates.count >= 3 else { continue }
            let wanted = Int.random(in: wordsPerQuery, using: &random)
            var pool = candidates.map { (word: $0, weight: log(total / Double(documentFrequency[$0]!))) }
            var chosen = Set<String>()
            while chosen.count < min(wanted, candidates.count), !pool.isEmpty {
                let sum = pool.reduce(0) { $0 + $1.weight }
                var point = Double.random(in: 0..<sum, using: &random)
                var pick = pool.count - 1
                for (position, entry) in pool.enumerated() {
                    point -= entry.weight
                    if point < 0 { pick = position; break }
                }
                chosen.insert(pool.remove(at: pick).word)
            }
            let query = candidates.filter(chosen.contains).joined(separator: " ")
            judgments.append(RelevanceJudgment(key: records[index].key, query: query))
        }
        return RelevanceQuerySet(judgments)
    }

    /// The words of `text` as the generator counts them.
    static func words(in text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var hasLetter = false
        func finish() {
            if (3...20).contains(current.count), hasLetter { words.append(current) }
            current = ""
            hasLetter = false
        }
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
                if character.isLetter { hasLetter = true }
            } else {
                finish()
            }
        }
        finish()
        return words
    }
}

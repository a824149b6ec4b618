import SpotliteTooling
/// Query sets drawn from the corpus with a fixed seed, so every run and every machine asks the same questions.
///
/// Words are lower-case ASCII letters, at least 3 long, not English stop words (so FTS5, which keeps stop words,
/// and Xapian, which drops them, answer the same words); they carry no query syntax.
struct QueryWorkload {
    /// Words of one query and, for known-item queries, the key of the record it was drawn from.
    struct Query: Codable, Sendable {
        var words: [String]
        var target: String?

        var text: String { words.joined(separator: " ") }
    }

    /// `count` queries of two and three words (alternating), each drawn from one random record's text fields, so
    /// that every word pair co-occurs somewhere and AND queries have answers.
    static func adHoc(records: [Corpus.Record], textFields: [String], count: Int, seed: UInt64 = 0x5EED_0001) -> [Query] {
        var generator = SeededGenerator(seed: seed)
        var queries: [Query] = []
        var attempts = 0
        while queries.count < count && attempts < count * 50 {
            attempts += 1
            let record = records[Int.random(in: 0..<records.count, using: &generator)]
            let words = distinctWords(textFields.compactMap { record[$0] }.joined(separator: " "))
            let size = 2 + queries.count % 2
            guard words.count >= size else { continue }
            queries.append(Query(words: Array(words.shuffled(using: &generator).prefix(size)), target: nil))
        }
        return queries
    }

    /// Known-item queries: `count` distinct records, each with two or three random words of its `field` (the summary:
    /// what someone remembers of a package they saw once). The record is the one right answer.
    static func knownItems(records: [Corpus.Record], key: String, field: String, count: Int,
                           seed: UInt64 = 0x5EED_0002) -> [Query] {
        var generator = SeededGenerator(seed: seed)
        var order = Array(records.indices)
        order.shuffle(using: &generator)
        var queries: [Query] = []
        for index in order where queries.count < count {
            let record = records[index]
            guard let target = record[key], let text = record[field] else { continue }
            let words = distinctWords(text)
            let size = 2 + queries.count % 2
            guard words.count >= 3 else { continue }
            queries.append(Query(words: Array(words.shuffled(using: &generator).prefix(size)), target: target))
        }
        return queries
    }

    /// The usable query words of `text`, each once, in order of appearance. A word is a run of letters, digits,
    /// apostrophes or underscores; one with anything but ASCII letters is tokenized differently by each engine, so
    /// it is left out.
    static func distinctWords(_ text: String) -> [String] {
        var seen = Set<String>()
        var words: [String] = []
        var current = String.UnicodeScalarView()
        var usable = true
        func finish() {
            let word = String(current).lowercased()
            if usable, word.count >= 3, !stopwords.contains(word), seen.insert(word).inserted { words.append(word) }
            current = String.UnicodeScalarView()
            usable = true
        }
        for scalar in text.unicodeScalars {
            let isLetter = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            if isLetter {
                current.append(scalar)
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "'"
                        || scalar == "_" || scalar == "\u{2019}" {
                current.append(scalar)
                usable = false
            } else {
                finish()
            }
        }
        finish()
        return words
    }

    /// Common English function words (the Snowball English list, which Xapian's stopper uses, and a few more).
    static let stopwords: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "aren", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "cannot", "could",
        "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have",
        "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into",
        "is", "it", "its", "itself", "let", "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off",
        "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "same",
        "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves",
        "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very",
        "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
        "would", "you", "your", "yours", "yourself", "yourselves", "also", "may", "must", "near", "just", "via",
    ]
}

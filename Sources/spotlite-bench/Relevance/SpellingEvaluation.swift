import Foundation
import Spotlite
import SpotliteTooling

/// Spelling correction on misspelled queries: each query gets one typo (a seeded edit of one of its words that the
/// index knows, turning it into a word the index does not), is searched with every word required (so the typo
/// finds nothing and Spotlite works out its correction, as it does for a query that finds nothing), and the
/// suggestion is checked for the original word in the typo's place.
struct SpellingEvaluation: Codable, Sendable {
    /// One misspelled query: the words, which one was misspelled, and the original word.
    struct Case: Codable, Sendable {
        var words: [String]
        var position: Int
        var original: String
    }

    var label: String
    var queries: Int
    /// Suggestions with the original word back in its place.
    var restored: Int
    /// Queries that got a suggestion at all.
    var suggested: Int

    var restoredShare: Double { Double(restored) / Double(max(queries, 1)) }

    /// The misspelled queries for `queries` (plain lower-case text), the same for every index holding the same
    /// terms: the seed decides the word, the kind of edit and where it lands. Words of five letters or more are
    /// misspelled (shorter ones have too many neighbours to say which was meant); queries without one are skipped.
    static func cases(queries: [String], seed: UInt64, searcher: IndexSearcher) throws -> [Case] {
        var generator = SeededGenerator(seed: seed)
        var cases: [Case] = []
        for query in queries {
            var local = generator.split()
            let words = query.split(separator: " ").map(String.init)
            var candidates: [Int] = []
            for (index, word) in words.enumerated() where word.count >= 5 && word.allSatisfy({ $0.isASCII && $0.isLetter }) {
                let known = try finds(word, searcher)
                if known { candidates.append(index) }
            }
            guard !candidates.isEmpty else { continue }
            let position = candidates[Int(local.next() % UInt64(candidates.count))]
            let original = words[position]
            // A typo that happens to be another indexed word is no misspelling: try another edit.
            for _ in 0..<20 {
                let typo = Self.typo(original, using: &local)
                guard typo != original else { continue }
                let known = try finds(typo, searcher)
                if known { continue }
                var misspelled = words
                misspelled[position] = typo
                cases.append(Case(words: misspelled, position: position, original: original))
                break
            }
        }
        return cases
    }

    /// Searches each case and counts the suggestions that restore the original word.
    static func measure(_ cases: [Case], label: String, searcher: IndexSearcher) throws -> SpellingEvaluation {
        var restored = 0, suggested = 0
        for item in cases {
            let request = SearchRequest(item.words.joined(separator: " "), limit: 1, snippet: SnippetOptions(length: 0),
                                        correctsSpelling: true, defaultOperator: .and, expansion: .off)
            guard let suggestion = try searcher.search(request).suggestion, !suggestion.isEmpty else { continue }
            suggested += 1
            let words = suggestion.split(separator: " ").map(String.init)
            if words.count == item.words.count, words[item.position] == item.original { restored += 1 }
        }
        return SpellingEvaluation(label: label, queries: cases.count, restored: restored, suggested: suggested)
    }

    /// One edit of `word`: a letter deleted, replaced, inserted or swapped with the next (the four edits spelling
    /// correctors model).
    static func typo(_ word: String, using generator: inout SeededGenerator) -> String {
        var letters = Array(word)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz")
        let at = Int(generator.next() % UInt64(letters.count))
        let letter = alphabet[Int(generator.next() % UInt64(alphabet.count))]
        switch generator.next() % 4 {
        case 0: letters.remove(at: at)
        case 1: letters[at] = letter
        case 2: letters.insert(letter, at: at)
        default:
            let next = min(at + 1, letters.count - 1)
            letters.swapAt(next == at ? at - 1 : at, next)
        }
        return String(letters)
    }

    private static func finds(_ word: String, _ searcher: IndexSearcher) throws -> Bool {
        let request = SearchRequest(word, limit: 1, snippet: SnippetOptions(length: 0), correctsSpelling: false,
                                    defaultOperator: .or, expansion: .off)
        return try searcher.search(request).total > 0
    }

    var rendered: String {
        String(format: "%@: %d misspelled queries, %d suggestions, %d restored the word (%.1f%%)", label, queries,
               suggested, restored, restoredShare * 100)
    }
}

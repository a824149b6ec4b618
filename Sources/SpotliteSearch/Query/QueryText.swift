import Foundation

/// A query's text read once, in one pass, into the runs of text between white space with what the query syntax
/// makes of each: whether a phrase is open where it starts, how deep in brackets it is, its sign, its field and
/// value, its range, whether it is an operator. Every check of the text (budget, field prefixes, ranges, signs and
/// operators), the keyword-case correction, the synonyms rewrite and the word being typed read this structure, and
/// the query sent to Xapian is built from it, so that no two of them can read the same text differently.
struct QueryText {
    /// Xapian's boolean operators (upper case only, as its parser reads them).
    static let operators: Set<Substring> = ["OR", "AND", "NOT", "XOR", "NEAR", "ADJ"]

    /// The text as written (a slice, so that the words and the slices the views return index into it).
    let text: Substring
    /// Its runs of text between white space, in order.
    let words: [Word]
    /// The text inside each pair of double quotes (an unclosed quote runs to the end), in order.
    let phrases: [Substring]

    /// A run of text between white space.
    struct Word {
        /// The run as written, a slice of the text.
        var text: Substring
        /// Whether it starts inside a phrase that an earlier word opened (the word opening one starts outside).
        var startsInPhrase: Bool
        /// Brackets open (outside quotes) where it starts; a closing bracket without an open one counts for none.
        var depth: Int

        /// Whether it holds a double quote.
        var hasQuote: Bool { text.contains("\"") }

        /// The run without its leading `(`, `+` and `-` and trailing `)`: a word as the checks of fields and ranges
        /// read it.
        var bare: Substring {
            var core = text.drop(while: { "+-(".contains($0) })
            while core.last == ")" { core.removeLast() }
            return core
        }

        /// Whether it is one of Xapian's boolean operators as written (`AND`, not `and`).
        var isOperator: Bool { QueryText.operators.contains(text) }

        /// `FIELD:LOW..HIGH` or `LOW..HIGH` read from ``bare``: nil when it is no range (no `..`, a field name
        /// that is not a plain name, bounds holding `:` or `/`, as addresses do).
        var range: WrittenRange? {
            let text = bare
            guard let dots = text.range(of: "..") else { return nil }
            var field: String?
            var bounds = text
            if let colon = text.firstIndex(of: ":"), colon < dots.lowerBound {
                let name = text[..<colon]
                guard QueryText.isFieldName(name) else { return nil }
                field = String(name)
                bounds = text[text.index(after: colon)...]
            }
            guard !bounds.contains(where: { ":/".contains($0) }), let split = bounds.range(of: "..") else { return nil }
            return WrittenRange(text: String(text), field: field, low: String(bounds[..<split.lowerBound]),
                                high: String(bounds[split.upperBound...]))
        }
    }

    /// A range as written in a query: `field` is nil for a bare `LOW..HIGH`.
    struct WrittenRange: Equatable {
        var text: String
        var field: String?
        var low: String
        var high: String
    }

    /// Reads `text`.
    init(_ text: String) {
        self.init(text[...])
    }

    /// Reads `text` (a whole query, or a part of one such as an item or a phrase): one pass over its characters.
    init(_ text: Substring) {
        self.text = text
        var words: [Word] = []
        var phrases: [Substring] = []
        var inQuotes = false
        var depth = 0
        var phraseStart: String.Index?
        var wordStart: String.Index?
        var wordInPhrase = false
        var wordDepth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                if let start = wordStart {
                    words.append(Word(text: text[start..<index], startsInPhrase: wordInPhrase, depth: wordDepth))
                    wordStart = nil
                }
            } else {
                if wordStart == nil {
                    wordStart = index
                    wordInPhrase = inQuotes
                    wordDepth = depth
                }
                if character == "\"" {
                    if inQuotes, let start = phraseStart { phrases.append(text[start..<index]) }
                    inQuotes.toggle()
                    phraseStart = inQuotes ? text.index(after: index) : nil
                } else if !inQuotes, character == "(" {
                    depth += 1
                } else if !inQuotes, character == ")" {
                    depth = max(0, depth - 1)
                }
            }
            index = text.index(after: index)
        }
        if let start = wordStart {
            words.append(Word(text: text[start...], startsInPhrase: wordInPhrase, depth: wordDepth))
        }
        if inQuotes, let start = phraseStart { phrases.append(text[start...]) }
        self.words = words
        self.phrases = phrases
    }

    /// Whether `name` can be a field's name in a query: ASCII letters, digits and `_`, not empty.
    static func isFieldName(_ name: Substring) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    // MARK: Views

    /// The words that do not start inside a phrase (the word opening one is included).
    var wordsOutsidePhrases: [Word] { words.filter { !$0.startsInPhrase } }

    /// The words outside phrases that hold no quote, without their `+`, `-` and brackets.
    var unquotedWords: [Substring] { wordsOutsidePhrases.filter { !$0.hasQuote }.map(\.bare) }

    /// The `[FIELD:]LOW..HIGH` words outside double quotes.
    var ranges: [WrittenRange] {
        guard text.contains("..") else { return [] }
        return wordsOutsidePhrases.filter { !$0.hasQuote }.compactMap(\.range)
    }

    /// The `[FIELD:]LOW..HIGH` words inside double quotes, where Xapian reads a phrase and takes no range.
    var quotedRanges: [WrittenRange] {
        guard text.contains("..") else { return [] }
        return phrases.flatMap { QueryText($0).ranges }
    }

    /// How many words the search looks for, against ``SearchRequest/maximumWords``: every run but the operators.
    var wordCount: Int { words.count(where: { !$0.isOperator }) }

    /// Whether the text has, outside double quotes, an operator (`AND`, `NEAR/3`, …) or a word excluded with one `-`:
    /// the syntax Xapian's parser may fail to read and then silently read as plain words.
    var hasOperatorsOrExclusions: Bool {
        guard text.contains("-") || text.contains(where: \.isUppercase) else { return false }
        for word in wordsOutsidePhrases {
            let bare = word.text.drop(while: { $0 == "(" })
            if Self.operators.contains(bare.prefix { $0 != "/" }) { return true }
            if bare.first == "-", let next = bare.dropFirst().first, next != "-", !next.isWhitespace { return true }
        }
        return false
    }

    /// The items of the text (words, quoted phrases, bracketed groups: runs of words starting outside phrases and
    /// brackets), as slices of the text.
    var items: [Substring] { groups { !$0.startsInPhrase && $0.depth == 0 } }

    /// The runs of words a phrase joins (a word starting outside phrases and the words of the phrase it opens).
    var phraseJoinedRuns: [Substring] { groups { !$0.startsInPhrase } }

    /// The items without their `-` when every one of them is excluded with one `-`; nil otherwise. Xapian 1.4 reads
    /// such a query as its items without the signs: `-vim` found the records with vim.
    var excludedItems: [Substring]? {
        var excluded: [Substring] = []
        for item in items {
            // `--verbose` is an option's name, which Xapian searches as the word.
            guard item.first == "-", item.count > 1, item.dropFirst().first != "-" else { return nil }
            excluded.append(item.dropFirst())
        }
        return excluded.isEmpty ? nil : excluded
    }

    /// The last word when nothing follows it and it is a plain word, lower-cased: what a prefix search completes.
    var wordBeingTyped: String? {
        guard let last = text.last, !last.isWhitespace, let word = words.last?.text else { return nil }
        let bare = word.drop { $0 == "(" || $0 == "+" || $0 == "-" }
        guard !bare.isEmpty, !bare.contains(where: { "\":*()".contains($0) }) else { return nil }
        return bare.lowercased()
    }

    /// Whether the text asks for every document: nothing but white space and asterisks.
    var isMatchAll: Bool { text.unicodeScalars.allSatisfy { $0 == "*" || $0.properties.isWhitespace } }

    // MARK: The text sent to Xapian

    /// A part of the text replaced in the text sent to Xapian.
    struct Edit {
        var range: Range<String.Index>
        var replacement: String
    }

    /// The text with `edits` (which must not overlap) made.
    func applying(_ edits: [Edit]) -> String {
        guard !edits.isEmpty else { return String(text) }
        var result = ""
        var copied = text.startIndex
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            result += text[copied..<edit.range.lowerBound]
            result += edit.replacement
            copied = edit.range.upperBound
        }
        result += text[copied...]
        return result
    }

    /// Quotes for the bounds of each `+FIELD:A..B` and `-FIELD:A..B` outside quotes, where `FIELD:` is one of
    /// `valuePrefixes` (the number and date fields' prefixes): Xapian 1.4's parser gives a range after a sign to no
    /// range processor ("Unknown range operation"), while `-FIELD:"A..B"` reaches the field's value processor,
    /// which reads the range the same way. A sign counts at the start of a word or after `(`.
    func signedRangeQuotes(valuePrefixes: [String]) -> [Edit] {
        guard !valuePrefixes.isEmpty, text.contains("..") else { return [] }
        var edits: [Edit] = []
        for word in wordsOutsidePhrases {
            let run = word.text
            var inQuotes = false
            var previous: Character?
            var index = run.startIndex
            while index < run.endIndex {
                let character = run[index]
                if !inQuotes, character == "+" || character == "-", previous == nil || previous == "(" {
                    let rest = run[run.index(after: index)...]
                    if let prefix = valuePrefixes.last(where: { rest.hasPrefix($0) }) {
                        let valueStart = rest.index(rest.startIndex, offsetBy: prefix.count)
                        let value = rest[valueStart..<(rest[valueStart...].firstIndex(of: ")") ?? rest.endIndex)]
                        if value.contains(".."), !value.contains("\"") {
                            edits.append(Edit(range: value.startIndex..<value.endIndex, replacement: "\"\(value)\""))
                        }
                        previous = value.last ?? prefix.last
                        index = value.endIndex
                        continue
                    }
                }
                if character == "\"" { inQuotes.toggle() }
                previous = character
                index = run.index(after: index)
            }
        }
        return edits
    }

    /// The slices of the text from each word that `starts` a group to the end of the last word before the next.
    private func groups(startingAt starts: (Word) -> Bool) -> [Substring] {
        var groups: [Substring] = []
        var start: String.Index?
        var end = text.startIndex
        for word in words {
            if starts(word) || start == nil {
                if let start { groups.append(text[start..<end]) }
                start = word.text.startIndex
            }
            end = word.text.endIndex
        }
        if let start { groups.append(text[start..<end]) }
        return groups
    }
}

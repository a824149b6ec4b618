/// Words and phrases that also find other words or phrases: the configuration's `[search] synonyms`
/// (`db = ["database"]`, `"text editor" = ["editor"]`).
///
/// Synonyms apply when a query is parsed, never to the index: changing them needs no rebuild. A query word (or run of
/// consecutive words) that is a key, in any case, is searched as itself OR each of its synonyms, a synonym of several
/// words as a phrase: `db tools` runs as `(db OR database) tools`. Words in quotes, with a field prefix (`name:db`), a
/// wildcard, or being typed (the last word of a prefix search) are left as written; the longest key wins.
public struct QuerySynonyms: Sendable, Hashable {
    /// Each key's synonyms, keys in lower case with single spaces between their words.
    public private(set) var entries: [String: [String]]
    /// The most words of any key.
    private var longestKey: Int

    /// No synonyms.
    public init() {
        entries = [:]
        longestKey = 0
    }

    /// Synonyms by key (a word or a phrase); keys differing only in case or spacing share one list. Check them with
    /// ``problem(withWords:)`` (``SpotliteConfiguration/validate(source:)`` does): a key no query word can match is
    /// kept but never applies.
    public init(_ synonyms: [String: [String]]) {
        self.init()
        for (key, values) in synonyms.sorted(by: { $0.key < $1.key }) {
            let normalized = Self.words(of: key).joined(separator: " ").lowercased()
            var list = entries[normalized] ?? []
            for value in values.map({ Self.words(of: $0).joined(separator: " ") })
            where !value.isEmpty && !list.contains(value) && value.lowercased() != normalized {
                list.append(value)
            }
            entries[normalized] = list
            longestKey = max(longestKey, Self.words(of: key).count)
        }
    }

    /// Whether there are none.
    public var isEmpty: Bool { entries.isEmpty }

    /// Why `text` cannot be a key or a synonym, or nil when it can: one or more words separated by spaces, each
    /// without the characters the query syntax reads (quotes, brackets, `:`, `*`, `~`) and none an operator.
    public static func problem(withWords text: String) -> String? {
        let words = words(of: text)
        if words.isEmpty { return "is empty; write a word or a phrase" }
        if let word = words.first(where: { !isPlainWord($0) }) {
            return "has \(String(word).debugDescription), which a query reads as syntax (quotes, brackets, a field prefix, a wildcard or a sign); synonyms are plain words and phrases"
        }
        if let word = words.first(where: { QueryText.operators.contains($0) }) {
            return "has \(String(word).debugDescription), which a query reads as an operator; write it in lower case"
        }
        return nil
    }

    /// A key that matched query words, and what they were searched with.
    public struct Use: Sendable, Hashable {
        /// The query words as written.
        public var words: String
        /// Their synonyms.
        public var synonyms: [String]
    }

    /// `text` with each key among its words replaced by the key OR its synonyms, and the keys that matched.
    /// - Parameter sparingLastWord: leave the last word as written when nothing follows it (it is being typed, and
    ///   is searched as the start of a word).
    public func applied(to text: String, sparingLastWord: Bool = false) -> (text: String, uses: [Use]) {
        applied(to: QueryText(text), sparingLastWord: sparingLastWord)
    }

    /// The same, for text already read.
    func applied(to query: QueryText, sparingLastWord: Bool = false) -> (text: String, uses: [Use]) {
        let (edits, uses) = self.edits(of: query, sparingLastWord: sparingLastWord)
        return (query.applying(edits), uses)
    }

    /// The replacements that make each key among the words of `query` the key OR its synonyms, and the keys that
    /// matched.
    func edits(of query: QueryText, sparingLastWord: Bool = false) -> (edits: [QueryText.Edit], uses: [Use]) {
        guard !entries.isEmpty else { return ([], []) }
        let text = query.text
        let tokens = Self.tokens(of: query)
        let lastSpared = sparingLastWord && !(text.last?.isWhitespace ?? true) ? tokens.count - 1 : tokens.count
        var edits: [QueryText.Edit] = []
        var uses: [Use] = []
        var index = 0
        while index < tokens.count {
            var matched: (length: Int, synonyms: [String])?
            var length = min(longestKey, lastSpared - index)
            while length >= 1, matched == nil {
                if Self.canGroup(tokens[index..<(index + length)]) {
                    let key = tokens[index..<(index + length)].map { $0.core.lowercased() }.joined(separator: " ")
                    if let synonyms = entries[key], !synonyms.isEmpty { matched = (length, synonyms) }
                }
                length -= 1
            }
            guard let matched else {
                index += 1
                continue
            }
            let first = tokens[index], last = tokens[index + matched.length - 1]
            let range = first.coreRange.lowerBound..<last.coreRange.upperBound
            let written = text[range]
            let alternatives = matched.synonyms.map { $0.contains(" ") ? "\"\($0)\"" : $0 }
            edits.append(QueryText.Edit(range: range, replacement: "(" + (matched.length > 1 ? "(\(written))" : String(written))
                                            + " OR " + alternatives.joined(separator: " OR ") + ")"))
            uses.append(Use(words: String(written), synonyms: matched.synonyms))
            index += matched.length
        }
        return (edits, uses)
    }

    /// A run of words a phrase joins (``QueryText/phraseJoinedRuns``); `core` is the word without leading brackets and sign and
    /// trailing brackets, empty when the run is anything but such a word.
    private struct Token {
        var core: Substring
        var coreRange: Range<String.Index>
        var opens: Bool
        var signed: Bool
        var closes: Bool
    }

    private static func tokens(of query: QueryText) -> [Token] {
        query.phraseJoinedRuns.map { written in
            var run = written
            let opens = run.first == "("
            run = run.drop { $0 == "(" }
            let signed = run.first == "+" || run.first == "-"
            if signed { run = run.dropFirst() }
            var core = run
            while core.last == ")" { core = core.dropLast() }
            let closes = core.endIndex != run.endIndex
            if !isPlainWord(core) || QueryText.operators.contains(core) { core = core.prefix(0) }
            return Token(core: core, coreRange: core.startIndex..<core.endIndex, opens: opens, signed: signed,
                         closes: closes)
        }
    }

    /// Whether these tokens are words that one key may cover: brackets only before the first and after the last, a
    /// sign only on the first.
    private static func canGroup(_ tokens: ArraySlice<Token>) -> Bool {
        for (offset, token) in zip(tokens.indices, tokens) {
            if token.core.isEmpty { return false }
            if offset != tokens.startIndex, token.opens || token.signed { return false }
            if offset != tokens.endIndex - 1, token.closes { return false }
        }
        return true
    }

    private static func words(of text: String) -> [Substring] {
        text.split(whereSeparator: \.isWhitespace)
    }

    /// Letters, digits and inner punctuation a word may hold (`c++`, `x86-64`, `o'reilly`), nothing the query syntax
    /// reads: quotes, brackets, field colons, wildcards, synonym tildes, a leading sign.
    private static func isPlainWord(_ word: Substring) -> Bool {
        guard let first = word.first, first != "+", first != "-" else { return false }
        return !word.contains { "\"()[]{}:*~".contains($0) || $0.isWhitespace }
    }
}

/// What a query that found nothing is retried as: Xapian's spelling correction, kept to the words the index lacks,
/// and keyword values in the wrong case.
extension IndexSearcher {
    /// `corrected` (Xapian's corrected query string for `query`) with every word the index holds as written put back:
    /// Xapian also offers a more frequent word for a word it has ("vim" → "via"), which, when the query found nothing
    /// because of a filter or the other words, only changes the question. Nil when no correction is left.
    func keepingIndexedWords(of query: QueryText, in corrected: String, database: XapianDatabase) throws -> String? {
        guard !corrected.isEmpty, corrected != query.text else { return nil }
        let written = query.words.map(\.text)
        let offered = QueryText(corrected).words.map(\.text)
        // Xapian replaces words in place; anything else is taken as it is.
        guard written.count == offered.count else { return corrected }
        var kept = ""
        var copied = corrected.startIndex
        var changed = false
        let isWordCharacter = { (character: Character) in character.isLetter || character.isNumber }
        for (word, correction) in zip(written, offered) where word != correction {
            if let first = word.firstIndex(where: isWordCharacter), let last = word.lastIndex(where: isWordCharacter),
               try database.termFrequency(word[first...last].lowercased()) > 0 {
                kept += corrected[copied..<correction.startIndex] + word
                copied = correction.endIndex
            } else {
                changed = true
            }
        }
        return changed ? kept + corrected[copied...] : nil
    }

    /// `text` with each keyword value (`field:value`, outside quotes) that no document has replaced by the value some
    /// documents have that differs from it only in case (the most frequent one); nil when there is none.
    func keywordCaseCorrection(of query: QueryText, in database: XapianDatabase) throws -> String? {
        let text = query.text
        var corrected = ""
        var copied = text.startIndex
        var changed = false
        for written in query.unquotedWords {
            guard let colon = written.firstIndex(of: ":"),
                  let field = schema.fieldsByName[String(written[..<colon])], field.type == .keyword,
                  field.queryPrefix == field.name, let prefix = field.booleanPrefix else { continue }
            let value = written[written.index(after: colon)...]
            guard let indexed = try Self.caseVariant(of: value, prefix: prefix, in: database) else { continue }
            corrected += text[copied..<value.startIndex] + indexed
            copied = value.endIndex
            changed = true
        }
        return changed ? corrected + text[copied...] : nil
    }

    /// `filters` with each keyword value that no document has replaced by the value some documents have that
    /// differs from it only in case (`--filter section:Utils` → `section:utils`); nil when there is none.
    func filterCaseCorrection(of filters: [SearchFilter], in database: XapianDatabase) throws -> [SearchFilter]? {
        var corrected = filters
        var changed = false
        for index in corrected.indices {
            guard let field = schema.fieldsByName[corrected[index].field], field.type == .keyword,
                  let prefix = field.booleanPrefix,
                  let indexed = try Self.caseVariant(of: Substring(corrected[index].value), prefix: prefix, in: database)
            else { continue }
            corrected[index].value = indexed
            changed = true
        }
        return changed ? corrected : nil
    }

    /// The value under `prefix` that differs from `value` only in case, the most frequent when several do, when no
    /// document has `value` itself; nil otherwise (and for wildcards).
    private static func caseVariant(of value: Substring, prefix: String, in database: XapianDatabase) throws -> String? {
        guard !value.isEmpty, !value.hasSuffix("*"), try database.termFrequency(prefix + value) == 0 else { return nil }
        let lowered = value.lowercased()
        let candidates = try database.terms(prefix: prefix, limit: keywordValuesRead)
            .filter { $0.key.dropFirst(prefix.count).lowercased() == lowered }
        guard let best = candidates.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }) else { return nil }
        return String(best.key.dropFirst(prefix.count))
    }

    /// How many values of a keyword field a case correction reads at most.
    static let keywordValuesRead: UInt32 = 100_000
}

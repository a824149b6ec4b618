import Foundation
import SpotliteSearch
import SpotliteTestSupport
import Testing

/// The causes of field, filter, ranking and query-set errors are cases (they were strings before 0.2.0); the words the command
/// line prints for each stay as they were: one sentence each.
@Suite("Search error causes", .blockingWork)
struct SearchErrorCauseTests {
    static let sentences: [(SearchError, String)] = [
        (.unknownField("colour", reason: .noSuchFilterField(keywordFields: ["section", "tags"])),
         #"unknown field "colour": no entity has a field of that name; filters take keyword fields: section, tags"#),
        (.unknownField("colour", reason: .noSuchFilterField(keywordFields: [])),
         #"unknown field "colour": no entity has a field of that name; filters take keyword fields: (none configured)"#),
        (.unknownField("summary", reason: .notAKeywordField(.text, keywordFields: ["section"])),
         #"unknown field "summary": it is a text field; filters take keyword fields: section"#),
        (.unknownField("x", reason: .noSuchSortField),
         #"unknown field "x": no entity has a field of that name; sort by relevance or by a sortable number or date field"#),
        (.unknownField("x", reason: .notSortable),
         #"unknown field "x": it is not a sortable number or date field; add `sortable = true` to a number or date field to sort by it"#),
        (.unknownField("x", reason: .noSuchFacetField),
         #"unknown field "x": no entity has a field of that name; facets take keyword fields with `facet = true`"#),
        (.unknownField("x", reason: .notAFacet),
         #"unknown field "x": it is not a facet; add `facet = true` to a keyword field to count its values"#),
        (.invalidFilter("section", reason: .noColon),
         #"the filter "section" has no value; a filter is FIELD:VALUE, a keyword field and one of its values, e.g. section:utils"#),
        (.invalidFilter(":utils", reason: .noField),
         #"the filter ":utils" has no field before the colon; a filter is FIELD:VALUE, a keyword field and one of its values, e.g. section:utils"#),
        (.invalidFilter("section:", reason: .noValue),
         #"the filter "section:" has no value after the colon; a filter is FIELD:VALUE, a keyword field and one of its values, e.g. section:utils"#),
        (.invalidRanking(reason: .negativeOrNotFinite(.k1, value: -1)),
         "invalid ranking options: k1 is -1.0; it must be a finite number ≥ 0; give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidRanking(reason: .negativeOrNotFinite(.minimumNormalisedLength, value: .nan)),
         "invalid ranking options: minimumNormalisedLength is nan; it must be a finite number ≥ 0; give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidRanking(reason: .bOverOne(1.5)),
         "invalid ranking options: b is 1.5; it must be between 0 and 1; give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidRanking(reason: .proximityWindow(1)),
         "invalid ranking options: the proximity window is 1; it must be at least 2 positions; give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidRanking(reason: .proximityWeight(0)),
         "invalid ranking options: the proximity weight is 0.0; it must be a finite number > 0; give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidRanking(reason: .proximityDepth(0)),
         "invalid ranking options: the proximity depth is 0; it must re-rank at least 1 match; give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidRanking(reason: .expansionCounts(documents: 0, terms: 5, minimumWords: 2)),
         "invalid ranking options: expansion needs documents, terms and minimum words of at least 1 (got 0, 5, 2); give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidRanking(reason: .expansionWeight(-1)),
         "invalid ranking options: the expansion weight is -1.0; it must be a finite number > 0; give values in the ranges the documentation of RankingOptions, ProximityBoost and QueryExpansion states"),
        (.invalidQuerySet(source: "q.tsv", line: 2, reason: .noTab),
         "q.tsv, line 2: there is no tab between the key and the query; each line is KEY<TAB>QUERY (blank lines and lines starting with # are skipped)"),
        (.invalidQuerySet(source: "q.tsv", line: 1, reason: .emptyKey),
         "q.tsv, line 1: the key is empty; each line is KEY<TAB>QUERY (blank lines and lines starting with # are skipped)"),
        (.invalidQuerySet(source: "q.tsv", line: 1, reason: .emptyQuery),
         "q.tsv, line 1: the query is empty; each line is KEY<TAB>QUERY (blank lines and lines starting with # are skipped)"),
        (.invalidQuerySet(source: "q.tsv", line: 0, reason: .unreadable(message: "No such file")),
         "q.tsv, line 0: the file cannot be read as UTF-8 text (No such file); each line is KEY<TAB>QUERY (blank lines and lines starting with # are skipped)"),
    ]

    @Test("each cause words its error as the command line prints it")
    func sentences() {
        for (error, sentence) in Self.sentences {
            #expect(error.description == sentence)
        }
    }

    @Test("a filter's text is refused by what it lacks")
    func filterCauses() {
        for (text, problem) in [("section", FilterProblem.noColon), (":utils", .noField), ("section:", .noValue)] {
            #expect(throws: SearchError.invalidFilter(text, reason: problem)) { try SearchFilter(parsing: text) }
        }
        #expect(throws: Never.self) { try SearchFilter(parsing: "tags:role::program") }
    }
}

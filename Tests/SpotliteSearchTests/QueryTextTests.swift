import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// The one reading of a query's text that every check, correction and rewrite reads.
@Suite("Query text read once", .blockingWork)
struct QueryTextTests {
    private func texts(_ slices: [Substring]) -> [String] { slices.map(String.init) }

    @Test("words carry the phrase and bracket state where they start; phrases run to the closing quote or the end")
    func wordsAndPhrases() {
        let text = QueryText(#"  (vim OR "text  editor") -nano "unclosed quote"#)
        #expect(text.words.map { String($0.text) } == ["(vim", "OR", "\"text", "editor\")", "-nano", "\"unclosed", "quote"])
        #expect(text.words.map(\.startsInPhrase) == [false, false, false, true, false, false, true])
        #expect(text.words.map(\.depth) == [0, 1, 1, 1, 0, 0, 0])
        #expect(texts(text.phrases) == ["text  editor", "unclosed quote"])
        #expect(texts(text.wordsOutsidePhrases.map(\.text)) == ["(vim", "OR", "\"text", "-nano", "\"unclosed"])
        #expect(texts(text.unquotedWords) == ["vim", "OR", "nano"])
        // A closing bracket without an open one counts for none; brackets inside quotes count for none.
        let stray = QueryText(#") a "(" (b"#)
        #expect(stray.words.map(\.depth) == [0, 0, 0, 0])
        #expect(QueryText("").words.isEmpty && QueryText(" \t\n").words.isEmpty)
    }

    @Test("items are words, phrases and bracketed groups; a query excluding every item gives them without the sign")
    func items() {
        #expect(texts(QueryText(#"editor AND (-vim -nano) "a b" c"#).items) == ["editor", "AND", "(-vim -nano)", "\"a b\"", "c"])
        #expect(QueryText(#"-vim -"text editor" -(a OR b)"#).excludedItems.map(texts) == ["vim", "\"text editor\"", "(a OR b)"])
        for notExcluding in ["vim -nano", "--level", "-", "", "   "] {
            #expect(QueryText(notExcluding).excludedItems == nil, "\(notExcluding)")
        }
        // Runs a phrase joins ignore brackets: the synonyms rewrite reads words, not groups.
        #expect(texts(QueryText(#"(db "text editor") x"#).phraseJoinedRuns) == ["(db", "\"text editor\")", "x"])
    }

    @Test("ranges outside quotes with their field and bounds; inside quotes apart; addresses and odd names are no range")
    func ranges() {
        let text = QueryText(#"+size:10..20) (released:2024.. ..5 "id:1..2 x" http://a..b Size-x:1..2 a:b:1..2"#)
        #expect(text.ranges == [
            QueryText.WrittenRange(text: "size:10..20", field: "size", low: "10", high: "20"),
            QueryText.WrittenRange(text: "released:2024..", field: "released", low: "2024", high: ""),
            QueryText.WrittenRange(text: "..5", field: nil, low: "", high: "5"),
        ])
        #expect(text.quotedRanges == [QueryText.WrittenRange(text: "id:1..2", field: "id", low: "1", high: "2")])
        #expect(QueryText("no ranges here").ranges.isEmpty)
    }

    @Test("operators count for no word of the budget; they and single-dash exclusions outside quotes are syntax")
    func operatorsAndWords() {
        #expect(QueryText("vim AND nano OR and NEAR/3").wordCount == 4)
        #expect(QueryText("a b c").wordCount == 3)
        for syntax in ["vim AND nano", "(NOT vim)", "vim NEAR/3 nano", "editor -vim", "(-vim)"] {
            #expect(QueryText(syntax).hasOperatorsOrExclusions, "\(syntax)")
        }
        for plain in ["vim and nano", "e-mail", "--level", "\"vim AND nano\"", "x - y", "NEARBY"] {
            #expect(!QueryText(plain).hasOperatorsOrExclusions, "\(plain)")
        }
    }

    @Test("the word being typed is the last plain word with nothing after it")
    func wordBeingTyped() {
        #expect(QueryText("text Edit").wordBeingTyped == "edit")
        #expect(QueryText("(+click").wordBeingTyped == "click")
        for none in ["text ", "", "name:vi", "vi*", "a)"] {
            #expect(QueryText(none).wordBeingTyped == nil, "\(none)")
        }
    }

    @Test("blank text and asterisks ask for everything; anything else does not")
    func matchAll() {
        #expect(QueryText("").isMatchAll && QueryText(" * ").isMatchAll)
        #expect(!QueryText("\"").isMatchAll && !QueryText("(").isMatchAll)
    }

    @Test("a part of a query read on its own keeps the query's positions, so rewrites splice into the query")
    func partsShareIndices() throws {
        let query = QueryText("-db -(x OR y)")
        let item = try #require(query.excludedItems?.first)
        let part = QueryText(item)
        #expect(part.text == "db" && part.text.startIndex == item.startIndex)
        #expect(query.text[part.words[0].text.startIndex...] == "db -(x OR y)")
    }
}

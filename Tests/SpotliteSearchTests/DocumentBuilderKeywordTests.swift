import Foundation
import Testing

@testable import SpotliteSearch

/// A keyword field's values are cut without Foundation on the usual one-character separators: the values must be
/// what cutting with `components(separatedBy:)` and trimming `.whitespaces` gave.
@Suite("Keyword values")
struct DocumentBuilderKeywordTests {
    static let texts = [
        "admin devel::lang:c implemented-in::c++ role::program",
        "  leading and trailing  ",
        "a,,b, ,c,",
        "\ttabbed\tvalues\t",
        "no-break\u{00A0}space\u{2003}em\u{3000}ideographic",
        "line\nbreaks\nstay\r\ninside",
        "e\u{301} combining, \u{301}after, , é",
        "日本語 한국어 🎉🎉 x",
        "",
        " ",
        ",",
        "single",
    ]

    static func foundationKeywords(in text: String, separator: String?) -> [String] {
        guard let separator, !separator.isEmpty else {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? [] : [trimmed]
        }
        return text.components(separatedBy: separator)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    @Test("the values are Foundation's, for one-character, longer and no separators",
          arguments: [" ", ",", "::", "\n", "é", nil, ""] as [String?])
    func sameAsFoundation(separator: String?) {
        for text in Self.texts {
            #expect(DocumentBuilder.keywords(in: text, separator: separator)
                        == Self.foundationKeywords(in: text, separator: separator),
                    "\(text.debugDescription) cut at \(separator.debugDescription)")
        }
    }

    @Test("values keep inner spaces and lose outer ones")
    func examples() {
        #expect(DocumentBuilder.keywords(in: " games , puzzle  game ,", separator: ",") == ["games", "puzzle  game"])
        #expect(DocumentBuilder.keywords(in: "\u{3000}main\t", separator: nil) == ["main"])
        #expect(DocumentBuilder.keywords(in: " \t ", separator: nil) == [])
    }

    @Test("a JSON array of strings and numbers (as import stores an array) is one value per element; anything else is text")
    func arrays() {
        #expect(DocumentBuilder.arrayValues(in: #"["a","b c"," d ",""]"#) == ["a", "b c", "d"])
        #expect(DocumentBuilder.arrayValues(in: "[3,2.5,-1]") == ["3", "2.5", "-1"])
        #expect(DocumentBuilder.arrayValues(in: "[]") == [])
        for text in ["[true]", "[null]", #"[["a"]]"#, #"[{"a":1}]"#, "[a, b]", "[unclosed", "plain", #"{"a":1}"#, "[1] [2]"] {
            #expect(DocumentBuilder.arrayValues(in: text) == nil, "\(text)")
        }
    }
}

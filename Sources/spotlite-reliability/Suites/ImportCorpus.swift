import Foundation

/// Malformed and awkward JSON Lines for `spotlite import`. Each malformed case is imported with `--batch 2` as two
/// good lines, one good line and the bad one (line 4), then a good line: the error must name line 4, the first batch
/// (lines 1–2) must be committed and nothing after it.
enum ImportCorpus {
    struct Case {
        var name: String
        var line: Data
        /// What the error must say besides the line number (lowercased substring).
        var mentions: String
    }

    static func text(_ line: String) -> Data { Data(line.utf8) }

    static let malformed: [Case] = [
        Case(name: "truncated object", line: text(#"{"id": "x", "title": "abc"#), mentions: "json"),
        Case(name: "an array", line: text("[1, 2, 3]"), mentions: "array"),
        Case(name: "a string", line: text(#""just text""#), mentions: "string"),
        Case(name: "a number", line: text("42"), mentions: "number"),
        Case(name: "null", line: text("null"), mentions: "null"),
        Case(name: "missing key", line: text(#"{"title": "no id"}"#), mentions: "\"id\""),
        Case(name: "null key", line: text(#"{"id": null, "title": "x"}"#), mentions: "\"id\""),
        Case(name: "number for a text key", line: text(#"{"id": 5}"#), mentions: "\"id\""),
        Case(name: "object for a key", line: text(#"{"id": {"a": 1}}"#), mentions: "\"id\""),
        Case(name: "array for a key", line: text(#"{"id": ["a"]}"#), mentions: "\"id\""),
        Case(name: "escaped NUL in a value", line: text(#"{"id": "nul", "title": "a\u0000b"}"#), mentions: "NUL"),
        Case(name: "unknown attribute", line: text(#"{"id": "x", "colour": "red"}"#), mentions: "colour"),
        Case(name: "SQL as an attribute name", line: text(#"{"id": "x", "title = 'p'; DROP TABLE Item; --": 1}"#), mentions: "unknown attribute"),
        Case(name: "_delete is a string", line: text(#"{"id": "x", "_delete": "yes"}"#), mentions: "_delete"),
        Case(name: "invalid UTF-8", line: Data([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D]), mentions: "utf-8"),
        Case(name: "raw NUL byte", line: Data(#"{"id": "a"#.utf8) + Data([0]) + Data(#"b"}"#.utf8), mentions: "json"),
        Case(name: "single quotes", line: text("{'id': 'x'}"), mentions: "json"),
        Case(name: "deeply nested array", line: text(#"{"id": "x", "title": "# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"), mentions: "json"),
        Case(name: "number too large", line: text(#"{"id": "x", "n": 1e400}"#), mentions: "json"),
        Case(name: "5 MB of garbage", line: Data(repeating: UInt8(ascii: "x"), count: 5_000_000), mentions: "json"),
    ]

    /// Awkward but valid lines: each must import, with the value stored exactly.
    struct Accepted {
        var name: String
        var line: Data
        var key: String
        /// The title column afterwards (nil: NULL).
        var title: String?
    }

    static let accepted: [Accepted] = [
        Accepted(name: "CRLF line ending", line: text("{\"id\": \"crlf\", \"title\": \"windows\"}\r"), key: "crlf", title: "windows"),
        Accepted(name: "trailing comma (Foundation's JSON parser allows it)", line: text(#"{"id": "trailing", "title": "lenient",}"#), key: "trailing", title: "lenient"),
        Accepted(name: "object value stored as JSON text", line: text(#"{"id": "obj", "title": {"b": 1, "a": [true, null]}}"#), key: "obj", title: #"{"a":[true,null],"b":1}"#),
        Accepted(name: "quotes and semicolons in the key", line: text(#"{"id": "x'); DROP TABLE Item; --", "title": "bobby"}"#), key: "x'); DROP TABLE Item; --", title: "bobby"),
        Accepted(name: "double quotes in the key", line: text(#"{"id": "\"; DELETE FROM Item; --", "title": "quoted"}"#), key: "\"; DELETE FROM Item; --", title: "quoted"),
        Accepted(name: "combining mark after a quote", line: text("{\"id\": \"it'\u{301}s\", \"title\": \"'\u{301}; DROP TABLE Item\"}"), key: "it'\u{301}s", title: "'\u{301}; DROP TABLE Item"),
        Accepted(name: "null title", line: text(#"{"id": "nulltitle", "title": null}"#), key: "nulltitle", title: nil),
        Accepted(name: "a 1 MB value", line: text(#"{"id": "big", "title": ""# + String(repeating: "word ", count: 200_000) + #""}"#), key: "big", title: String(repeating: "word ", count: 200_000)),
    ]
}

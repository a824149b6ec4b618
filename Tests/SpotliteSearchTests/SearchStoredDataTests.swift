import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// The data stored with each document (entity, key, stored fields) round-trips exactly, whatever the text holds.
@Suite("Stored document data", .blockingWork)
struct SearchStoredDataTests {
    @Test("round trip of text, integers, reals and awkward characters",
          arguments: [
            DocumentData(entity: "Package", key: .text("vim"), fields: [:]),
            DocumentData(entity: "Note", key: .integer(-42), fields: ["size": .integer(Int64.max), "ratio": .real(0.25),
                                                                      "whole": .real(3.0), "tiny": .real(-1.5e-300)]),
            DocumentData(entity: "Package", key: .text("quote\"back\\slash/"), fields: [
                "control": .text("tab\tnew\nline\rcr \u{1} \u{1F} bell\u{7}"),
                "unicode": .text("Müller Straße 日本語 🎉 e\u{301}"),
                "empty": .text(""),
                "json": .text("{\"nested\": [1, 2]}"),
            ]),
            DocumentData(entity: "E", key: .real(2.5), fields: ["nul": .text("a\u{0}b")]),
          ])
    func roundTrip(data: DocumentData) throws {
        let encoded = data.encoded()
        let decoded = try #require(DocumentData(decoding: Data(encoded.utf8)))
        #expect(decoded == data)
        // It is real JSON: any JSON reader agrees.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(encoded.utf8)) as? [String: Any])
        #expect(object["entity"] as? String == data.entity)
    }

    @Test("non-finite reals are stored as null and come back absent")
    func nonFinite() throws {
        let data = DocumentData(entity: "E", key: .integer(1), fields: ["bad": .real(.nan), "good": .integer(2)])
        let decoded = try #require(DocumentData(decoding: Data(data.encoded().utf8)))
        #expect(decoded.fields == ["good": .integer(2)])
    }

    @Test("standard JSON from elsewhere decodes too: spaces, \\u escapes, surrogate pairs, key order")
    func foreignJSON() throws {
        let text = #" { "fields" : { "a" : "caf\u00e9 \ud83c\udf89 \/" , "n" : null } , "key" : 7 , "entity" : "X" } "#
        let decoded = try #require(DocumentData(decoding: Data(text.utf8)))
        #expect(decoded == DocumentData(entity: "X", key: .integer(7), fields: ["a": .text("café 🎉 /")]))
    }

    @Test("anything else is refused, never half-read",
          arguments: ["", "{}", "[]", "{\"entity\":\"X\"}", "{\"key\":1}", "{\"entity\":\"X\",\"key\":1",
                      "{\"entity\":\"X\",\"key\":\"unterminated}", "{\"entity\":\"X\",\"key\":\"\\u12\"}",
                      "{\"entity\":\"X\",\"key\":1,\"fields\":{\"a\":}}", "{\"entity\":7,\"key\":1}", "not json at all"])
    func malformed(text: String) {
        #expect(DocumentData(decoding: Data(text.utf8)) == nil)
    }
}

import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

@Suite("Xapian query parser", .blockingWork)
struct XapianQueryParserTests {
    @Test func malformedQueriesThrowParserErrors() throws {
        let parser = try XapianSamplePackage.parser()
        for text in ["invoice AND", "NOT x", "a OR OR b"] {
            let error = try #require(engineFailure("\(text)") { _ = try parser.parse(text) })
            #expect(error.code == .queryParser, "\(text)")
            #expect(error.description.hasPrefix("QueryParserError: "), "\(text)")
        }
        // Unbalanced quotes and brackets are forgiven.
        #expect(!(try parser.parse("\"abc")).isEmpty)
        #expect(!(try parser.parse("(abc")).isEmpty)
        #expect(try parser.parse("   ").isEmpty)
        // With FLAG_PURE_NOT a lone NOT is allowed.
        #expect(!(try parser.parse("NOT x", flags: [.default, .pureNot])).isEmpty)
    }

    @Test func randomBytesParseOrFailCleanly() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        try parser.setWildcardLimit(100)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3 {
            let bytes = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = String(decoding: bytes, as: UTF8.self) + "\u{0}\u{0}"
            let flags: XapianQueryParser.Flags = round == 0 ? .default : [.default, .wildcard, .partial, .pureNot]
            do {
                let query = try parser.parse(text, flags: flags)
                _ = try? database.search(query, limit: 1)
            } catch SearchError.engine(let error, nil) {
                #expect(error.code == .queryParser, "\(error)")
            }
        }
    }

    @Test func spellingCorrectionSuggestsIndexedWords() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        _ = try parser.parse("editr configurabel", flags: [.default, .spellingCorrection])
        #expect(try parser.correctedQueryString() == "editor configurable")
        _ = try parser.parse("editor", flags: [.default, .spellingCorrection])
        #expect(try parser.correctedQueryString() == nil)
    }

    @Test func numberRangesSelectBySize() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        #expect(Set(names(try database.search(parser.parse("size:1000..3000")))) == ["nano", "grep"])
        #expect(Set(names(try database.search(parser.parse("size:10000..")))) == ["coreutils"])
        #expect(Set(names(try database.search(parser.parse("size:..1000")))) == ["xapian-tools"])
        #expect(Set(names(try database.search(parser.parse("editor size:3000..5000")))) == ["vim"])
        let composed = try XapianQuery.numberRange(slot: XapianSamplePackage.slotSize, lower: 2_000, upper: nil)
        #expect(Set(names(try database.search(composed))) == ["vim", "nano", "coreutils"])
    }

    @Test func dateRangesSelectByReleaseDate() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        #expect(Set(names(try database.search(parser.parse("released:2023..2023")))) == ["vim", "grep", "xapian-tools"])
        #expect(Set(names(try database.search(parser.parse("released:2023-01-10..2023-02-12"))))
            == ["grep", "xapian-tools"])
        #expect(Set(names(try database.search(parser.parse("released:..2022-12")))) == ["nano", "coreutils"])
        #expect(Set(names(try database.search(parser.parse("released:2023-06-01T00:00:00Z..")))) == ["vim"])
        let error = try #require(engineFailure { _ = try parser.parse("released:2023-13-01..2024") })
        #expect(error.code == .queryParser)
        #expect(error.message.contains("'2023-13-01' in the range released:2023-13-01..2024 is not a date"))
    }

    @Test func wildcardsOverTheLimitFailTheSearchCleanly() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        let query = try parser.parse("ed*", flags: [.default, .wildcard])
        #expect(Set(names(try database.search(query))) == ["vim", "nano"])
        // "e*" expands to editor, egrep, engine, ... : more than 2 terms.
        try parser.setWildcardLimit(2)
        let wide = try parser.parse("e*", flags: [.default, .wildcard])
        let error = try #require(engineFailure { _ = try database.search(wide) })
        #expect(error.code == .wildcard)
        #expect(error.type == "WildcardError")
        try parser.setWildcardLimit(0)
        #expect(!(try database.search(parser.parse("e*", flags: [.default, .wildcard]))).hits.isEmpty)
    }

    @Test func booleanPrefixesFilterOrWithinAFieldAndAcrossFields() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        #expect(Set(names(try database.search(parser.parse("section:utils")))) == ["coreutils", "grep"])
        #expect(Set(names(try database.search(parser.parse("section:utils section:text"))))
            == ["coreutils", "grep", "xapian-tools"])
        #expect(names(try database.search(parser.parse("search section:utils"))) == ["grep"])
        let error = try #require(engineFailure { try parser.addPrefix(field: "section", prefix: "S") })
        #expect(error.code == .invalidOperation)
    }

    @Test func theDefaultOperatorJoinsPlainWords() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        #expect(Set(names(try database.search(parser.parse("editor utilities"))))
            == ["vim", "nano", "coreutils", "grep"])
        try parser.setDefaultOperator(.and)
        #expect(names(try database.search(parser.parse("gnu utilities files"))) == ["coreutils"])
        #expect(names(try database.search(parser.parse("editor utilities"))).isEmpty)
    }

    @Test func composedQueriesAddFiltersToParsedText() throws {
        let directory = try XapianTestDirectory()
        try XapianSamplePackage.buildIndex(at: directory.database())
        let database = try XapianDatabase(path: directory.database())
        let parser = try XapianSamplePackage.parser(for: database)
        let text = try parser.parse("text")
        let sections = try XapianQuery.or([XapianQuery.term("XSECTIONeditors"), XapianQuery.term("XSECTIONtext")])
        let filtered = try XapianQuery.filter(text, by: [sections])
        #expect(Set(names(try database.search(filtered))) == ["vim", "nano"])
        let withoutVim = try XapianQuery.andNot(filtered, excluding: [XapianQuery.term("Qvim")])
        #expect(names(try database.search(withoutVim)) == ["nano"])
        let both = try XapianQuery.and([XapianQuery.term("Zgnu"), XapianQuery.term("Zgrep")])
        #expect(names(try database.search(both)) == ["grep"])
        #expect(try database.search(XapianQuery.matchAll()).estimatedTotal == 5)
        #expect(try database.search(XapianQuery.matchNothing()).hits.isEmpty)
        #expect(filtered.description.contains("FILTER"))
        let empty = try #require(engineFailure { _ = try XapianQuery.or([]) })
        #expect(empty.code == .invalidArgument)
    }
}

import Foundation
import SpotliteTestSupport
import Testing

/// Values that are not finite numbers or real dates, and text the sqlite3 shell writes with a NUL or invalid UTF-8:
/// indexed as what they are, or named in a warning, never silently.
@Suite("Commands: hostile values", .blockingWork)
struct CommandHostileValueTests {
    static let configuration = CommandLineTool.packageConfiguration.replacingOccurrences(
        of: "size        = { type = \"number\", sortable = true }",
        with: "size        = { type = \"number\", sortable = true }\n        released    = { type = \"date\", sortable = true }")

    private func warnings(_ output: CommandLineTool.Output) -> [Substring] {
        output.stderr.split(separator: "\n").filter { $0.hasPrefix("spotlite: warning:") }
    }

    /// `"NaN"` in a number field matched `size:0..10`, in a date field `released:1970`; `"1e999"` and `"Infinity"`
    /// became +infinity, `"-inf"` no value: all without a word, while `"big"` was named.
    @Test func nonFiniteNumbersAndDatesAreNeverIndexedAndAreNamed() throws {
        let tool = try CommandLineTool(configuration: Self.configuration)
        defer { tool.remove() }
        let lines = [
            #"{"name": "nan-size", "summary": "hostile one", "size": "NaN"}"#,
            #"{"name": "inf-size", "summary": "hostile two", "size": "Infinity"}"#,
            #"{"name": "huge-size", "summary": "hostile three", "size": "1e999"}"#,
            #"{"name": "minus-inf-size", "summary": "hostile four", "size": "-inf"}"#,
            #"{"name": "nan-date", "summary": "hostile five", "released": "NaN"}"#,
            #"{"name": "fine", "summary": "hostile six", "size": 5, "released": "2024-01-02"}"#,
        ]
        try tool.write(lines.joined(separator: "\n") + "\n", to: "values.jsonl")
        let imported = try tool.run(["import", "values.jsonl", "--entity", "Package"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let update = try tool.run(["index", "update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let summary = try #require(try update.json() as? [String: Any])
        #expect(summary["unreadable_values"] as? Int == 5, "\(summary)")
        let warning = warnings(update).joined(separator: "\n")
        for expected in [#"Package nan-size: size "NaN" is not a finite number"#,
                         #"Package inf-size: size "Infinity" is not a finite number"#,
                         #"Package huge-size: size "1e999" is not a finite number"#] {
            #expect(warning.contains(expected), "\(expected) in:\n\(update.stderr)")
        }
        for (query, expected) in [("size:0..10", ["fine"]), ("size:..1000000", ["fine"]), ("size:0..", ["fine"]),
                                  ("released:1970..2100", ["fine"])] {
            let found = try #require(try tool.run(["search", query, "--json"]).json() as? [String: Any])
            let keys = ((found["hits"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }
            #expect(keys == expected, "\(query): \(keys)")
        }
        // The same from a rebuild, which reads the rows again.
        let rebuilt = try #require(try tool.run(["index", "rebuild", "--json"]).json() as? [String: Any])
        #expect(rebuilt["unreadable_values"] as? Int == 5, "\(rebuilt)")
    }

    /// A REAL infinity and NaN-like text written by the sqlite3 shell reach the index through history: the same rule.
    @Test func nonFiniteValuesFromForeignWritesAreNamedToo() throws {
        let tool = try CommandLineTool(configuration: Self.configuration)
        defer { tool.remove() }
        try tool.write(CommandLineTool.packages, to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        let shell = try tool.sqlite("""
            INSERT INTO Package (name, summary, size) VALUES ('real-inf', 'foreign one', 9e999);
            INSERT INTO Package (name, summary, size) VALUES ('real-minus-inf', 'foreign two', -9e999);
            UPDATE Package SET released = 'nan' WHERE name = 'sqlite3';
            """)
        #expect(shell.status == 0, "\(shell.stderr)")
        let update = try tool.run(["index", "update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect((try update.json() as? [String: Any])?["unreadable_values"] as? Int == 3, "\(update.stdout)")
        let warning = warnings(update).joined(separator: "\n")
        #expect(warning.contains("Package real-inf: size") && warning.contains("is not a finite number"), "\(update.stderr)")
        #expect(warning.contains(#"Package sqlite3: released "nan" is not a real date"#), "\(update.stderr)")
        let found = try #require(try tool.run(["search", "foreign", "--json"]).json() as? [String: Any])
        #expect(found["total"] as? Int == 2, "the records are indexed, without the value: \(found)")
        let ranged = try #require(try tool.run(["search", "size:..0", "--json"]).json() as? [String: Any])
        #expect(ranged["total"] as? Int == 0, "no infinity in a range: \(ranged)")
    }

    /// Xapian's 245-byte term limit counts the term prefix: with a 64-character field name, values of 179 to 200
    /// bytes (under the documented 200) matched neither `--filter` nor `field:value`.
    @Test func aKeywordValueUpTo200BytesFiltersWhateverTheFieldName() throws {
        let field = "a_keyword_field_with_a_name_of_sixty_four_characters_for_testing"
        #expect(field.utf8.count == 64)
        let configuration = CommandLineTool.packageConfiguration.replacingOccurrences(
            of: "size        = { type = \"number\", sortable = true }",
            with: "size        = { type = \"number\", sortable = true }\n        \(field) = { type = \"keyword\" }")
        let tool = try CommandLineTool(configuration: configuration)
        defer { tool.remove() }
        let value = "v" + String(repeating: "x", count: 198) + "z"
        #expect(value.utf8.count == 200)
        let line = #"{"name": "long-value", "summary": "a long keyword", "\#(field)": "\#(value)"}"#
        try tool.write(CommandLineTool.packages + line + "\n", to: "packages.jsonl")
        #expect(try tool.run(["import", "packages.jsonl", "--entity", "Package"]).status == 0)
        #expect(try tool.run(["index", "update"]).status == 0)
        for arguments in [["search", "--filter", "\(field):\(value)", "--json"], ["search", "\(field):\(value)", "--json"]] {
            let found = try #require(try tool.run(arguments).json() as? [String: Any])
            let keys = ((found["hits"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }
            #expect(keys == ["long-value"], "\(arguments[1].prefix(20))…: \(keys)")
        }
    }

    /// JSONSerialization reads -9223372036854775808 (Int64.min) as a real: it was stored as REAL -9.22337203685478e+18.
    @Test func theSmallestIntegerIsStoredAsAnInteger() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        try tool.write(#"{"name": "smallest", "summary": "the smallest integer", "size": -9223372036854775808}"# + "\n"
                       + #"{"name": "real", "summary": "a real", "size": -9.5}"# + "\n", to: "values.jsonl")
        #expect(try tool.run(["import", "values.jsonl", "--entity", "Package"]).status == 0)
        let stored = try tool.sqlite("SELECT name, typeof(size), size FROM Package ORDER BY name;")
        #expect(stored.stdout == "real|real|-9.5\nsmallest|integer|-9223372036854775808\n", "\(stored.stdout)")
    }
}

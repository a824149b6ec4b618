import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
@testable import SpotliteConfig

@Suite("Configuration key order and durations", .blockingWork)
struct ConfigurationKeyOrderTests {
    @Test("keys are ranked by first definition through headers, dotted keys and inline tables")
    func ranksKeys() {
        let order = TOMLKeyOrder(source: """
        # a comment mentioning [entities.Early] and early = 1
        zeta = 1
        [entities.Beta]
        key = "id"     # trailing comment
        [entities]
        Alpha.key = "x"
        Gamma = { key = "k", fields = { z = { type = "text" }, a = { type = "keyword" } } }
        [entities.Beta.fields]
        m = { type = "text" }
        b = { type = "text" }
        """)
        #expect(order.ordered(["Gamma", "Alpha", "Beta"], under: ["entities"]) == ["Beta", "Alpha", "Gamma"])
        #expect(order.ordered(["entities", "zeta"], under: []) == ["zeta", "entities"])
        #expect(order.ordered(["z", "a"], under: ["entities", "Gamma", "fields"]) == ["z", "a"])
        #expect(order.ordered(["b", "m"], under: ["entities", "Beta", "fields"]) == ["m", "b"])
        #expect(order.position(of: ["entities", "Early"]) == nil)
        #expect(order.position(of: ["early"]) == nil)
    }

    @Test("strings, arrays and multi-line values that look like keys do not confuse the order")
    func ignoresLookalikes() {
        let order = TOMLKeyOrder(source: #"""
        first = """
        [entities.Fake]
        second = 2 \"""
        """
        literal = '''
        third = 3 ''' # done
        array = [
          "[entities.AlsoFake]", # comment ]
          { inner = 1 }, 'x',
          [1, 2],
        ]
        "quoted key" = "a = b"
        'literal.key' = 'c'
        dotted . spaced = 1979-05-27 07:32:00
        "esc\u0041ped" = true
        last = -1.5e3
        """#)
        let keys = ["last", "dotted", "literal.key", "quoted key", "array", "literal", "first", "escAped"]
        #expect(order.ordered(keys, under: []) == ["first", "literal", "array", "quoted key", "literal.key", "dotted", "escAped", "last"])
        #expect(order.position(of: ["entities"]) == nil)
        #expect(order.position(of: ["second"]) == nil)
        #expect(order.position(of: ["third"]) == nil)
        #expect(order.position(of: ["array", "inner"]) != nil)
        #expect(order.position(of: ["dotted", "spaced"]) != nil)
    }

    @Test("keys the scanner never saw sort after the others, by name")
    func unseenKeys() {
        let order = TOMLKeyOrder(source: "b = 1\n")
        #expect(order.ordered(["z", "a", "b"], under: []) == ["b", "a", "z"])
        let broken = TOMLKeyOrder(source: "a = 1\n= oops\nb = 2\n")
        #expect(broken.ordered(["b", "a"], under: []) == ["a", "b"])
    }

    @Test("durations: a whole number and one of s, m, h, d", arguments: [
        ("1s", Duration.seconds(1)), ("90m", .seconds(5400)), ("4h", .seconds(14400)), ("7d", .seconds(604_800)),
        ("007d", .seconds(604_800)), ("36500d", .seconds(36500 * 86400)), ("3153600000s", .seconds(3_153_600_000)),
    ])
    func durations(text: String, expected: Duration) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test("durations refused", arguments: [
        "", "7", "d", "7w", "-1d", "+1d", "1.5d", "0s", "0d", "7 d", " 7d", "7D", "7dd", "1e3s", "٣d",
        "9999999999999999999d", "106751991167300d", "36501d", "876001h",
    ])
    func refusedDurations(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test("durations format back to the shortest unit")
    func formatDurations() {
        #expect(DurationText.format(.seconds(604_800)) == "7d")
        #expect(DurationText.format(.seconds(5400)) == "90m")
        #expect(DurationText.format(.seconds(7200)) == "2h")
        #expect(DurationText.format(.seconds(61)) == "61s")
        for text in ["7d", "90m", "2h", "61s"] {
            #expect(DurationText.format(DurationText.parse(text)!) == text)
        }
    }

    @Test("key paths quote anything that is not a bare key")
    func keyPaths() {
        #expect(ConfigurationKeyPath("entities", "Package", "fields", "size").description == "entities.Package.fields.size")
        #expect(ConfigurationKeyPath("entities", "Package; DROP TABLE x").description == "entities.\"Package; DROP TABLE x\"")
        #expect(ConfigurationKeyPath("a", "", "b.c", "q\"\\\n").description == "a.\"\".\"b.c\".\"q\\\"\\\\\\n\"")
        #expect(ConfigurationKeyPath.quoted("\u{1}") == "\"\\u0001\"")
    }
}

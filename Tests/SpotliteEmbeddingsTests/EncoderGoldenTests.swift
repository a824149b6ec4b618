import Foundation
import SpotliteEmbeddings
import SpotliteTestSupport
import Testing

@Suite("The default model against sentence-transformers", .blockingWork)
struct EncoderGoldenTests {
    private func dot(_ a: [Float], _ b: [Float]) -> Double {
        zip(a, b).reduce(0) { $0 + Double($1.0) * Double($1.1) }
    }

    @Test("The quickstart's three similarities, to three decimals")
    func quickstartSimilarities() throws {
        let encoder = try ModelLocation.encoder()
        let vectors = try encoder.vectors(for: ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
        #expect(vectors.count == 3)
        #expect(vectors.allSatisfy { $0.count == 384 })
        #expect(abs(dot(vectors[0], vectors[1]) - 0.6660) < 0.0005)
        #expect(abs(dot(vectors[0], vectors[2]) - 0.1046) < 0.0005)
        #expect(abs(dot(vectors[1], vectors[2]) - 0.1411) < 0.0005)
        for vector in vectors { #expect(abs(dot(vector, vector) - 1) < 1e-5) }
    }

    @Test("A text encoded alone or in a batch of other lengths gives the same vector")
    func batchingDoesNotChangeVectors() throws {
        let encoder = try ModelLocation.encoder()
        let texts = ["He drove to the stadium.", "A much longer sentence about sourdough bread, flour, water and salt, baked in a hot oven.", "Hi"]
        let batch = try encoder.vectors(for: texts)
        for (index, text) in texts.enumerated() {
            let alone = try encoder.vector(for: text)
            #expect(zip(alone, batch[index]).allSatisfy { abs($0 - $1) < 1e-5 })
        }
    }

    @Test("Meaning without shared words: bread baking is nearer sourdough than cars")
    func meaningWithoutSharedWords() throws {
        let encoder = try ModelLocation.encoder()
        let vectors = try encoder.vectors(for: ["baking loaves of bread", "a sourdough starter for rustic loaves", "replacing the brake pads of a car"])
        #expect(dot(vectors[0], vectors[1]) > dot(vectors[0], vectors[2]) + 0.2)
    }

    @Test("Token ids of accents, punctuation and unknown words, as Hugging Face's tokenizers gives them")
    func tokenIDs() throws {
        let encoder = try ModelLocation.encoder()
        // Reference ids from the `tokenizers` package (0.23.3) reading the same tokenizer.json.
        let cases: [(String, [Int32])] = [
            ("The weather is lovely today.", [101, 1996, 4633, 2003, 8403, 2651, 1012, 102]),
            ("Crème brûlée à la française, naïve café!",
             [101, 13675, 21382, 7987, 9307, 2063, 1037, 2474, 18427, 1010, 15743, 7668, 999, 102]),
            ("Hello,world... (e-mail: a_b@c.org) [x] $42.50 — 100% “quoted”",
             [101, 7592, 1010, 2088, 1012, 1012, 1012, 1006, 1041, 1011, 5653, 1024, 1037, 1035, 1038, 1030, 1039, 1012,
              8917, 1007, 1031, 1060, 1033, 1002, 4413, 1012, 2753, 1517, 2531, 1003, 1523, 9339, 1524, 102]),
            ("A snowman ☃ and 🙂 in Ελληνικά, 東京タワー, tab\tand\u{0}nul",
             [101, 1037, 4586, 2386, 100, 1998, 100, 1999, 1159, 29727, 29727, 24824, 16177, 18199, 29726, 14608, 1010,
              1879, 1755, 1709, 30262, 30265, 1010, 21628, 1998, 11231, 2140, 102]),
            ("supercalifragilisticexpialidociousnessxyzzyqwerty unaffordably",
             [101, 3565, 9289, 10128, 29181, 24411, 4588, 10288, 19312, 21273, 10085, 6313, 2791, 18037, 28753, 4160,
              13777, 3723, 14477, 4246, 8551, 8231, 102]),
            (String(repeating: "x", count: 101) + " ok", [101, 100, 7929, 102]),
        ]
        for (text, expected) in cases {
            let tokens = encoder.tokens(of: text)
            #expect(tokens.ids == expected, "\(text)")
            #expect(!tokens.truncated)
        }
    }

    @Test("A long text is cut to 256 tokens, [SEP] last, and says so")
    func longTextIsCut() throws {
        let encoder = try ModelLocation.encoder()
        let tokens = encoder.tokens(of: String(repeating: "weather ", count: 300))
        #expect(tokens.ids.count == 256)
        #expect(tokens.ids.first == 101 && tokens.ids.last == 102)
        #expect(tokens.truncated)
        #expect(encoder.tokens(of: String(repeating: "weather ", count: 254)).truncated == false)
        #expect(try encoder.vector(for: String(repeating: "weather ", count: 300)).count == 384)
    }
}

import Foundation

/// BERT's tokenizer, read from a Hugging Face `tokenizer.json` (a `WordPiece` model behind a `BertNormalizer` and a
/// `BertPreTokenizer`): it cleans the text (drops control characters, turns any whitespace into a space), puts
/// spaces around CJK ideographs, strips accents and lower-cases when the normalizer says so, splits on whitespace
/// and around every punctuation character, then cuts each word into the longest vocabulary pieces from its start
/// (continuations prefixed `##`; a word with no such cut, or longer than 100 characters, is `[UNK]`), and wraps
/// the ids in `[CLS]` … `[SEP]`.
public struct WordPieceTokenizer: Sendable {
    /// The file read.
    public let path: String
    /// Every piece's id.
    public let vocabulary: [String: Int32]
    /// `[UNK]`, `[CLS]` and `[SEP]`.
    public let unknownID: Int32, classID: Int32, separatorID: Int32
    let continuationPrefix: String
    let maximumWordCharacters: Int
    let lowercase: Bool
    let stripAccents: Bool
    let cleanText: Bool
    let spaceChineseCharacters: Bool

    /// Reads `tokenizer.json` at `path`.
    ///
    /// - Throws: ``EmbeddingError/modelMissing(path:)`` when absent; ``EmbeddingError/modelDamaged(path:problem:)``
    ///   when it is not a WordPiece tokenizer or lacks `[UNK]`, `[CLS]` or `[SEP]`.
    public init(path: String) throws {
        self.path = path
        let root = try ModelConfiguration.object(at: path, required: true) ?? [:]
        guard let model = root["model"] as? [String: Any], model["type"] as? String == "WordPiece",
              let words = model["vocab"] as? [String: Any]
        else {
            throw EmbeddingError.modelDamaged(path: path, problem: "its model is not WordPiece with a vocab (only BERT tokenizers are supported)")
        }
        var vocabulary: [String: Int32] = [:]
        vocabulary.reserveCapacity(words.count)
        for (word, value) in words {
            guard let id = (value as? NSNumber)?.int32Value, id >= 0 else {
                throw EmbeddingError.modelDamaged(path: path, problem: "the vocabulary entry \(word) has no integer id")
            }
            // Swift strings compare by canonical equivalence: two spellings of one word keep the lower id.
            if let existing = vocabulary[word], existing <= id { continue }
            vocabulary[word] = id
        }
        self.vocabulary = vocabulary
        let unknown = (model["unk_token"] as? String) ?? "[UNK]"
        func special(_ token: String) throws -> Int32 {
            guard let id = vocabulary[token] else {
                throw EmbeddingError.modelDamaged(path: path, problem: "the vocabulary has no \(token)")
            }
            return id
        }
        unknownID = try special(unknown)
        classID = try special("[CLS]")
        separatorID = try special("[SEP]")
        continuationPrefix = (model["continuing_subword_prefix"] as? String) ?? "##"
        maximumWordCharacters = (model["max_input_chars_per_word"] as? Int) ?? 100
        let normalizer = root["normalizer"] as? [String: Any]
        if let normalizer, let type = normalizer["type"] as? String, type != "BertNormalizer" {
            throw EmbeddingError.modelDamaged(path: path, problem: "its normalizer is \(type); only BertNormalizer is supported")
        }
        if let preTokenizer = root["pre_tokenizer"] as? [String: Any], let type = preTokenizer["type"] as? String,
           type != "BertPreTokenizer"
        {
            throw EmbeddingError.modelDamaged(path: path, problem: "its pre-tokenizer is \(type); only BertPreTokenizer is supported")
        }
        lowercase = normalizer?["lowercase"] as? Bool ?? true
        stripAccents = normalizer?["strip_accents"] as? Bool ?? lowercase
        cleanText = normalizer?["clean_text"] as? Bool ?? true
        spaceChineseCharacters = normalizer?["handle_chinese_chars"] as? Bool ?? true
    }

    /// The largest id in the vocabulary plus one: the rows of word embeddings the model needs.
    public var requiredEmbeddingRows: Int { Int(vocabulary.values.max() ?? -1) + 1 }

    /// The ids of `text`, `[CLS]` first and `[SEP]` last, at most `maximumTokens` in all, and whether the text was
    /// cut to fit. A text with no words gives `[CLS] [SEP]`.
    public func encode(_ text: String, maximumTokens: Int) -> (ids: [Int32], truncated: Bool) {
        var ids: [Int32] = [classID]
        let room = max(0, maximumTokens - 2)
        var truncated = false
        var word: [Unicode.Scalar] = []
        word.reserveCapacity(32)
        func finishWord() -> Bool {
            defer { word.removeAll(keepingCapacity: true) }
            guard !word.isEmpty else { return true }
            appendPieces(of: word, to: &ids)
            if ids.count - 1 > room {
                ids.removeSubrange((1 + room)...)
                truncated = true
                return false
            }
            return true
        }
        scan: for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let value = UInt8(scalar.value)
                switch Self.asciiClass[Int(value)] {
                case .letter:
                    word.append(lowercase && value >= 65 && value <= 90 ? Unicode.Scalar(value + 32) : scalar)
                case .space:
                    if !finishWord() { break scan }
                case .punctuation:
                    if !finishWord() { break scan }
                    word.append(scalar)
                    if !finishWord() { break scan }
                case .control:
                    if !cleanText { word.append(scalar) }
                }
                continue
            }
            for normalized in normalize(scalar) {
                if normalized.properties.isWhitespace {
                    if !finishWord() { break scan }
                } else if Self.isPunctuation(normalized) {
                    if !finishWord() { break scan }
                    word.append(normalized)
                    if !finishWord() { break scan }
                } else {
                    word.append(normalized)
                }
            }
        }
        if !truncated { _ = finishWord() }
        ids.append(separatorID)
        return (ids, truncated)
    }

    /// What BertNormalizer makes of one non-ASCII scalar: nothing (a control character), a space (whitespace), the
    /// scalar between spaces (a CJK ideograph), or its lower-cased letters without combining accents.
    private func normalize(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        let properties = scalar.properties
        if cleanText {
            if scalar.value == 0xFFFD || Self.isControl(scalar) { return [] }
            if properties.isWhitespace || properties.generalCategory == .spaceSeparator { return [" "] }
        }
        if spaceChineseCharacters, Self.isChineseCharacter(scalar) { return [" ", scalar, " "] }
        var scalars: [Unicode.Scalar]
        if stripAccents {
            scalars = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
                .filter { $0.properties.generalCategory != .nonspacingMark }
        } else {
            scalars = [scalar]
        }
        if lowercase {
            scalars = scalars.flatMap { Array($0.properties.lowercaseMapping.unicodeScalars) }
        }
        return scalars
    }

    /// Greedy longest-match-first pieces of `word`, or `[UNK]` for the whole word when some part has no piece.
    private func appendPieces(of word: [Unicode.Scalar], to ids: inout [Int32]) {
        if word.count > maximumWordCharacters {
            ids.append(unknownID)
            return
        }
        let before = ids.count
        var start = 0
        while start < word.count {
            var end = word.count
            var found: Int32?
            while end > start {
                var piece = start > 0 ? continuationPrefix : ""
                piece.unicodeScalars.append(contentsOf: word[start..<end])
                if let id = vocabulary[piece] {
                    found = id
                    break
                }
                end -= 1
            }
            guard let id = found else {
                ids.removeSubrange(before...)
                ids.append(unknownID)
                return
            }
            ids.append(id)
            start = end
        }
    }

    private enum ASCIIClass { case letter, space, punctuation, control }

    private static let asciiClass: [ASCIIClass] = (0..<128).map { value in
        switch value {
        case 9, 10, 13, 32: return .space
        case 0..<32, 127: return .control
        case 33...47, 58...64, 91...96, 123...126: return .punctuation
        default: return .letter
        }
    }

    /// Unicode's "other" categories (control, format, unassigned, private use, surrogate), as BertNormalizer drops them.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .unassigned, .privateUse, .surrogate: return true
        default: return false
        }
    }

    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation:
            return true
        default:
            return scalar.isASCII && asciiClass[Int(scalar.value)] == .punctuation
        }
    }

    /// The CJK Unified Ideographs blocks BERT spaces out (not Hangul, Hiragana or Katakana).
    private static func isChineseCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F, 0x2B740...0x2B81F,
             0x2B820...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}

import CEmbeddings
import Foundation
import Synchronization

/// A BERT-family sentence encoder read from a model directory (`model.safetensors`, `tokenizer.json`,
/// `config.json`, optionally `1_Pooling/config.json` and `sentence_bert_config.json`, as sentence-transformers
/// saves them): texts in, L2-normalised vectors out, so that the dot product of two vectors is their cosine
/// similarity. Nothing is fetched from the network.
///
/// ```swift
/// let encoder = try SentenceEncoder(directory: URL(fileURLWithPath: "Index/models/all-MiniLM-L6-v2"))
/// let vectors = try encoder.vectors(for: ["The weather is lovely today.", "It's so sunny outside!"])
/// ```
///
/// The weights are memory-mapped, not copied. Encoding is serialised (one batch at a time uses all of OpenBLAS's
/// threads); an encoder can be shared between tasks.
public final class SentenceEncoder: Sendable {
    /// The model directory.
    public let directory: URL
    /// The model's shape.
    public let configuration: ModelConfiguration
    /// The model's tokenizer.
    public let tokenizer: WordPieceTokenizer
    /// Identifies the model's files (configuration, tokenizer, and a sample of the weights): vectors made by a model
    /// with another fingerprint are never mixed with this one's.
    public let fingerprint: String
    /// The most tokens one call to the numeric core takes; a batch is cut into calls of about this many tokens,
    /// bounding scratch memory.
    public let tokensPerCall: Int
    private let weights: SafetensorsFile
    private let core: EncoderCore
    private let lock = Mutex(())

    /// The vector dimensions.
    public var dimensions: Int { configuration.hidden }

    /// Reads and checks the model in `directory`.
    ///
    /// - Parameters:
    ///   - directory: the model directory.
    ///   - tokensPerCall: the most tokens encoded in one pass (scratch memory grows with it).
    /// - Throws: ``EmbeddingError/modelMissing(path:)`` when the directory or one of its files is absent;
    ///   ``EmbeddingError/modelDamaged(path:problem:)`` for a truncated or damaged file or an unsupported model;
    ///   ``EmbeddingError/tokenizerMismatch(path:problem:)`` when the tokenizer's vocabulary does not fit the
    ///   model's embeddings.
    public init(directory: URL, tokensPerCall: Int = 4096) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw EmbeddingError.modelMissing(path: directory.path)
        }
        let configuration = try ModelConfiguration(directory: directory)
        let tokenizer = try WordPieceTokenizer(path: directory.appendingPathComponent("tokenizer.json").path)
        let weights = try SafetensorsFile(path: directory.appendingPathComponent("model.safetensors").path)
        guard tokenizer.requiredEmbeddingRows <= configuration.vocabulary else {
            throw EmbeddingError.tokenizerMismatch(
                path: tokenizer.path,
                problem: "its vocabulary has ids up to \(tokenizer.requiredEmbeddingRows - 1) but the model has \(configuration.vocabulary) word embeddings")
        }
        self.configuration = configuration
        self.tokenizer = tokenizer
        self.weights = weights
        self.tokensPerCall = max(tokensPerCall, configuration.maximumTokens)
        self.core = try EncoderCore(configuration: configuration, weights: weights)
        self.fingerprint = try Self.fingerprint(directory: directory, weights: weights)
    }

    /// The token ids of `text` as the model sees them (`[CLS]` … `[SEP]`, cut to the model's maximum), and
    /// whether it was cut.
    public func tokens(of text: String) -> (ids: [Int32], truncated: Bool) {
        tokenizer.encode(text, maximumTokens: configuration.maximumTokens)
    }

    /// The vector of `text`.
    ///
    /// - Throws: ``EmbeddingError/emptyText`` when the text has no words; ``EmbeddingError/computation(_:)``.
    public func vector(for text: String) throws -> [Float] {
        try vectors(for: [text])[0]
    }

    /// The vectors of `texts`, in order, encoded in batches.
    ///
    /// - Throws: ``EmbeddingError/emptyText`` when a text has no words; ``EmbeddingError/computation(_:)``.
    public func vectors(for texts: [String]) throws -> [[Float]] {
        var sequences: [[Int32]] = []
        sequences.reserveCapacity(texts.count)
        for text in texts {
            let ids = tokens(of: text).ids
            guard ids.count > 2 else { throw EmbeddingError.emptyText }
            sequences.append(ids)
        }
        let flat = try vectors(forTokens: sequences)
        return (0..<texts.count).map { Array(flat[($0 * dimensions)..<(($0 + 1) * dimensions)]) }
    }

    /// The vectors of tokenised texts (each from ``tokens(of:)``), one after another in one array of
    /// `sequences.count × dimensions` floats.
    ///
    /// - Throws: ``EmbeddingError/computation(_:)`` for an empty sequence, one longer than the model takes, or an
    ///   id outside the vocabulary.
    public func vectors(forTokens sequences: [[Int32]]) throws -> [Float] {
        var output = [Float](repeating: 0, count: sequences.count * dimensions)
        var start = 0
        while start < sequences.count {
            var end = start
            var tokens = 0
            while end < sequences.count, end == start || tokens + sequences[end].count <= tokensPerCall {
                tokens += sequences[end].count
                end += 1
            }
            let ids = sequences[start..<end].flatMap { $0 }
            let lengths = sequences[start..<end].map { Int32($0.count) }
            try output.withUnsafeMutableBufferPointer { buffer in
                let destination = buffer.baseAddress! + start * dimensions
                try lock.withLock { _ in
                    try core.encode(ids: ids, lengths: lengths, into: destination)
                }
            }
            start = end
        }
        return output
    }

    /// FNV-1a over config.json, tokenizer.json, the pooling file, the safetensors header and every 4096th float.
    private static func fingerprint(directory: URL, weights: SafetensorsFile) throws -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        for name in ["config.json", "tokenizer.json", "1_Pooling/config.json", "sentence_bert_config.json"] {
            if let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) {
                mix(name.utf8)
                mix(data)
            }
        }
        for name in weights.tensors.keys.sorted() {
            guard let info = weights.tensors[name] else { continue }
            mix(name.utf8)
            mix("\(info.dtype)\(info.shape)\(info.byteRange)".utf8)
            if info.dtype == "F32" {
                let values = try weights.floats(name, shape: info.shape)
                let count = info.shape.reduce(1, *)
                var index = 0
                while index < count {
                    withUnsafeBytes(of: values[index].bitPattern.littleEndian) { mix($0) }
                    index += 4096
                }
            }
        }
        return String(hash, radix: 16)
    }
}

/// The numeric core's encoder handle (with its scratch memory), freed with its owner. Not thread-safe: the
/// owning ``SentenceEncoder`` calls it under its lock only (the reason for @unchecked Sendable).
final class EncoderCore: @unchecked Sendable {
    let handle: OpaquePointer
    let dimensions: Int

    init(configuration: ModelConfiguration, weights: SafetensorsFile) throws {
        let hidden = configuration.hidden, intermediate = configuration.intermediate
        let prefix = weights.tensors["embeddings.word_embeddings.weight"] == nil
            && weights.tensors["bert.embeddings.word_embeddings.weight"] != nil ? "bert." : ""
        func tensor(_ name: String, _ shape: [Int]) throws -> UnsafePointer<Float> {
            try weights.floats(prefix + name, shape: shape)
        }
        guard let typeShape = weights.tensors[prefix + "embeddings.token_type_embeddings.weight"]?.shape,
              typeShape.count == 2, typeShape[0] >= 1
        else {
            throw EmbeddingError.modelDamaged(path: weights.path, problem: "it has no tensor \(prefix)embeddings.token_type_embeddings.weight")
        }
        guard let wordShape = weights.tensors[prefix + "embeddings.word_embeddings.weight"]?.shape, wordShape.count == 2,
              wordShape[0] == configuration.vocabulary, wordShape[1] == hidden
        else {
            let found = weights.tensors[prefix + "embeddings.word_embeddings.weight"]?.shape ?? []
            throw EmbeddingError.modelDamaged(
                path: weights.path,
                problem: "its word embeddings have shape \(found) but config.json says vocab_size \(configuration.vocabulary) and hidden_size \(hidden) (a config.json from another model?)")
        }
        var layers: [ce_bert_layer] = []
        for index in 0..<configuration.layers {
            let name = "encoder.layer.\(index)."
            layers.append(ce_bert_layer(
                query_weight: try tensor(name + "attention.self.query.weight", [hidden, hidden]),
                query_bias: try tensor(name + "attention.self.query.bias", [hidden]),
                key_weight: try tensor(name + "attention.self.key.weight", [hidden, hidden]),
                key_bias: try tensor(name + "attention.self.key.bias", [hidden]),
                value_weight: try tensor(name + "attention.self.value.weight", [hidden, hidden]),
                value_bias: try tensor(name + "attention.self.value.bias", [hidden]),
                attention_output_weight: try tensor(name + "attention.output.dense.weight", [hidden, hidden]),
                attention_output_bias: try tensor(name + "attention.output.dense.bias", [hidden]),
                attention_norm_weight: try tensor(name + "attention.output.LayerNorm.weight", [hidden]),
                attention_norm_bias: try tensor(name + "attention.output.LayerNorm.bias", [hidden]),
                intermediate_weight: try tensor(name + "intermediate.dense.weight", [intermediate, hidden]),
                intermediate_bias: try tensor(name + "intermediate.dense.bias", [intermediate]),
                output_weight: try tensor(name + "output.dense.weight", [hidden, intermediate]),
                output_bias: try tensor(name + "output.dense.bias", [hidden]),
                output_norm_weight: try tensor(name + "output.LayerNorm.weight", [hidden]),
                output_norm_bias: try tensor(name + "output.LayerNorm.bias", [hidden])))
        }
        var config = ce_bert_config(
            hidden: Int32(hidden), heads: Int32(configuration.heads), intermediate: Int32(intermediate),
            layers: Int32(configuration.layers), vocabulary: Int32(configuration.vocabulary),
            positions: Int32(configuration.positions), norm_epsilon: configuration.normEpsilon,
            activation: configuration.activation == "gelu" ? CE_ACTIVATION_GELU : CE_ACTIVATION_GELU_TANH,
            pooling: configuration.pooling == .cls ? CE_POOLING_CLS : CE_POOLING_MEAN)
        let wordEmbeddings = try tensor("embeddings.word_embeddings.weight", [configuration.vocabulary, hidden])
        let positionEmbeddings = try tensor("embeddings.position_embeddings.weight", [configuration.positions, hidden])
        let typeEmbeddings = try tensor("embeddings.token_type_embeddings.weight", [typeShape[0], hidden])
        let normWeight = try tensor("embeddings.LayerNorm.weight", [hidden])
        let normBias = try tensor("embeddings.LayerNorm.bias", [hidden])
        var message: UnsafeMutablePointer<CChar>?
        let handle = layers.withUnsafeBufferPointer { layerBuffer in
            var tensors = ce_bert_weights(
                word_embeddings: wordEmbeddings, position_embeddings: positionEmbeddings,
                token_type_embeddings: typeEmbeddings, embedding_norm_weight: normWeight,
                embedding_norm_bias: normBias, layers: layerBuffer.baseAddress)
            return ce_bert_new(&config, &tensors, &message)
        }
        guard let handle else {
            throw EmbeddingError.modelDamaged(path: weights.path, problem: Self.take(message) ?? "the encoder could not be created")
        }
        self.handle = handle
        self.dimensions = hidden
    }

    deinit { ce_bert_free(handle) }

    func encode(ids: [Int32], lengths: [Int32], into destination: UnsafeMutablePointer<Float>) throws {
        var message: UnsafeMutablePointer<CChar>?
        let succeeded = ce_bert_encode(handle, ids, lengths, Int32(lengths.count), destination, &message)
        guard succeeded else { throw EmbeddingError.computation(Self.take(message) ?? "unknown failure") }
    }

    static func take(_ message: UnsafeMutablePointer<CChar>?) -> String? {
        guard let message else { return nil }
        defer { ce_free(message) }
        return String(cString: message)
    }
}

extension SentenceEncoder {
    /// The threads OpenBLAS uses for the matrix products (one per core unless set).
    public static var threads: Int { Int(ce_blas_threads()) }

    /// Sets the threads OpenBLAS uses for the matrix products, for every encoder of the process.
    public static func setThreads(_ count: Int) { ce_set_blas_threads(Int32(max(1, count))) }
}

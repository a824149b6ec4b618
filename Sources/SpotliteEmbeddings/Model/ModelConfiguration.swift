import Foundation

/// How a sentence vector is made from the encoder's token vectors (`1_Pooling/config.json`).
public enum Pooling: String, Sendable, Hashable {
    /// The mean of all token vectors (all-MiniLM-L6-v2, e5).
    case mean
    /// The `[CLS]` token's vector (bge).
    case cls
}

/// A BERT-family sentence encoder's shape, read from a model directory: `config.json` (the transformer),
/// `1_Pooling/config.json` (pooling; mean when absent) and `sentence_bert_config.json` (the longest input; 256
/// when absent).
public struct ModelConfiguration: Sendable, Hashable {
    /// hidden_size: the vector dimensions.
    public var hidden: Int
    /// num_attention_heads.
    public var heads: Int
    /// intermediate_size.
    public var intermediate: Int
    /// num_hidden_layers.
    public var layers: Int
    /// vocab_size.
    public var vocabulary: Int
    /// max_position_embeddings.
    public var positions: Int
    /// layer_norm_eps.
    public var normEpsilon: Float
    /// hidden_act: "gelu" or the tanh approximation ("gelu_new", "gelu_pytorch_tanh").
    public var activation: String
    /// Mean or CLS pooling.
    public var pooling: Pooling
    /// The most tokens per text, [CLS] and [SEP] included; longer texts are cut.
    public var maximumTokens: Int

    /// Reads the configuration files of the model directory `directory`.
    ///
    /// - Throws: ``EmbeddingError/modelMissing(path:)`` without config.json; ``EmbeddingError/modelDamaged(path:problem:)``
    ///   for a file that is not JSON, a model that is not BERT-like, or a pooling other than mean or CLS.
    public init(directory: URL) throws {
        let configPath = directory.appendingPathComponent("config.json").path
        let config = try Self.object(at: configPath, required: true) ?? [:]
        func integer(_ key: String) throws -> Int {
            guard let value = config[key] as? Int, value > 0 else {
                throw EmbeddingError.modelDamaged(path: configPath, problem: "\(key) is missing or not a positive integer")
            }
            return value
        }
        if let type = config["model_type"] as? String, type != "bert" {
            throw EmbeddingError.modelDamaged(path: configPath, problem: "model_type is \(type); only BERT encoders are supported")
        }
        hidden = try integer("hidden_size")
        heads = try integer("num_attention_heads")
        intermediate = try integer("intermediate_size")
        layers = try integer("num_hidden_layers")
        vocabulary = try integer("vocab_size")
        positions = try integer("max_position_embeddings")
        guard hidden % heads == 0 else {
            throw EmbeddingError.modelDamaged(path: configPath, problem: "hidden_size \(hidden) is not a multiple of num_attention_heads \(heads)")
        }
        normEpsilon = Float((config["layer_norm_eps"] as? Double) ?? 1e-12)
        activation = (config["hidden_act"] as? String) ?? "gelu"
        guard ["gelu", "gelu_new", "gelu_pytorch_tanh"].contains(activation) else {
            throw EmbeddingError.modelDamaged(path: configPath, problem: "hidden_act \(activation) is not supported (gelu, gelu_new, gelu_pytorch_tanh)")
        }
        if let type = config["position_embedding_type"] as? String, type != "absolute" {
            throw EmbeddingError.modelDamaged(path: configPath, problem: "position_embedding_type \(type) is not supported (absolute)")
        }

        let poolingPath = directory.appendingPathComponent("1_Pooling/config.json").path
        if let poolingConfig = try Self.object(at: poolingPath, required: false) {
            let mean = poolingConfig["pooling_mode_mean_tokens"] as? Bool ?? false
            let cls = poolingConfig["pooling_mode_cls_token"] as? Bool ?? false
            let others = ["pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens",
                          "pooling_mode_lasttoken"].filter { poolingConfig[$0] as? Bool ?? false }
            guard others.isEmpty, mean != cls else {
                throw EmbeddingError.modelDamaged(path: poolingPath, problem: "only one of pooling_mode_mean_tokens and pooling_mode_cls_token is supported")
            }
            if let dimension = poolingConfig["word_embedding_dimension"] as? Int, dimension != hidden {
                throw EmbeddingError.modelDamaged(path: poolingPath, problem: "word_embedding_dimension \(dimension) differs from hidden_size \(hidden) in config.json")
            }
            pooling = cls ? .cls : .mean
        } else {
            pooling = .mean
        }

        let sentencePath = directory.appendingPathComponent("sentence_bert_config.json").path
        let longest = try Self.object(at: sentencePath, required: false)?["max_seq_length"] as? Int ?? 256
        maximumTokens = max(2, min(longest, positions))
    }

    static func object(at path: String, required: Bool) throws -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if !required, !FileManager.default.fileExists(atPath: path) { return nil }
            throw FileManager.default.fileExists(atPath: path)
                ? EmbeddingError.modelDamaged(path: path, problem: "it cannot be read")
                : EmbeddingError.modelMissing(path: path)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw EmbeddingError.modelDamaged(path: path, problem: "it is not a JSON object")
        }
        return object
    }
}

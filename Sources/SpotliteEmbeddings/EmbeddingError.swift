import Foundation

/// What went wrong in SpotliteEmbeddings: each case names the file or value at fault and the way out.
public enum EmbeddingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model directory, or a file it needs, does not exist.
    case modelMissing(path: String)
    /// A model file exists but cannot be used (truncated, damaged, of an unsupported kind): `problem` says how.
    case modelDamaged(path: String, problem: String)
    /// The tokenizer does not fit the model (vocabulary larger than the embeddings, special tokens missing).
    case tokenizerMismatch(path: String, problem: String)
    /// A text with nothing to embed (empty, or only spaces and control characters).
    case emptyText
    /// Vectors of `found` dimensions where `expected` were wanted (another model made them).
    case dimensionMismatch(expected: Int, found: Int, path: String)
    /// The vector index could not be read or written.
    case vectorIndex(path: String, problem: String)
    /// The numeric core failed (out of memory, an argument out of range).
    case computation(String)

    public var description: String {
        switch self {
        case .modelMissing(let path):
            return "No embedding model at \(path): run `make deps` to install the default model (all-MiniLM-L6-v2), or point the configuration at a folder holding model.safetensors, tokenizer.json and config.json."
        case .modelDamaged(let path, let problem):
            return "The embedding model file \(path) cannot be used: \(problem). Run `make deps` again to reinstall the default model, or copy the model folder again."
        case .tokenizerMismatch(let path, let problem):
            return "The tokenizer \(path) does not match its model: \(problem). Use the tokenizer.json that came with model.safetensors."
        case .emptyText:
            return "There is no text to embed: the text is empty or holds only spaces and control characters."
        case .dimensionMismatch(let expected, let found, let path):
            return "The vectors in \(path) have \(found) dimensions but the model makes \(expected): another model made them. Rebuild the vectors (spotlite index rebuild) to use this model."
        case .vectorIndex(let path, let problem):
            return "The vector index \(path) failed: \(problem)"
        case .computation(let problem):
            return "Embedding failed: \(problem)"
        }
    }
}

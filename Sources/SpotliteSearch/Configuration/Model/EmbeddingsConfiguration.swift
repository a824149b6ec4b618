import Foundation

/// The `[embeddings]` table: which sentence-embedding model makes the vectors of semantic and hybrid search, where
/// the vectors are kept, and under which author the embedder keeps its history position. Entities say which of
/// their text fields are embedded (``EntityConfiguration/embed``).
public struct EmbeddingsConfiguration: Sendable, Hashable {
    /// The default model, the one `make deps` and `make install` install.
    public static let defaultModel = "all-MiniLM-L6-v2"
    /// The embedder's default history position.
    public static let defaultAuthor = "spotlite.embedder"
    /// Records embedded per call to the model by default.
    public static let defaultBatchSize = 64

    /// A model folder: a name looked up in ``modelsPath`` (or the default models folders), or a path (holding a
    /// `/`), which loaders make absolute.
    public var model: String
    /// Where named models are looked up first, before the default folders (``modelsFolders(indexPath:)``). Loaders
    /// make it absolute.
    public var modelsPath: String?
    /// The vector index folder; nil for `<index>.vectors` beside the search index. Loaders make it absolute.
    public var indexPath: String?
    /// The embedder's position in the store's history, like ``IndexerConfiguration/author``.
    public var author: String
    /// Records embedded per call to the model (at least 1).
    public var batchSize: Int

    /// Embeddings with `model`; every other setting at its default.
    public init(model: String = EmbeddingsConfiguration.defaultModel, modelsPath: String? = nil, indexPath: String? = nil,
                author: String = EmbeddingsConfiguration.defaultAuthor, batchSize: Int = EmbeddingsConfiguration.defaultBatchSize) {
        self.model = model
        self.modelsPath = modelsPath
        self.indexPath = indexPath
        self.author = author
        self.batchSize = batchSize
    }

    /// Whether ``model`` is a path rather than a name.
    public var modelIsPath: Bool { model.contains("/") || model.hasPrefix("~") }

    /// The vector index folder for a search index at `indexPath`.
    public func vectorIndexPath(besides indexPath: String) -> String {
        self.indexPath ?? (indexPath.hasSuffix("/") ? String(indexPath.dropLast()) : indexPath) + ".vectors"
    }

    /// The folders where a named model is looked up, in order: ``modelsPath`` when set; then `models` beside the
    /// search index (`Index/models` for `Index/search`, where `make deps` installs it), then `share/spotlite/models`
    /// beside the running program's `bin` folder (where `make install` installs it).
    public func modelsFolders(indexPath: String) -> [String] {
        var folders = modelsPath.map { [$0] } ?? []
        folders.append(((indexPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("models"))
        if let program = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let prefix = program.deletingLastPathComponent().deletingLastPathComponent()
            folders.append(prefix.appendingPathComponent("share/spotlite/models").path)
        }
        return folders
    }

    /// The model folders tried, in order: the path itself, or the name in each of ``modelsFolders(indexPath:)``.
    public func modelCandidates(indexPath: String) -> [String] {
        if modelIsPath { return [model] }
        return modelsFolders(indexPath: indexPath).map { ($0 as NSString).appendingPathComponent(model) }
    }

    /// The model folder: the first candidate holding `model.safetensors`, or the first candidate when none does (so
    /// that the error names where it was expected).
    public func modelDirectory(indexPath: String) -> String {
        let candidates = modelCandidates(indexPath: indexPath)
        return candidates.first { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("model.safetensors")) }
            ?? candidates[0]
    }
}

import Foundation
import SpotliteEmbeddings
import SpotliteStore

/// The store the embedding crash suite writes and its child embeds: notes with a title and a body.
enum EmbeddedNotes {
    static let model = StoreModel(entities: [
        EntityDescription(name: "Note", key: "id", keyType: .integer,
                          attributes: [AttributeDescription(name: "title", type: .text),
                                       AttributeDescription(name: "body", type: .text)]),
    ])

    static let fields = ["Note": ["title", "body"]]

    static func embedder(model: String, vectors: String, batchSize: Int) throws -> EmbeddingIndexer {
        EmbeddingIndexer(encoder: try SentenceEncoder(directory: URL(fileURLWithPath: model)),
                         vectors: try VectorIndex(path: vectors), fields: fields, batchSize: batchSize)
    }
}

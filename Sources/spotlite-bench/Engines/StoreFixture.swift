import Foundation
import Spotlite

/// A Spotlite store filled with the corpus the way `spotlite import` fills it: JSON Lines through the
/// ``RecordImporter``, 1,000 records per history transaction.
enum StoreFixture {
    /// Creates a store at `path` (replacing any) and imports the JSON Lines read from `handle`.
    @discardableResult
    static func importRecords(from handle: FileHandle, into path: String, configuration: SpotliteConfiguration,
                              entity: String, batchSize: Int = 1000) throws -> (SpotliteStore, RecordImporter.Summary) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let store = try SpotliteStore(path: path, model: configuration.storeModel)
        let importer = try RecordImporter(store: store, entity: entity, author: "importer", contextName: "bench",
                                          batchSize: batchSize)
        let summary = try importer.run(from: handle)
        return (store, summary)
    }

    /// Creates a store at `path` holding the corpus.
    @discardableResult
    static func make(corpus: Corpus, path: String, configuration: SpotliteConfiguration,
                     entity: String) throws -> SpotliteStore {
        guard let handle = FileHandle(forReadingAtPath: corpus.path) else {
            throw BenchError("cannot read the prepared corpus \(corpus.path); check that the work directory is writable")
        }
        defer { try? handle.close() }
        return try importRecords(from: handle, into: path, configuration: configuration, entity: entity).0
    }
}

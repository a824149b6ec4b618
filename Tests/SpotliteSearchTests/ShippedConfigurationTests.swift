import Foundation
import Spotlite
import SpotliteTestSupport
import Testing

/// The configuration files the repository ships (`config/spotlite.toml` and `config/examples/`), used as a user would
/// copy them: each must build a store, index it and answer searches, not only parse.
@Suite("Shipped configurations", .blockingWork)
struct ShippedConfigurationTests {
    static let files = ["config/spotlite.toml", "config/examples/minimal.toml", "config/examples/notes.toml",
                        "config/examples/cranfield.toml"]

    @Test("indexes a record of each entity and finds it by every text field", arguments: files)
    func indexesAndSearches(file: String) async throws {
        let directory = try ConfigurationTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try Self.configuration(file, in: directory)
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        try store.write(author: "app", context: "test") { db in
            for entity in configuration.entities {
                // The key may be a field too (a package's name): then it holds that field's value.
                let fields = entity.fields.filter { $0.name != entity.key }
                let key = entity.fields.first { $0.name == entity.key }.map { Self.sampleValue(for: $0, of: entity) }
                let columns = [entity.key] + fields.map(\.name)
                let values: [DatabaseValue] = [(key ?? "\(entity.name.lowercased())-1").databaseValue]
                    + fields.map { Self.sampleValue(for: $0, of: entity).databaseValue }
                let sql = "INSERT INTO \(entity.name.quotedDatabaseIdentifier) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
                try db.execute(sql: sql, arguments: StatementArguments(values))
            }
        }
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        let summary = try await indexer.update()
        #expect(summary.indexed == configuration.entities.count)

        let searcher = try IndexSearcher(configuration: configuration, store: store)
        for entity in configuration.entities {
            for field in entity.fields where field.type == .text {
                // Each text field holds a word of its own; a prefixed field is also searched through its prefix.
                let word = Self.word(for: field, of: entity)
                let plain = try searcher.search(SearchRequest(word))
                #expect(plain.hits.map { $0.entity } == [entity.name], "\(file): \(entity.name).\(field.name) by \(word)")
                if let prefix = field.prefix {
                    let prefixed = try searcher.search(SearchRequest("\(prefix):\(word)"))
                    #expect(prefixed.hits.map { $0.entity } == [entity.name], "\(file): \(prefix):\(word)")
                }
            }
        }
    }

    @Test("notes: text fields of two entities share the prefix title:")
    func sharedTextPrefix() async throws {
        let directory = try ConfigurationTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try Self.configuration("config/examples/notes.toml", in: directory)
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        try store.write(author: "app", context: "test") { db in
            try db.execute(sql: "INSERT INTO Note (id, title, body, folder) VALUES ('n1', 'Zebra crossing', 'stripes', 'home')")
            try db.execute(sql: "INSERT INTO Note (id, title, body, folder) VALUES ('n2', 'Lions', 'a zebra in the body only', 'home')")
            try db.execute(sql: "INSERT INTO Folder (id, name) VALUES ('f1', 'Zebra projects')")
        }
        _ = try await SpotliteIndexer(store: store, configuration: configuration).update()
        let searcher = try IndexSearcher(configuration: configuration, store: store)

        let titled = try searcher.search(SearchRequest("title:zebra"))
        #expect(Set(titled.hits.map { "\($0.entity)/\($0.key)" }) == ["Note/n1", "Folder/f1"])
        let anywhere = try searcher.search(SearchRequest("zebra"))
        #expect(Set(anywhere.hits.map { "\($0.entity)/\($0.key)" }) == ["Note/n1", "Note/n2", "Folder/f1"])
        let phrase = try searcher.search(SearchRequest("title:\"zebra projects\""))
        #expect(phrase.hits.map { "\($0.entity)/\($0.key)" } == ["Folder/f1"])
    }

    /// The file read as if it lay in `directory/config/` (paths like `../Index/store.sqlite` stay inside `directory`),
    /// with the folder of its store created as a user would.
    static func configuration(_ file: String, in directory: URL) throws -> SpotliteConfiguration {
        let configuration = try SpotliteConfiguration(contentsOf: ConfigurationTestSupport.repositoryFile(file),
                                                      baseDirectory: directory.appendingPathComponent("config").path)
        try FileManager.default.createDirectory(atPath: (configuration.storePath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        return configuration
    }

    /// A word no other field of the file holds: the field's name, letters only, after a fixed stem.
    static func word(for field: FieldConfiguration, of entity: EntityConfiguration) -> String {
        "zq" + (entity.name + field.name).lowercased().filter { ("a"..."z").contains($0) }
    }

    static func sampleValue(for field: FieldConfiguration, of entity: EntityConfiguration) -> String {
        switch field.type {
        case .text: word(for: field, of: entity)
        case .keyword: "k1"
        case .number: "7"
        case .date: "2026-01-02"
        case .stored: "kept"
        }
    }
}

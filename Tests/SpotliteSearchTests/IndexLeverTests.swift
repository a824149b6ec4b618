import Foundation
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// The index-build levers: positions per text field, and the fields that feed spelling correction.
@Suite("Index-build levers", .blockingWork)
struct IndexLeverTests {
    static func entity(descriptionOptions: String) -> String {
        IndexerSandbox.packageEntity.replacingOccurrences(
            of: "description = { type = \"text\" }", with: "description = { type = \"text\"\(descriptionOptions) }")
    }

    @Test("positions = false: the field's words are found, phrases over them are not; other fields keep phrases")
    func positionsOff() async throws {
        let sandbox = try IndexerSandbox(entities: Self.entity(descriptionOptions: ", positions = false"))
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        // "compatible version" is a phrase of vim's description only; "improved enhanced" of no field.
        #expect(try sandbox.keys("compatible") == ["vim"])
        #expect(try sandbox.keys("\"compatible version\"").isEmpty, "no positions, no phrase")
        #expect(try sandbox.keys("\"enhanced vi editor\"") == ["vim"], "the summary keeps its positions")

        let withPositions = try IndexerSandbox()
        try withPositions.write(SamplePackage.catalogue)
        try await withPositions.makeIndexer().update()
        #expect(try withPositions.keys("\"compatible version\"") == ["vim"])
    }

    @Test("spelling = [\"name\"]: corrections come from names only")
    func spellingFromSomeFields() async throws {
        let names = try IndexerSandbox(indexer: "batch_size = 100\nspelling = [\"name\"]")
        let every = try IndexerSandbox()
        for sandbox in [names, every] {
            try sandbox.write(SamplePackage.catalogue)
            try await sandbox.makeIndexer().update()
        }
        // "editr" is one letter from "editor", a word of summaries and descriptions, never of a name.
        let request = SearchRequest("editr", limit: 5)
        #expect(try every.makeSearcher().search(request).corrected == "editor")
        #expect(try names.makeSearcher().search(request).corrected == nil)
        #expect(try names.makeSearcher().search(SearchRequest("coreutls", limit: 5)).corrected == "coreutils")
    }

    @Test("by default every text field feeds spelling correction, the long descriptive ones included")
    func spellingDefault() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        try await sandbox.makeIndexer().update()
        // "highlighting" is a word of vim's description only: measured, corrections from the weighted fields only
        // restored 78% of misspelled Cranfield query words against 95% from every field, so the default keeps them.
        #expect(try sandbox.makeSearcher().search(SearchRequest("highlihgting", limit: 5)).corrected == "highlighting")
        #expect(try sandbox.makeSearcher().search(SearchRequest("editr", limit: 5)).corrected == "editor")
    }

    @Test("text fields start at aligned positions: phrases stay inside one field and still match after an earlier field grows")
    func alignedFieldPositions() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        #expect(try sandbox.keys("\"compatible version\"") == ["vim"])
        // vim's summary ends with "editor" and its description starts with "Vim": no phrase across two fields.
        #expect(try sandbox.keys("\"editor vim\"").isEmpty)
        #expect(try sandbox.keys("\"vi editor\"") == ["vim"])

        // The summary grows by a few words, then by more than a field's slack: every field's phrases still match.
        for words in [" plus added text", String(repeating: " plus much more text", count: 300)] {
            try sandbox.store.write(author: "app") { db in
                try db.execute(sql: "UPDATE Package SET summary = summary || ? WHERE name = 'vim'", arguments: [words])
            }
            #expect(try await indexer.update().indexed == 1)
            #expect(try sandbox.keys("\"compatible version\"") == ["vim"])
            #expect(try sandbox.keys("\"editor plus added\"") == ["vim"])
            #expect(try sandbox.keys("\"syntax highlighting\"") == ["vim"])
            #expect(try sandbox.keys("maintainer:\"debian vim maintainers\"") == ["vim"])
            #expect(try sandbox.keys("\"text vim\"").isEmpty, "the summary's last word and the description's first")
        }
    }

    @Test("the term generator starts the next field at the next aligned position, at least the gap away")
    func termPositionAlignment() throws {
        let generator = try XapianTermGenerator(language: nil, stopwords: .none)
        let document = try XapianDocument()
        try generator.startDocument(document)
        try generator.indexText("one two three")
        try generator.startNextField()
        try generator.indexText("four")
        try generator.alignTermPosition(gap: 100, alignment: 1)
        try generator.indexText("five")
        #expect(try document.termCount() == 5)
        #expect(try generator.termPosition() == XapianTermGenerator.fieldAlignment + 1 + 100 + 1)
    }

    @Test("the levers change the fingerprint (the next update rebuilds); writing the defaults out does not")
    func leversChangeTheFingerprint() throws {
        func fingerprint(_ top: String, indexer: String = "", entity: String = IndexerSandbox.packageEntity) throws -> String {
            let toml = IndexerSandbox.toml(directory: "/tmp/x", top: top, entities: entity, indexer: indexer, history: "")
            return try IndexSchema(configuration: SpotliteConfiguration(tomlString: toml, source: "t")).fingerprint
        }
        let plain = try fingerprint("")
        #expect(try fingerprint("", entity: Self.entity(descriptionOptions: ", positions = true")) == plain)
        #expect(try fingerprint("", entity: Self.entity(descriptionOptions: ", positions = false")) != plain)
        #expect(try fingerprint("", indexer: "spelling = [\"name\"]") != plain)
        #expect(try fingerprint("shards = 3") == plain, "the shard count has a rebuild reason of its own")
    }

    @Test("bad lever values are refused naming the key")
    func badValues() throws {
        func load(_ top: String = "", indexer: String = "", entity: String = IndexerSandbox.packageEntity) throws {
            let toml = IndexerSandbox.toml(directory: "/tmp/x", top: top, entities: entity, indexer: indexer, history: "")
            _ = try SpotliteConfiguration(tomlString: toml, source: "t")
        }
        let misplaced = #expect(throws: ConfigurationError.self) {
            try load(entity: IndexerSandbox.packageEntity.replacingOccurrences(
                of: "section     = { type = \"keyword\"", with: "section     = { type = \"keyword\", positions = false"))
        }
        #expect(misplaced?.keyPath == "entities.Package.fields.section.positions", "\(String(describing: misplaced))")
        #expect(misplaced?.kind == .invalidValue, "\(String(describing: misplaced))")
        let unknown = #expect(throws: ConfigurationError.self) { try load(indexer: "spelling = [\"section\"]") }
        #expect(unknown?.keyPath == "indexer.spelling" && unknown?.kind == .invalidValue, "\(String(describing: unknown))")
        #expect(unknown?.description.contains("\"section\", which is not a text field of any entity") == true)
        for value in ["0", "65", "\"two\""] {
            let shards = #expect(throws: ConfigurationError.self) { try load("shards = \(value)") }
            #expect(shards?.keyPath == "shards", "\(String(describing: shards))")
            #expect(shards?.kind == (value == "\"two\"" ? .wrongType : .invalidValue), "\(String(describing: shards))")
        }
    }
}

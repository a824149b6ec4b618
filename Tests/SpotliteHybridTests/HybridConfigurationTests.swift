import Foundation
import Spotlite
import SpotliteTestSupport
import Testing

@Suite("[embeddings] and embed in spotlite.toml", .blockingWork)
struct HybridConfigurationTests {
    private static func configuration(_ embeddings: String, embed: String = "embed = [\"title\"]", mode: String = "") throws -> SpotliteConfiguration {
        try SpotliteConfiguration(tomlString: """
            index = "Index/search"
            \(mode)
            \(embeddings)
            [entities.Doc]
            key = "id"
            \(embed)
            [entities.Doc.fields]
            title = { type = "text" }
            section = { type = "keyword" }
            """, source: "test.toml", baseDirectory: "/base")
    }

    private static func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test("A full [embeddings] table decodes, paths resolved against the file's folder; the defaults fill the rest")
    func decodes() throws {
        let full = try Self.configuration("""
            [embeddings]
            model = "models/mini"
            models = "lib/models"
            index = "vectors"
            author = "embedder"
            batch_size = 8
            """, mode: "[search]\nmode = \"hybrid\"")
        let embeddings = try #require(full.embeddings)
        #expect(embeddings.model == "/base/models/mini" && embeddings.modelsPath == "/base/lib/models")
        #expect(embeddings.indexPath == "/base/vectors" && embeddings.author == "embedder" && embeddings.batchSize == 8)
        #expect(full.searchMode == .hybrid && full.embeddedFields == ["Doc": ["title"]])
        #expect(embeddings.modelCandidates(indexPath: full.indexPath) == ["/base/models/mini"])

        let defaults = try #require(try Self.configuration("[embeddings]").embeddings)
        #expect(defaults.model == "all-MiniLM-L6-v2" && defaults.author == "spotlite.embedder" && defaults.batchSize == 64)
        #expect(defaults.vectorIndexPath(besides: "/base/Index/search") == "/base/Index/search.vectors")
        // A name is looked up beside the index first (where `make deps` installs it).
        #expect(defaults.modelCandidates(indexPath: "/base/Index/search").first == "/base/Index/models/all-MiniLM-L6-v2")
        #expect(try Self.configuration("", embed: "").embeddings == nil)
    }

    @Test("Bad embeddings settings are errors naming the file, the key and the way out")
    func errors() {
        let unknownField = Self.message { _ = try Self.configuration("[embeddings]", embed: "embed = [\"titel\"]") }
        #expect(unknownField.contains("test.toml") && unknownField.contains("entities.Doc.embed")
                && unknownField.contains("\"titel\"") && unknownField.contains("not a field of Doc") && unknownField.contains("\"title\""))
        let keywordField = Self.message { _ = try Self.configuration("[embeddings]", embed: "embed = [\"section\"]") }
        #expect(keywordField.contains("a keyword field: only text fields are embedded"))
        let noTable = Self.message { _ = try Self.configuration("") }
        #expect(noTable.contains("needs an [embeddings] table") && noTable.contains("all-MiniLM-L6-v2"))
        let nothingEmbedded = Self.message { _ = try Self.configuration("[embeddings]", embed: "") }
        #expect(nothingEmbedded.contains("no entity is embedded") && nothingEmbedded.contains("embed = [\"title\"]"))
        let unknownKey = Self.message { _ = try Self.configuration("[embeddings]\nmodle = \"x\"") }
        #expect(unknownKey.contains("embeddings.modle") && unknownKey.contains("batch_size"))
        let badBatch = Self.message { _ = try Self.configuration("[embeddings]\nbatch_size = 0") }
        #expect(badBatch.contains("embeddings.batch_size"))
        let sameAuthor = Self.message { _ = try Self.configuration("[embeddings]\nauthor = \"spotlite.indexer\"") }
        #expect(sameAuthor.contains("other than the indexer's"))
        let badMode = Self.message { _ = try Self.configuration("[embeddings]", mode: "[search]\nmode = \"fuzzy\"") }
        #expect(badMode.contains("search.mode") && badMode.contains("\"keyword\", \"semantic\" or \"hybrid\""))
        let modeWithout = Self.message { _ = try Self.configuration("", embed: "", mode: "[search]\nmode = \"semantic\"") }
        #expect(modeWithout.contains("semantic search needs embeddings") && modeWithout.contains("mode = \"keyword\""))
    }

    @Test("A missing model is an error naming its path and make deps")
    func missingModel() throws {
        let configuration = try Self.configuration("[embeddings]\nmodel = \"/nowhere/mini\"")
        do {
            _ = try SemanticIndex(configuration: configuration)
            Issue.record("a missing model was opened")
        } catch let error as EmbeddingError {
            #expect("\(error)".contains("/nowhere/mini") && "\(error)".contains("make deps"))
        }
    }
}

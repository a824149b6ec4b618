import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SpotliteTestSupport
import Testing

@Suite("spotlite search --mode and the vectors of index update, rebuild and status", .blockingWork)
struct HybridCommandTests {
    static let summaryKeys: Set<String> = ["token", "transactions", "changes", "indexed", "deleted", "rebuilt", "reason",
                                           "seconds", "unreadable_values", "unreadable_examples"]

    @Test("index update embeds the records beside the index, and --json adds an embeddings object with the summary's keys")
    func update() throws {
        let fixture = try HybridFixture()
        defer { fixture.remove() }
        let first = try fixture.run(["index", "update", "--json"])
        #expect(first.status == 0, "\(first.standardError)")
        let summary = try first.json()
        let vectors = try #require(summary["embeddings"] as? [String: Any])
        #expect(Set(summary.keys) == Self.summaryKeys.union(["embeddings"]))
        #expect(Set(vectors.keys) == Self.summaryKeys)
        #expect(vectors["rebuilt"] as? Bool == true && vectors["indexed"] as? Int == 5 && vectors["token"] as? Int == 1)
        #expect((vectors["reason"] as? String)?.contains("no vectors yet") == true)

        let status = try fixture.run(["index", "status", "--json"])
        let embeddings = try #require(try status.json()["embeddings"] as? [String: Any])
        #expect(embeddings["model"] as? String == "all-MiniLM-L6-v2" && embeddings["dimensions"] as? Int == 384)
        #expect(embeddings["vectors"] as? Int == 5 && embeddings["token"] as? Int == 1 && embeddings["records_cut"] as? Int == 0)
        let text = try fixture.run(["index", "status"]).standardOutput
        #expect(text.contains("Dimensions   384") && text.contains("spotlite.embedder"))

        let rebuilt = try fixture.run(["index", "rebuild", "--json"])
        let again = try #require(try rebuilt.json()["embeddings"] as? [String: Any])
        #expect(again["rebuilt"] as? Bool == true && again["reason"] as? String == "requested" && again["indexed"] as? Int == 5)
    }

    @Test("Each mode answers with its keys in --json: keyword_rank, semantic_rank (null when absent) and similarity")
    func modes() throws {
        let fixture = try HybridFixture()
        defer { fixture.remove() }
        #expect(try fixture.run(["index", "update"]).status == 0)

        let keyword = try fixture.run(["search", "bread", "--json"]).hits()
        #expect(keyword.map { $0["key"] as? String } == ["r4"])
        #expect(keyword[0]["keyword_rank"] as? Int == 1 && keyword[0]["semantic_rank"] is NSNull && keyword[0]["similarity"] == nil)

        let semantic = try fixture.run(["search", "--mode", "semantic", "baking", "loaves", "of", "bread", "--json", "--limit", "2"])
        let semanticHits = try semantic.hits()
        #expect(Set(semanticHits.compactMap { $0["key"] as? String }) == ["r1", "r4"])
        for (index, hit) in semanticHits.enumerated() {
            #expect(hit["semantic_rank"] as? Int == index + 1 && hit["keyword_rank"] is NSNull && hit["rank"] as? Int == index + 1)
            #expect(((hit["similarity"] as? Double) ?? 0) > 0.3)
            #expect(Set(hit.keys) == ["entity", "fields", "key", "keyword_rank", "percent", "rank", "score", "semantic_rank", "similarity", "snippet"])
        }

        let hybrid = try fixture.run(["search", "--mode", "hybrid", "bread", "--json"]).hits()
        #expect(hybrid.first?["key"] as? String == "r4")
        #expect(hybrid.first?["keyword_rank"] as? Int == 1 && hybrid.first?["semantic_rank"] as? Int != nil)
        let sourdough = try #require(hybrid.first { $0["key"] as? String == "r1" })
        #expect(sourdough["keyword_rank"] is NSNull && sourdough["semantic_rank"] as? Int != nil && sourdough["similarity"] as? Double != nil)

        // Offset and limit page through the fused list.
        let page = try fixture.run(["search", "--mode", "hybrid", "bread", "--json", "--offset", "1", "--limit", "2"]).hits()
        #expect(page.map { $0["key"] as? String } == hybrid.dropFirst().prefix(2).map { $0["key"] as? String })
        #expect(page.first?["rank"] as? Int == 2)

        // The configuration's [search] mode is the default; --mode overrides it.
        var text = try String(contentsOfFile: fixture.config, encoding: .utf8)
        text += "\n[search]\nmode = \"semantic\"\n"
        let semanticConfig = fixture.folder.appendingPathComponent("semantic.toml").path
        try text.write(toFile: semanticConfig, atomically: true, encoding: .utf8)
        let byDefault = try fixture.run(["search", "baking", "loaves", "--json", "--limit", "1"], config: semanticConfig).hits()
        #expect(byDefault.first?["similarity"] as? Double != nil)

        // --queries: one JSON line per query, in every mode.
        let queries = fixture.folder.appendingPathComponent("queries.txt").path
        try "bread\ncar repairs\n".write(toFile: queries, atomically: true, encoding: .utf8)
        let batch = try fixture.run(["search", "--mode", "hybrid", "--queries", queries, "--json", "--limit", "1"])
        let lines = batch.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last?.contains("\"key\":\"r2\"") == true || lines.last?.contains("\"key\":\"r5\"") == true)

        let human = try fixture.run(["search", "--mode", "hybrid", "bread"]).standardOutput
        #expect(human.contains("words #1") && human.contains("meaning #"))
    }

    @Test("--filter and --entity restrict the semantic list as they restrict the keyword one")
    func filters() throws {
        let fixture = try HybridFixture()
        defer { fixture.remove() }
        #expect(try fixture.run(["index", "update"]).status == 0)
        for mode in ["semantic", "hybrid"] {
            let hits = try fixture.run(["search", "--mode", mode, "baking", "loaves", "of", "bread", "--filter", "kind:car", "--json"]).hits()
            #expect(Set(hits.compactMap { $0["key"] as? String }) == ["r2", "r5"], "\(mode)")
            let soups = try fixture.run(["search", "--mode", mode, "bread", "--filter", "kind:soup", "--entity", "Recipe", "--json"]).hits()
            #expect(soups.compactMap { $0["key"] as? String } == ["r3"], "\(mode)")
        }
        let unknown = try fixture.run(["search", "--mode", "semantic", "bread", "--entity", "Nope"])
        #expect(unknown.status == 3 && unknown.standardError.contains("Nope"))
    }

    @Test("A record the sqlite3 shell inserts is found by its meaning after index update")
    func foundByMeaning() throws {
        let fixture = try HybridFixture()
        defer { fixture.remove() }
        #expect(try fixture.run(["index", "update"]).status == 0)
        let inserted = try fixture.sqlite("INSERT INTO Recipe (id, title, body, kind) VALUES ('r9', 'Sourdough boule', 'Levain, a long cold fermentation, scored and steamed in a hot Dutch oven.', 'bread')")
        #expect(inserted.status == 0, "\(inserted.standardError)")
        let update = try fixture.run(["index", "update", "--json"])
        let vectors = try #require(try update.json()["embeddings"] as? [String: Any])
        #expect(vectors["indexed"] as? Int == 1 && vectors["rebuilt"] as? Bool == false)
        let hits = try fixture.run(["search", "--mode", "semantic", "baking loaves of bread", "--json", "--limit", "3"]).hits()
        #expect(hits.compactMap { $0["key"] as? String }.contains("r9"))
        #expect(hits.first.map { ["r9", "r1", "r4"].contains($0["key"] as? String ?? "") } == true)
        // Words alone do not find it: it never says baking, loaves or bread.
        let keyword = try fixture.run(["search", "baking loaves", "--json"])
        #expect(try keyword.hits().allSatisfy { $0["key"] as? String != "r9" })
    }

    @Test("Without [embeddings], with a missing model, before any vectors: errors saying what to do")
    func errors() throws {
        let plain = try HybridFixture(withEmbeddings: false)
        defer { plain.remove() }
        #expect(try plain.run(["index", "update"]).status == 0)
        let notConfigured = try plain.run(["search", "--mode", "semantic", "bread"])
        #expect(notConfigured.status == 3 && notConfigured.standardError.contains("add an [embeddings] table"))

        let missing = try HybridFixture(embeddings: "[embeddings]\nmodel = \"models/none\"\n")
        defer { missing.remove() }
        let update = try missing.run(["index", "update"])
        #expect(update.status != 0)
        #expect(update.standardError.contains(missing.folder.appendingPathComponent("models/none").path) && update.standardError.contains("make deps"))
        let search = try missing.run(["search", "--mode", "hybrid", "bread"])
        #expect(search.status == 3 && search.standardError.contains("make deps"))

        let fresh = try HybridFixture()
        defer { fresh.remove() }
        let early = try fresh.run(["search", "--mode", "semantic", "bread"])
        #expect(early.status == 3 && early.standardError.contains("run `spotlite index update`"), "\(early.standardError)")
        #expect(try fresh.run(["index", "update"]).status == 0)
        let sorted = try fresh.run(["search", "--mode", "hybrid", "bread", "--sort", "title"])
        #expect(sorted.status == 3 && sorted.standardError.contains("--mode keyword"))
    }

    @Test("Vectors made by another model are rebuilt by index update, which says why; searches refuse them meanwhile")
    func anotherModel() throws {
        let fixture = try HybridFixture()
        defer { fixture.remove() }
        #expect(try fixture.run(["index", "update"]).status == 0)
        let vectors = fixture.folder.appendingPathComponent("search.vectors/vectors.sqlite").path
        let changed = try HybridFixture.run("/usr/bin/sqlite3", [vectors, "UPDATE meta SET value = 'bge-small-fingerprint' WHERE name = 'model_fingerprint'; UPDATE meta SET value = 'bge-small' WHERE name = 'model_name'"])
        #expect(changed.status == 0, "\(changed.standardError)")
        let refused = try fixture.run(["search", "--mode", "semantic", "bread"])
        #expect(refused.status == 3 && refused.standardError.contains("bge-small") && refused.standardError.contains("spotlite index update"))
        let update = try fixture.run(["index", "update"])
        #expect(update.status == 0)
        #expect(update.standardOutput.contains("Rebuilt the vectors") && update.standardOutput.contains("another model (bge-small)"), "\(update.standardOutput)")
        #expect(try fixture.run(["search", "--mode", "semantic", "bread", "--json"]).status == 0)
    }

    @Test("index watch keeps the vectors current: a record the sqlite3 shell inserts is soon found by its meaning")
    func watch() throws {
        let fixture = try HybridFixture()
        defer { fixture.remove() }
        #expect(try fixture.run(["index", "update"]).status == 0)
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: try HybridFixture.spotlite())
        watcher.arguments = ["index", "watch", "--config", fixture.config]
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer {
            if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) }
            watcher.waitUntilExit()
        }
        let inserted = try fixture.sqlite("INSERT INTO Recipe (id, title, body, kind) VALUES ('r9', 'Sourdough boule', 'Levain, a long cold fermentation, scored and steamed in a hot Dutch oven.', 'bread')")
        #expect(inserted.status == 0, "\(inserted.standardError)")
        let deadline = Date().addingTimeInterval(60)
        var found = false
        while !found && Date() < deadline {
            let hits = try fixture.run(["search", "--mode", "semantic", "baking loaves of bread", "--json", "--limit", "3"])
            found = (try? hits.hits())?.contains { $0["key"] as? String == "r9" } == true
            if !found { usleep(200_000) }
        }
        #expect(found, "the watcher embedded the new record within 60 s")
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }

    @Test("spotlite demo shows a semantic and a hybrid search with the model make deps installs")
    func demo() throws {
        _ = try HybridModel.require()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-hybrid-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // From the package root, as `make demo` runs it: the model is found in Index/models.
        let demo = try HybridFixture.run(try HybridFixture.spotlite(), ["demo", "--sample", "--directory", directory, "--color", "never"],
                                         directory: HybridModel.packageRoot.path)
        #expect(demo.status == 0, "\(demo.standardError)")
        let output = demo.standardOutput
        #expect(output.contains("$ spotlite search --mode semantic \"draw and paint pictures\""))
        #expect(output.contains("$ spotlite search --mode hybrid \"play music files\""))
        let semantic = try #require(output.components(separatedBy: "--mode semantic").last?.split(separator: "\n").dropFirst().first)
        #expect(semantic.hasPrefix("1. inkscape") && semantic.contains("similarity"), "\(semantic)")
        #expect(output.contains("words #1 · meaning #"))
    }
}

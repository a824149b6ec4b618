import ArgumentParser
import Foundation
import GRDB
import Spotlite

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a demonstration store and index under Index/demo/ from this machine's package catalog.",
        discussion: """
        Reads the Debian package catalog (apt-cache dumpavail, with long descriptions from apt's Translation-en \
        lists when present; a small built-in sample otherwise), imports it as author `importer`, edits a few records \
        as author `editor`, deletes some with the sqlite3 shell (a writer that knows nothing of Spotlite), updates \
        the index from the history, runs a few searches (by words, and by meaning over the packages of a few sections when the embedding \
        model is installed) and shows the index status.

        EXAMPLES
          spotlite demo
          spotlite demo --sample --directory /tmp/spotlite-demo
        """
    )

    @Option(help: ArgumentHelp("Where to build the demo.", valueName: "directory"))
    var directory = "Index/demo"

    @Flag(help: "Use the built-in sample catalog even when apt's catalog is available.")
    var sample = false

    @Flag(help: "Show progress bars on stderr even when it is not a terminal.")
    var progress = false

    @Option(help: ArgumentHelp("Bold and faint text on stdout: auto (on a terminal, unless NO_COLOR is set), always or never.", valueName: "when"))
    var color: ColorChoice = .auto

    func run() async throws {
        let started = Date()
        let fileManager = FileManager.default
        try? fileManager.removeItem(atPath: directory)
        do {
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(message: "cannot create \(directory): \(error.localizedDescription); run the demo from a writable directory or pass --directory")
        }
        let configurationPath = directory + "/spotlite.toml"
        let toml = Self.configurationText(directory: directory)
        try Data(toml.utf8).write(to: URL(fileURLWithPath: configurationPath))
        // Like every configuration file, the demo's names its store and index relative to its own folder.
        let configuration = try SpotliteConfiguration(tomlString: toml, source: configurationPath,
                                              baseDirectory: SpotliteConfiguration.resolvePath(directory, against: fileManager.currentDirectoryPath))

        section("1. The catalog")
        let catalogStart = Date()
        let catalog = sample ? nil : DebianCatalog.load()
        let records = catalog?.records ?? SampleCatalog.records
        if let catalog {
            print("Read \(Terminal.number(records.count)) packages from \(catalog.source) (\(Terminal.number(catalog.longDescriptions)) with long descriptions) in \(Terminal.duration(Date().timeIntervalSince(catalogStart))).")
        } else {
            print("Using the built-in sample catalog (\(records.count) packages)\(sample ? "" : ": apt's catalog is not available here").")
        }
        let jsonlPath = directory + "/catalog.jsonl"
        var lines = Data()
        for record in records {
            lines += try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) + Data("\n".utf8)
        }
        try lines.write(to: URL(fileURLWithPath: jsonlPath))

        section("2. Import as author `importer`")
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        let importer = try RecordImporter(store: store, entity: "Package", author: "importer", contextName: "import", batchSize: 1000)
        let bar = ProgressBar(label: "Importing", unit: "bytes", enabled: progress || Terminal.stderrIsTerminal)
        let importStart = Date()
        let summary = try importer.run(from: FileHandle(forReadingAtPath: jsonlPath)!, totalBytes: lines.count) {
            bar.update(done: $0.bytes, total: $0.totalBytes)
        }
        bar.finish()
        print("Imported \(Terminal.number(summary.inserted)) packages in \(Terminal.duration(Date().timeIntervalSince(importStart))): \(summary.transactions) transactions (one per 1,000 lines), up to token \(summary.token.map { "\($0)" } ?? "-").")

        section("3. A second author edits through the API")
        let edited = try store.write(author: "editor", context: "curation") { db -> [String] in
            let names = try String.fetchAll(db, sql: "SELECT name FROM Package WHERE section = 'utils' ORDER BY name LIMIT 3")
            for name in names {
                try db.execute(sql: "UPDATE Package SET summary = summary || ' (reviewed by the editor)' WHERE name = ?", arguments: [name])
            }
            return names
        }
        print("editor/curation updated the summary of \(edited.joined(separator: ", ")) in one transaction (token \(try store.currentToken().map { "\($0)" } ?? "-")).")

        section("4. A plain-SQL writer deletes records (the sqlite3 shell)")
        let shell = "/usr/bin/sqlite3"
        if fileManager.isExecutableFile(atPath: shell) {
            let sql = "DELETE FROM Package WHERE name LIKE 'xfonts-%';"
            let status = Self.runProcess(shell, [configuration.storePath, sql])
            guard status == 0 else { throw CommandFailure(message: "the sqlite3 shell failed (status \(status)) deleting from the demo store") }
            print("$ sqlite3 \(directory)/store.sqlite \"\(sql)\"")
            _ = try store.sealPendingChanges()
            let foreign = try store.fetchHistory(HistoryRequest.after(nil).including(authors: [nil]))
            if let transaction = foreign.last {
                print("Recorded without an author as token \(transaction.token): \(transaction.changes.count) deletes, each with a tombstone (name, summary, version).")
            }
        } else {
            print("The sqlite3 shell is not installed (apt-get install sqlite3); skipping this step.")
        }

        section("5. spotlite index update")
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        let indexBar = ProgressBar(label: "Indexing", unit: "records", enabled: progress || Terminal.stderrIsTerminal)
        await indexer.setProgressHandler { indexBar.update(done: $0.done, total: $0.total) }
        let update = try await indexer.update()
        indexBar.finish()
        IndexCommand.printSummary(update, indexPath: directory + "/search")
        let again = try await indexer.update()
        print("A second update finds nothing to do: \(again.transactions) transactions, token \(again.token.map { "\($0)" } ?? "0").")

        let searcher = try IndexSearcher(configuration: configuration, store: store)
        let highlight = Terminal.usesColor
        func search(_ title: String, _ request: SearchRequest) throws {
            var request = request
            request.snippet = SnippetOptions(highlightStart: highlight ? Terminal.bold : "", highlightEnd: highlight ? Terminal.reset : "", length: 120)
            section(title)
            let results = try searcher.search(request)
            if let corrected = results.corrected { print("No results for \"\(request.query)\"; showing results for \(Terminal.strong(corrected)).") }
            for hit in results.hits {
                print("\(hit.rank). \(Terminal.strong(hit.key.description))  \(hit.fields["section"]?.description ?? "")  \(hit.fields["summary"]?.description ?? "")")
                if !hit.snippet.isEmpty { print("   " + hit.snippet.replacingOccurrences(of: "\n", with: " ")) }
            }
            for (field, counts) in results.facets.sorted(by: { $0.key < $1.key }) {
                print("\(field): " + counts.prefix(8).map { "\($0.value) (\(Terminal.number($0.count)))" }.joined(separator: ", "))
            }
            print(Terminal.faint("About \(Terminal.number(results.total)) results in \(Terminal.duration(results.seconds))."))
        }
        try search("6. spotlite search \"full text search engine\"", SearchRequest("full text search engine", limit: 5))
        try search("7. With a filter: spotlite search database --filter section:database",
                   SearchRequest("database", filters: [SearchFilter(field: "section", value: "database")], limit: 3))
        try search("8. With a facet: spotlite search \"image editor\" --facet section",
                   SearchRequest("image editor", limit: 3, facets: ["section"]))
        try search("9. Misspelled: spotlite search \"serch engnie\"", SearchRequest("serch engnie", limit: 3))

        try await searchByMeaning(store: store, searcher: searcher, configuration: configuration)

        section("11. spotlite index status")
        print(IndexCommand.render(try await indexer.status()))

        print("")
        print("Done in \(Terminal.duration(Date().timeIntervalSince(started))). Try it yourself:")
        let program = CommandLine.arguments.first.map { $0.contains("/") ? $0 : "spotlite" } ?? "spotlite"
        print("  \(program) search --config \(configurationPath) \"version control\" --facet section")
        print("  \(program) history list --config \(configurationPath) --limit 3")
    }

    /// The sections whose packages the demo embeds: enough to show search by meaning, few enough to take seconds
    /// (the whole catalogue takes minutes: `[embeddings]` in a configuration and `spotlite index update`).
    static let embeddedSections = ["sound", "graphics", "video", "editors", "database", "mail", "games", "utils"]

    /// Embeds the name and summary of the packages of ``embeddedSections`` with the model `make deps` installs,
    /// then runs a semantic and a hybrid search; says how to get the model when it is not there.
    private func searchByMeaning(store: SpotliteStore, searcher: IndexSearcher, configuration: SpotliteConfiguration) async throws {
        section("10. By meaning: spotlite search --mode semantic|hybrid")
        let cwd = FileManager.default.currentDirectoryPath
        let settings = EmbeddingsConfiguration(modelsPath: SpotliteConfiguration.resolvePath("Index/models", against: cwd))
        let modelPath = settings.modelDirectory(indexPath: configuration.indexPath)
        let encoder: SentenceEncoder
        do {
            encoder = try SentenceEncoder(directory: URL(fileURLWithPath: modelPath))
        } catch {
            print("No embedding model at \(modelPath) (`make deps` installs all-MiniLM-L6-v2); skipping this step.")
            return
        }
        let embedStart = Date()
        let marks = Self.embeddedSections.map { _ in "?" }.joined(separator: ", ")
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT name, summary FROM Package WHERE section IN (\(marks)) ORDER BY name LIMIT 4000",
                             arguments: StatementArguments(Self.embeddedSections))
        }
        let vectors = try VectorIndex(path: directory + "/search.vectors")
        var upserts: [VectorChanges.Upsert] = []
        var start = 0
        while start < rows.count {
            let batch = Array(rows[start..<min(start + 64, rows.count)])
            let texts = batch.map { "\($0["name"] as String? ?? "")\n\($0["summary"] as String? ?? "")" }
            for (row, vector) in zip(batch, try encoder.vectors(for: texts)) {
                upserts.append(.init(record: RecordID(entity: "Package", key: (row["name"] as String? ?? "").databaseValue), vector: vector))
            }
            start += 64
        }
        try vectors.commit(VectorChanges(upserts: upserts), cursor: nil, model: (encoder.fingerprint, encoder.directory.lastPathComponent))
        print("Embedded the name and summary of \(Terminal.number(upserts.count)) packages (sections \(Self.embeddedSections.joined(separator: ", "))) with \(encoder.directory.lastPathComponent) in \(Terminal.duration(Date().timeIntervalSince(embedStart))).")
        let hybrid = HybridSearcher(keyword: searcher, semantic: SemanticIndex(encoder: encoder, vectors: vectors,
                                                                               fields: ["Package": ["name", "summary"]]))
        for (mode, query) in [(SearchMode.semantic, "draw and paint pictures"), (.hybrid, "play music files")] {
            print("")
            print(Terminal.strong("$ spotlite search --mode \(mode.rawValue) \"\(query)\" --limit 5"))
            let results = try hybrid.search(SearchRequest(query, limit: 5, snippet: SnippetOptions(length: 0)), mode: mode)
            for hit in results.hits {
                print("\(hit.rank). \(Terminal.strong(hit.key.description))  \(hit.fields["summary"]?.description ?? "")" + Terminal.faint(SearchCommand.origin(of: hit, mode: mode)))
            }
        }
    }

    private func section(_ title: String) {
        print("")
        print(Terminal.strong("== \(title)"))
    }

    static func configurationText(directory: String) -> String {
        """
        # Written by `spotlite demo`.
        store = "store.sqlite"
        index = "search"

        [history]
        authors = ["importer", "editor"]
        batch_authors = ["importer"]
        maximum_duration = "7d"

        [indexer]
        language = "en"
        stopwords = "en"
        batch_size = 1000

        [entities.Package]
        key = "name"
        preserve_on_delete = ["name", "summary", "version"]

        [entities.Package.fields]
        name        = { type = "text", weight = 4, prefix = "name", store = true }
        summary     = { type = "text", weight = 2, store = true }
        description = { type = "text" }
        maintainer  = { type = "text", prefix = "maintainer" }
        section     = { type = "keyword", facet = true, store = true }
        tags        = { type = "keyword", separator = " " }
        version     = { type = "stored" }
        homepage    = { type = "stored" }

        """
    }

    static func runProcess(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

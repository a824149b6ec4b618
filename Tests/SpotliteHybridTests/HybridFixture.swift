import Foundation
import SpotliteTooling
import Testing

/// The default model as `make deps` installs it (`$SPOTLITE_MODEL_DIR`, or Index/models/all-MiniLM-L6-v2 in the
/// package), as the embedding tests find it. Tests that need it fail (never skip) when it is absent.
enum HybridModel {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var directory: String {
        if let path = ProcessInfo.processInfo.environment["SPOTLITE_MODEL_DIR"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent("Index/models/all-MiniLM-L6-v2").path
    }

    static func require() throws -> String {
        try #require(FileManager.default.fileExists(atPath: directory + "/model.safetensors"),
                     "The embedding model is not installed at \(directory): run `make deps`, or set SPOTLITE_MODEL_DIR")
        return directory
    }
}

/// A folder with a configuration embedding recipes, a store imported from JSON Lines, and the built `spotlite`
/// command run against them.
struct HybridFixture {
    let folder: URL
    var config: String { folder.appendingPathComponent("spotlite.toml").path }
    var store: String { folder.appendingPathComponent("store.sqlite").path }

    static let recipes = """
        {"id": "r1", "title": "Country sourdough", "body": "A starter, flour, water and salt, proofed overnight and shaped into a loaf.", "kind": "bread"}
        {"id": "r2", "title": "Brake pads", "body": "Replacing the pads and discs of a car's front brakes.", "kind": "car"}
        {"id": "r3", "title": "Gazpacho", "body": "A cold tomato and cucumber soup from Andalusia.", "kind": "soup"}
        {"id": "r4", "title": "Rye bread", "body": "Dark rye flour, caraway and a long slow bake.", "kind": "bread"}
        {"id": "r5", "title": "Oil change", "body": "Draining the engine oil and fitting a new filter.", "kind": "car"}

        """

    /// `embeddings`: the `[embeddings]` table and the entity's `embed` line, or nothing (keyword search only).
    init(embeddings: String? = nil, withEmbeddings: Bool = true) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-hybrid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = try HybridModel.require()
        let table = embeddings ?? "[embeddings]\nmodel = \"\(model)\"\nbatch_size = 2\n"
        let text = """
            store = "store.sqlite"
            index = "search"

            \(withEmbeddings ? table : "")
            [entities.Recipe]
            key = "id"
            \(withEmbeddings ? "embed = [\"title\", \"body\"]" : "")

            [entities.Recipe.fields]
            title = { type = "text", store = true }
            body = { type = "text" }
            kind = { type = "keyword", facet = true, store = true }

            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        try Self.recipes.write(to: folder.appendingPathComponent("recipes.jsonl"), atomically: true, encoding: .utf8)
        let imported = try run(["import", folder.appendingPathComponent("recipes.jsonl").path, "--entity", "Recipe"])
        try #require(imported.status == 0, "import failed: \(imported.standardError)")
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    struct Run {
        var status: Int32
        var standardOutput: String
        var standardError: String

        /// The standard output as one JSON object.
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(standardOutput.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(standardOutput)")
        }

        /// The hits of `search --json`.
        func hits() throws -> [[String: Any]] { try #require(json()["hits"] as? [[String: Any]]) }
    }

    /// Runs `spotlite ARGUMENTS --config CONFIG`.
    func run(_ arguments: [String], config: String? = nil) throws -> Run {
        try Self.run(Self.spotlite(), arguments + ["--config", config ?? self.config])
    }

    /// Runs the `sqlite3` shell on the store.
    func sqlite(_ sql: String) throws -> Run {
        try Self.run("/usr/bin/sqlite3", [store, sql])
    }

    static func run(_ executable: String, _ arguments: [String], directory: String? = nil) throws -> Run {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-hybrid-\(UUID().uuidString).err").path
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let child = try ChildProcess(executable: executable, arguments: arguments, directory: directory, output: .pipe,
                                     error: .file(errors))
        let outcome = child.outcome()
        let complaints = (try? Data(contentsOf: URL(fileURLWithPath: errors))) ?? Data()
        return Run(status: outcome.status, standardOutput: String(decoding: outcome.standardOutput, as: UTF8.self),
                   standardError: String(decoding: complaints, as: UTF8.self))
    }

    /// The `spotlite` command built beside this test bundle (`swift build --build-tests` builds both).
    static func spotlite() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory.appendingPathComponent("spotlite").path,
                          directory.deletingLastPathComponent().appendingPathComponent("spotlite").path,
                          FileManager.default.currentDirectoryPath + "/.build/debug/spotlite"]
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "the spotlite executable was not found beside the tests (\(candidates)); run `swift build --build-tests` first")
    }

    static func keys(of hit: [String: Any]) -> Set<String> { Set(hit.keys) }
}

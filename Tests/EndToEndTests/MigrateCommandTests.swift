import Foundation
import SpotliteTestSupport
import Testing

@Suite("spotlite migrate", .serialized, .blockingWork)
struct MigrateCommandTests {
    static let version1 = """
        store = "../Index/store.sqlite"
        index = "../Index/search"

        [model]
        version = "v1"

        [entities.Track]
        key = "id"

        [entities.Track.fields]
        id = { type = "number" }
        title = { type = "text", store = true }
        json = { type = "stored" }
        artistName = { type = "text", prefix = "artist" }
        """

    static let version2 = """
        store = "../Index/store.sqlite"
        index = "../Index/search"

        [model]
        version = "v2"

        [model.versions.v1.entities.Track]
        key = "id"
        columns = { id = "number", title = "text", json = "stored", artistName = "text" }

        [[model.stages]]
        from = "v1"
        to = "v2"
        did_migrate = "v1-v2.sql"

        [entities.Track]
        key = "id"

        [entities.Track.fields]
        id = { type = "number" }
        title = { type = "text", store = true }
        json = { type = "stored" }

        [entities.Artist]
        key = "id"

        [entities.Artist.fields]
        name = { type = "text", store = true }

        [entities.TrackArtist]
        key = "id"

        [entities.TrackArtist.fields]
        id = { type = "number" }
        track = { type = "number" }
        artist = { type = "keyword" }
        """

    static let decodeArtists = """
        INSERT INTO Artist (id, name)
            SELECT json_extract(a.value, '$.id'), json_extract(a.value, '$.name') FROM Track, json_each(Track.json) AS a
            WHERE true ON CONFLICT(id) DO NOTHING;
        INSERT INTO TrackArtist (track, artist)
            SELECT Track.id, json_extract(a.value, '$.id') FROM Track, json_each(Track.json) AS a;
        """

    /// A v1 store with two tracks and an index, and the v2 configuration in place. v2 keeps `json`, which its
    /// did_migrate file reads after the schema change.
    private static func makeVersion1Library() throws -> CommandLineTool {
        let tool = try CommandLineTool(configuration: version1)
        let created = try tool.run(["migrate", "run", "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let inserted = try tool.sqlite("""
            INSERT INTO Track VALUES (1, 'Get Lucky', '[{"id":"dp","name":"Daft Punk"},{"id":"pw","name":"Pharrell Williams"}]', 'Daft Punk');
            INSERT INTO Track VALUES (2, 'Happy', '[{"id":"pw","name":"Pharrell Williams"}]', 'Pharrell');
            """)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(try tool.run(["index", "update"]).status == 0)
        try tool.write(version2, to: "config/spotlite.toml")
        try tool.write(decodeArtists, to: "config/v1-v2.sql")
        return tool
    }

    @Test func statusRunAndTheIndexFollow() throws {
        let tool = try Self.makeVersion1Library()
        defer { tool.remove() }

        // Other commands refuse the old store and say what to do.
        let refused = try tool.run(["index", "update"])
        #expect(refused.status == 3, "3: a problem with what was given (see docs/cli.md, exit statuses)")
        #expect(refused.stderr.contains("is at model version v1 but the configuration's newest is v2"))
        #expect(refused.stderr.contains("spotlite migrate run"))

        let status = try #require(try tool.run(["migrate", "status", "--json"]).json() as? [String: Any])
        #expect(status["up_to_date"] as? Bool == false)
        #expect((status["store_version"] as? [String: Any])?["name"] as? String == "v1")
        let pending = try #require(status["pending"] as? [[String: Any]])
        #expect(pending.map { $0["kind"] as? String } == ["custom"])
        #expect(pending.first?["changes"] as? [String] == [
            "drop column Track.artistName", "create table Artist", "create table TrackArtist"])
        let text = try tool.run(["migrate", "status"])
        #expect(text.stdout.contains("1 pending stage"))
        #expect(text.stdout.contains("v1 → v2 (custom): drop column Track.artistName"))

        let run = try tool.run(["migrate", "run"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("migrated v1 → v2 (custom, history token"))
        #expect(try tool.sqlite("SELECT count(*) FROM Artist; SELECT count(*) FROM TrackArtist;").stdout == "2\n3\n")

        let again = try #require(try tool.run(["migrate", "run", "--json"]).json() as? [String: Any])
        #expect((again["migrations"] as? [Any])?.isEmpty == true)

        let update = try #require(try tool.run(["index", "update", "--json"]).json() as? [String: Any])
        #expect(update["rebuilt"] as? Bool == true)
        #expect((update["reason"] as? String)?.contains("migrated to another model version") == true)
        let found = try #require(try tool.run(["search", "Pharrell", "--json"]).json() as? [String: Any])
        #expect((found["hits"] as? [[String: Any]])?.map { $0["entity"] as? String } == ["Artist"])

        // Once migrated, the stage's file is no longer needed.
        try FileManager.default.removeItem(atPath: tool.path("config/v1-v2.sql"))
        #expect(try tool.run(["index", "update"]).status == 0)
        #expect(try tool.run(["migrate", "status"]).stdout.contains("Up to date"))
        let history = try #require(try tool.run(["history", "list", "--author", "spotlite.migration", "--json"]).json() as? [[String: Any]])
        #expect(history.count == 1)
        #expect(history.first?["context"] as? String == "migration v1 → v2")
        #expect((history.first?["changes"] as? [Any])?.count == 5)
    }

    @Test func aFailingStageIsReportedAndTheStoreStaysAtItsVersion() throws {
        let tool = try Self.makeVersion1Library()
        defer { tool.remove() }
        try FileManager.default.removeItem(atPath: tool.path("config/v1-v2.sql"))
        #expect(try tool.run(["migrate", "status"]).stdout.contains("1 pending stage"), "status needs no SQL file")
        let missing = try tool.run(["migrate", "run"])
        #expect(missing.status == 3, "3: a problem with what was given (see docs/cli.md, exit statuses)")
        #expect(missing.stderr.contains("model.stages[1].did_migrate: cannot read the migration file"), "\(missing.stderr)")

        try tool.write("INSERT INTO Artist (id, name) VALUES ('x', 'X');\nINSERT INTO Missing VALUES (1);", to: "config/v1-v2.sql")
        let failed = try tool.run(["migrate", "run"])
        #expect(failed.status == 3, "3: a problem with what was given (see docs/cli.md, exit statuses)")
        #expect(failed.stderr.contains("migration stage v1 → v2 failed in didMigrate and was rolled back"))
        #expect(failed.stderr.contains("Missing"))
        let status = try #require(try tool.run(["migrate", "status", "--json"]).json() as? [String: Any])
        #expect((status["store_version"] as? [String: Any])?["name"] as? String == "v1")
        #expect(try tool.sqlite("SELECT name FROM sqlite_master WHERE name = 'Artist';").stdout.isEmpty)

        try tool.write(Self.decodeArtists, to: "config/v1-v2.sql")
        #expect(try tool.run(["migrate", "run"]).status == 0)
        #expect(try tool.sqlite("SELECT count(*) FROM Artist;").stdout == "2\n")
    }

    @Test func configurationsWithoutModelAndBrokenModelsAreExplained() throws {
        let tool = try CommandLineTool()
        defer { tool.remove() }
        let missing = try tool.run(["migrate", "status"])
        #expect(missing.status == 3, "3: a problem with what was given (see docs/cli.md, exit statuses)")
        #expect(missing.stderr.contains("has no [model] table"))
        #expect(missing.stderr.contains("docs/migrations.md"))

        try tool.write(Self.version2.replacingOccurrences(of: "from = \"v1\"", with: "from = \"v0\""), to: "config/spotlite.toml")
        let broken = try tool.run(["migrate", "run"])
        #expect(broken.status == 3, "3: a problem with what was given (see docs/cli.md, exit statuses)")
        #expect(broken.stderr.contains("model.stages[1].from: unknown version \"v0\""), "\(broken.stderr)")
    }

    @Test func anUnversionedStoreIsRecognisedOrNamed() throws {
        let tool = try CommandLineTool(configuration: Self.version2)
        defer { tool.remove() }
        try tool.write(Self.decodeArtists, to: "config/v1-v2.sql")
        try FileManager.default.createDirectory(atPath: tool.path("Index"), withIntermediateDirectories: true)
        #expect(try tool.sqlite("CREATE TABLE Track (id INTEGER PRIMARY KEY, title TEXT, json TEXT, artistName TEXT, extra TEXT);").status == 0)
        let unknown = try tool.run(["migrate", "status"])
        #expect(unknown.status == 3, "3: a problem with what was given (see docs/cli.md, exit statuses)")
        #expect(unknown.stderr.contains("--assume-version"))
        let status = try tool.run(["migrate", "status", "--assume-version", "v1"])
        #expect(status.stdout.contains("found from its tables (not recorded yet)"), "\(status.stdout)\(status.stderr)")
        let run = try tool.run(["migrate", "run", "--assume-version", "v1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("recorded as v1"))
    }
}

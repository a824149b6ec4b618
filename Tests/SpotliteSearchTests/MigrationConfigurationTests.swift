import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
@testable import SpotliteStore

/// The music library of ``MusicLibrary`` as configuration-file users write it: versions in `[model]`, the artist
/// decoding of stage 1 as a SQL file.
enum MusicLibraryFile {
    static let versions = """
        [model.versions.v1.entities.Track]
        key = "id"
        columns = { id = "number", title = "text", imageURL = "text", lastPlayedAt = "date", json = "text", artistName = "text" }

        [model.versions.v2.entities.Track]
        key = "id"
        columns = { id = "number", title = "text", imageURL = "text", lastPlayedAt = "date", json = "text", artistName = "text" }

        [model.versions.v2.entities.Artist]
        key = "id"
        columns = { id = "text", name = "text", imageURL = "text" }

        [model.versions.v2.entities.TrackArtist]
        key = "id"
        columns = { id = "number", track = "number", artist = "text" }
        """

    static let stages = """
        [[model.stages]]
        from = "v1"
        to = "v2"
        did_migrate = "migrations/v1-v2.sql"

        [[model.stages]]
        from = "v2"
        to = "v3"
        """

    static let entities = """
        [entities.Track]
        key = "id"
        preserve_on_delete = ["title"]

        [entities.Track.fields]
        id = { type = "number" }
        title = { type = "text", store = true }
        imageURL = { type = "text" }
        lastPlayedAt = { type = "date" }

        [entities.Artist]
        key = "id"

        [entities.Artist.fields]
        name = { type = "text", store = true }
        imageURL = { type = "text" }

        [entities.TrackArtist]
        key = "id"

        [entities.TrackArtist.fields]
        id = { type = "number" }
        track = { type = "number" }
        artist = { type = "text" }
        """

    static let version1Entities = """
        [entities.Track]
        key = "id"

        [entities.Track.fields]
        id = { type = "number" }
        title = { type = "text", store = true }
        imageURL = { type = "text" }
        lastPlayedAt = { type = "date" }
        json = { type = "text" }
        artistName = { type = "text" }
        """

    /// SQLite's JSON functions do the decoding; `WHERE true` lets SQLite parse the upsert after a join.
    static let decodeArtistsSQL = """
        CREATE UNIQUE INDEX TrackArtist_link ON TrackArtist(track, artist);
        INSERT INTO Artist (id, name, imageURL)
            SELECT json_extract(artist.value, '$.id'), json_extract(artist.value, '$.name'),
                   json_extract(artist.value, '$.imageURL')
            FROM Track, json_each(Track.json) AS artist WHERE true ORDER BY Track.id, artist.key
            ON CONFLICT(id) DO NOTHING;
        INSERT INTO TrackArtist (track, artist)
            SELECT Track.id, json_extract(artist.value, '$.id')
            FROM Track, json_each(Track.json) AS artist WHERE true
            ON CONFLICT(track, artist) DO NOTHING;
        """

    static let document = "[model]\nversion = \"v3\"\n\n\(versions)\n\n\(stages)\n\n\(entities)"
}

@Suite("Migrations in the configuration file", .blockingWork)
struct MigrationConfigurationTests {
    /// A temporary folder holding `migrations/v1-v2.sql`; removed by `remove()`.
    struct Folder {
        let path: String

        init(sql: String? = MusicLibraryFile.decodeArtistsSQL) throws {
            path = try ConfigurationTestSupport.makeTemporaryDirectory().path
            try FileManager.default.createDirectory(atPath: path + "/migrations", withIntermediateDirectories: true)
            if let sql { try sql.write(toFile: path + "/migrations/v1-v2.sql", atomically: true, encoding: .utf8) }
        }

        func load(_ toml: String = MusicLibraryFile.document) throws -> SpotliteConfiguration {
            try SpotliteConfiguration(tomlString: toml, source: "spotlite.toml", baseDirectory: path)
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func theModelTableIsReadInFileOrderWithPathsMadeAbsolute() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let configuration = try folder.load()
        let model = try #require(configuration.model)
        #expect(model.version == "v3")
        #expect(model.versions.map(\.name) == ["v1", "v2"])
        #expect(model.versions[1].entities.map(\.name) == ["Track", "Artist", "TrackArtist"])
        #expect(model.versions[0].entities[0].columns.map(\.name) == ["id", "title", "imageURL", "lastPlayedAt", "json", "artistName"])
        #expect(model.versions[0].entities[0].columns[3].type == .date)
        #expect(model.stages == [
            MigrationStageConfiguration(from: "v1", to: "v2", didMigrate: folder.path + "/migrations/v1-v2.sql"),
            MigrationStageConfiguration(from: "v2", to: "v3"),
        ])
        #expect(model.stages.map(\.isCustom) == [true, false])
    }

    @Test func versionsMatchTheSwiftModelsOfTheSameTables() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let versions = try folder.load().modelVersions()
        #expect(versions["v1"]?.checksum == MusicLibrary.v1.checksum)
        // A `number` column takes any SQLite type, where the Swift model says integer.
        var trackArtist = MusicLibrary.trackArtist
        trackArtist.attributes[0].type = .any
        #expect(versions["v2"]?.checksum != MusicLibrary.v2.checksum)
        #expect(versions["v2"]?.checksum == ModelVersion(name: "v2", model: StoreModel(
            entities: [MusicLibrary.trackV1, MusicLibrary.artist, trackArtist])).checksum)
        #expect(versions["v3"]?.checksum == ModelVersion(name: "v3", model: StoreModel(
            entities: [MusicLibrary.trackV3, MusicLibrary.artist, trackArtist])).checksum)
        // Older versions keep today's tombstone columns where they still exist.
        #expect(versions["v1"]?.model.entity(named: "Track")?.preserveOnDelete == ["title"])
    }

    @Test func theModelTableDoesNotChangeTheIndexFingerprint() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let withModel = try folder.load()
        let without = try folder.load(MusicLibraryFile.entities)
        #expect(without.model == nil)
        let noManager = try without.stagedMigrationManager()
        #expect(noManager == nil)
        #expect(withModel.indexFingerprint == without.indexFingerprint)
    }

    @Test func theConfiguredStagesMigrateAStoreLikeTheSwiftOnes() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let storePath = folder.path + "/store.sqlite"
        let version1 = try folder.load("[model]\nversion = \"v1\"\n\n" + MusicLibraryFile.version1Entities)
        let firstManager = try #require(try version1.stagedMigrationManager())
        #expect(firstManager.stages.isEmpty)
        let store = try SpotliteStore(path: storePath, migrationManager: firstManager)
        try store.write(author: "app") { db in
            for seed in MusicLibrary.seeds.prefix(5) {
                try db.execute(sql: "INSERT INTO Track (id, title, json) VALUES (?, ?, ?)", arguments: [
                    seed.id, seed.title, String(decoding: try JSONEncoder().encode(seed.artists), as: UTF8.self)])
            }
        }

        let manager = try #require(try folder.load().stagedMigrationManager(source: "spotlite.toml"))
        #expect(manager.stages.map(\.description) == ["v1 → v2 (custom)", "v2 → v3 (lightweight)"])
        let records = try manager.migrateStore(atPath: storePath)
        #expect(records.map(\.event) == [.custom, .lightweight])
        let (artists, links) = try store.read { db in
            (try String.fetchAll(db, sql: "SELECT id || '=' || name FROM Artist ORDER BY id"),
             try String.fetchAll(db, sql: "SELECT track || '/' || artist FROM TrackArtist ORDER BY track, artist"))
        }
        #expect(artists == ["chic=Chic", "dp=Daft Punk", "nr=Nile Rodgers", "pw=Pharrell Williams"])
        #expect(links == ["1/dp", "1/nr", "1/pw", "2/pw", "3/dp", "4/chic", "4/nr"])
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Track')") }
                == ["id", "title", "imageURL", "lastPlayedAt"])
        let migration = try #require(try store.fetchHistory(.allRetained).last)
        #expect(migration.author == StagedMigrationManager.author)
        #expect(migration.changes.count == 4 + 7)
    }

    @Test func aFailingSQLFileLeavesTheStoreAtItsVersion() throws {
        let folder = try Folder(sql: "INSERT INTO Artist (id, name) VALUES ('x', 'X');\nINSERT INTO NoSuchTable VALUES (1);")
        defer { folder.remove() }
        let storePath = folder.path + "/store.sqlite"
        let version1 = try folder.load("[model]\nversion = \"v1\"\n\n" + MusicLibraryFile.version1Entities)
        _ = try SpotliteStore(path: storePath, migrationManager: try #require(try version1.stagedMigrationManager()))
        let manager = try #require(try folder.load().stagedMigrationManager())
        let error = #expect(throws: SpotliteStoreError.self) { try manager.migrateStore(atPath: storePath) }
        guard case let .stageFailed(stage, phase, message)? = error else {
            Issue.record("expected stageFailed, got \(String(describing: error))")
            return
        }
        #expect(stage == "v1 → v2" && phase == .didMigrate)
        #expect(message.contains("NoSuchTable"))
        #expect(try manager.status(ofStoreAtPath: storePath).storeVersion?.name == "v1")
    }

    @Test(arguments: [
        ("", "no such file"),
        ("   \n", "it is empty"),
    ])
    func unreadableSQLFilesNameTheKey(content: String, problem: String) throws {
        let folder = try Folder(sql: content.isEmpty ? nil : content)
        defer { folder.remove() }
        let configuration = try folder.load()
        let error = #expect(throws: ConfigurationError.self) { try configuration.stagedMigrationManager(source: "spotlite.toml") }
        #expect(error?.keyPath == "model.stages[1].did_migrate")
        #expect(error?.kind == .unreadableFile)
        #expect(error?.description.contains(problem) == true, "\(String(describing: error))")
        #expect(error?.description.contains(folder.path + "/migrations/v1-v2.sql") == true)
    }

    @Test func withoutLoadingSQLFilesAManagerChecksStatusButRefusesToRunACustomStage() throws {
        let folder = try Folder(sql: nil)
        defer { folder.remove() }
        let storePath = folder.path + "/store.sqlite"
        let version1 = try folder.load("[model]\nversion = \"v1\"\n\n" + MusicLibraryFile.version1Entities)
        _ = try SpotliteStore(path: storePath, migrationManager: try #require(try version1.stagedMigrationManager()))
        let manager = try #require(try folder.load().stagedMigrationManager(loadingSQLFiles: false))
        #expect(try manager.status(ofStoreAtPath: storePath).pendingStages.count == 2)
        let error = #expect(throws: SpotliteStoreError.self) { try manager.migrateStore(atPath: storePath) }
        guard case let .stageFailed(stage, _, message)? = error else {
            Issue.record("expected stageFailed, got \(String(describing: error))")
            return
        }
        #expect(stage == "v1 → v2", "\(stage)")
        // The stage's own failure is a configuration error, which has no cause case: its words are the payload.
        #expect(message.contains("was not loaded"), "\(message)")
        #expect(try manager.status(ofStoreAtPath: storePath).storeVersion?.name == "v1")
    }

    /// A document whose `[model]` is `model`, with the v3 entities.
    private static func document(_ model: String) -> String {
        model + "\n\n" + MusicLibraryFile.entities
    }

    @Test(arguments: [
        ("model = 3", "model", "expected a table ([model])"),
        ("[model]\nversions = {}", "model.version", "missing; expected the name of the version"),
        ("[model]\nversion = 3", "model.version", "expected a version name"),
        ("[model]\nversion = \" v3\"", "model.version", "without leading or trailing spaces"),
        ("[model]\nversion = \"v3\"\ncolour = 1", "model.colour", "unknown key \"colour\"; known keys are version, versions, stages"),
        ("[model]\nversion = \"v3\"\nstages = 1", "model.stages", "expected an array of stage tables"),
        ("[model]\nversion = \"v3\"\nstages = [1]", "model.stages[1]", "expected an array of stage tables"),
        ("[model]\nversion = \"v3\"\n[[model.stages]]\nto = \"v3\"", "model.stages[1].from", "missing"),
        ("[model]\nversion = \"v3\"\n[[model.stages]]\nfrom = \"v1\"", "model.stages[1].to", "missing"),
        ("[model]\nversion = \"v3\"\n[[model.stages]]\nfrom = \"v1\"\nto = \"v3\"\nhandler = \"x\"", "model.stages[1].handler", "unknown key"),
        ("[model]\nversion = \"v3\"\n[[model.stages]]\nfrom = \"v1\"\nto = \"v3\"", "model.stages[1].from", "unknown version \"v1\""),
        ("[model]\nversion = \"v3\"\n[[model.stages]]\nfrom = \"v3\"\nto = \"v3\"\ndid_migrate = \"\"", "model.stages[1].did_migrate", "the path of a SQL file"),
        ("[model]\nversion = \"v3\"\n[[model.stages]]\nfrom = \"v3\"\nto = \"v3\"\nrenames = [{ to = \"X\" }]", "model.stages[1].renames[1]", "entity and to are required"),
        ("[model]\nversion = \"v3\"\n[[model.stages]]\nfrom = \"v3\"\nto = \"v3\"\nrenames = [{ entity = \"A\", to = \"B\", as = 1 }]", "model.stages[1].renames[1]", "unknown key \"as\""),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"", "model.versions.v1.entities.Track.columns", "missing"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\ncolumns = { id = \"number\" }", "model.versions.v1.entities.Track.key", "missing"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"\ncolumns = { id = \"integer\" }", "model.versions.v1.entities.Track.columns.id", "expected one of text, keyword, number, date, stored"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.\"spotlite_x\"]\nkey = \"id\"\ncolumns = { id = \"text\" }", "model.versions.v1.entities.spotlite_x", "reserved"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"\ncolumns = { title = \"text\" }\n[[model.stages]]\nfrom = \"v1\"\nto = \"v3\"", "model.versions.v1.entities.Track.columns", "the key column id is missing"),
        ("[model]\nversion = \"v3\"\n[model.versions.v3.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\" }", "model.versions.v3", "is the version [entities] describes"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\" }", "model.versions.v1", "no stage starts from or ends at version v1"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\" }\n[model.versions.v2.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\" }\n[[model.stages]]\nfrom = \"v1\"\nto = \"v2\"",
         "model.stages[1].to", "the last stage ends at v2, but [entities] describe version v3"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\" }\n[model.versions.v2.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\" }\n[[model.stages]]\nfrom = \"v2\"\nto = \"v3\"\n[[model.stages]]\nfrom = \"v1\"\nto = \"v3\"",
         "model.stages[2]", "does not start where the previous stage ends (v3)"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\", title = \"number\" }\n[[model.stages]]\nfrom = \"v1\"\nto = \"v3\"",
         "model.stages[1]", "Track.title changes type from any to text"),
        ("[model]\nversion = \"v3\"\n[model.versions.v1.entities.Track]\nkey = \"id\"\ncolumns = { id = \"number\" }\n[[model.stages]]\nfrom = \"v1\"\nto = \"v3\"\nrenames = [{ entity = \"Song\", to = \"Track\" }]",
         "model.stages[1]", "the current version has no entity Song"),
    ])
    func malformedModelTablesNameTheKey(model: String, keyPath: String, message: String) {
        let error = ConfigurationTestSupport.error(parsing: Self.document(model), source: "spotlite.toml")
        #expect(error?.keyPath == keyPath, "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("spotlite.toml: ") == true)
    }

    @Test func renamesAreReadAsEntityOrAttributeRenames() throws {
        let toml = """
            [model]
            version = "v2"

            [model.versions.v1.entities.Song]
            key = "id"
            columns = { id = "number", name = "text", title = "text" }

            [[model.stages]]
            from = "v1"
            to = "v2"
            renames = [{ entity = "Song", to = "Track" }, { entity = "Track", attribute = "name", to = "imageURL" }]

            [entities.Track]
            key = "id"

            [entities.Track.fields]
            id = { type = "number" }
            title = { type = "text" }
            imageURL = { type = "text" }
            """
        let configuration = try SpotliteConfiguration(tomlString: toml, baseDirectory: "/base")
        #expect(configuration.model?.stages.first?.renames == [
            .entity(from: "Song", to: "Track"), .attribute(entity: "Track", from: "name", to: "imageURL")])
        let manager = try #require(try configuration.stagedMigrationManager())
        #expect(try manager.stages[0].schemaChanges() == [
            .renameTable(from: "Song", to: "Track"), .renameColumn(table: "Track", from: "name", to: "imageURL")])
    }

    @Test func modelsBuiltInSwiftAreCheckedByValidate() throws {
        var configuration = SpotliteConfiguration(entities: [
            EntityConfiguration(name: "Track", key: "id", fields: [.number("id"), .text("title")])])
        configuration.model = ModelConfiguration(version: "v2", stages: [MigrationStageConfiguration(from: "v1", to: "v2")])
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate(source: "Swift") }
        #expect(error?.keyPath == "model.stages[1].from")
        configuration.model = ModelConfiguration(version: "v2")
        #expect(throws: Never.self) { try configuration.validate() }
        let manager = try configuration.stagedMigrationManager()
        #expect(manager?.newestVersion.name == "v2")
    }
}

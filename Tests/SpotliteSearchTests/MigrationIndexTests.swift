import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
@testable import SpotliteStore

/// The classic staged-migration example: v1 tracks keep their artists as JSON, v2 adds an Artist entity and a
/// many-to-many relation filled by decoding that JSON, v3 drops the JSON.
enum MusicLibrary {
    static let trackV1 = EntityDescription(
        name: "Track", key: "id", keyType: .integer,
        attributes: [
            AttributeDescription(name: "title", type: .text),
            AttributeDescription(name: "imageURL", type: .text),
            AttributeDescription(name: "lastPlayedAt", type: .any),
            AttributeDescription(name: "json", type: .text),
            AttributeDescription(name: "artistName", type: .text),
        ],
        preserveOnDelete: ["title"])
    static let artist = EntityDescription(
        name: "Artist", key: "id", keyType: .text,
        attributes: [AttributeDescription(name: "name", type: .text), AttributeDescription(name: "imageURL", type: .text)],
        preserveOnDelete: ["name"])
    /// The many-to-many relation between tracks and artists, one row per link.
    static let trackArtist = EntityDescription(
        name: "TrackArtist", key: "id", keyType: .integer,
        attributes: [AttributeDescription(name: "track", type: .integer), AttributeDescription(name: "artist", type: .text)])
    static let trackV3 = EntityDescription(
        name: "Track", key: "id", keyType: .integer,
        attributes: Array(trackV1.attributes.prefix(3)), preserveOnDelete: ["title"])

    static let v1 = ModelVersion(name: "v1", model: StoreModel(entities: [trackV1]))
    static let v2 = ModelVersion(name: "v2", model: StoreModel(entities: [trackV1, artist, trackArtist]))
    static let v3 = ModelVersion(name: "v3", model: StoreModel(entities: [trackV3, artist, trackArtist]))

    struct ArtistJSON: Codable, Hashable {
        var id: String
        var name: String
        var imageURL: String?
    }

    struct TrackSeed {
        var id: Int
        var title: String
        var artists: [ArtistJSON]
    }

    static let daftPunk = ArtistJSON(id: "dp", name: "Daft Punk", imageURL: "https://img.example/dp.png")
    static let pharrell = ArtistJSON(id: "pw", name: "Pharrell Williams", imageURL: "https://img.example/pw.png")
    static let nile = ArtistJSON(id: "nr", name: "Nile Rodgers", imageURL: nil)
    static let chic = ArtistJSON(id: "chic", name: "Chic", imageURL: "https://img.example/chic.png")

    /// Hand-picked tracks (shared artists, an artist listed twice, a track without artists), then enough generated
    /// ones that a stage's pages spill to disk before it commits.
    static let seeds: [TrackSeed] = {
        var seeds = [
            TrackSeed(id: 1, title: "Get Lucky", artists: [daftPunk, pharrell, nile]),
            TrackSeed(id: 2, title: "Happy", artists: [pharrell]),
            TrackSeed(id: 3, title: "Around the World", artists: [daftPunk, daftPunk]),
            TrackSeed(id: 4, title: "Le Freak", artists: [chic, nile]),
            TrackSeed(id: 5, title: "Silence", artists: []),
        ]
        for number in 100..<500 {
            let first = number % 60, second = (number * 7) % 60
            let artists = [first, second].map {
                ArtistJSON(id: "g\($0)", name: "Ensemble \(String(repeating: "x", count: $0 % 5 + 1))\($0)", imageURL: nil)
            }
            seeds.append(TrackSeed(id: number, title: "Generated song \(number)", artists: artists))
        }
        return seeds
    }()

    /// Decodes each track's JSON into artists (once each, by id) and links (once per track and artist).
    static let fillArtists: MigrationStage.Handler = { db in
        // A tiny page cache makes the stage write its pages to the WAL before it commits, as a large one would.
        try db.execute(sql: "PRAGMA cache_size = 4")
        try db.execute(sql: "CREATE UNIQUE INDEX TrackArtist_link ON TrackArtist(track, artist)")
        let tracks = try Row.fetchAll(db, sql: "SELECT id, json FROM Track ORDER BY id")
        for track in tracks {
            let json: String = track["json"] ?? "[]"
            let artists = try JSONDecoder().decode([ArtistJSON].self, from: Data(json.utf8))
            for artist in artists {
                try db.execute(
                    sql: "INSERT INTO Artist (id, name, imageURL) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING",
                    arguments: [artist.id, artist.name, artist.imageURL])
                try db.execute(
                    sql: "INSERT INTO TrackArtist (track, artist) VALUES (?, ?) ON CONFLICT(track, artist) DO NOTHING",
                    arguments: [track["id"] as Int64, artist.id])
            }
        }
    }

    static func stages(didMigrate: @escaping MigrationStage.Handler = fillArtists) -> [MigrationStage] {
        [.custom(migratingFrom: v1, to: v2, didMigrate: didMigrate),
         .lightweight(migratingFrom: v2, to: v3)]
    }

    static func configuration(storePath: String, indexPath: String, version: Int) -> SpotliteConfiguration {
        let entities: [EntityConfiguration]
        if version == 1 {
            entities = [EntityConfiguration(name: "Track", key: "id", fields: [
                .text("title", weight: 2, store: true), .text("artistName", prefix: "artist")])]
        } else {
            entities = [
                EntityConfiguration(name: "Track", key: "id", fields: [
                    .text("title", weight: 2, store: true), .text("artists", prefix: "artist", store: true),
                    .date("lastPlayedAt", sortable: true)]),
                EntityConfiguration(name: "Artist", key: "id", fields: [.text("name", weight: 3, store: true), .stored("imageURL")]),
            ]
        }
        return SpotliteConfiguration(storePath: storePath, indexPath: indexPath, entities: entities)
    }

    /// The v2 mapping follows the relation: a track's document holds its artists' names.
    struct RelationProvider: IndexDocumentProvider {
        func attributeSet(for record: IndexRecord, in db: Database) throws -> AttributeSet? {
            guard record.entity == "Track" else {
                return AttributeSet(["name": record.row["name"], "imageURL": record.row["imageURL"]])
            }
            let names = try String.fetchAll(db, sql: """
                SELECT Artist.name FROM TrackArtist JOIN Artist ON Artist.id = TrackArtist.artist
                WHERE TrackArtist.track = ? ORDER BY Artist.name
                """, arguments: [record.key])
            return AttributeSet(["title": record.row["title"], "lastPlayedAt": record.row["lastPlayedAt"],
                                 "artists": names.joined(separator: ", ").databaseValue])
        }
    }
}

/// A v1 library in its own temporary folder (removed with the value): a store with history, and an index built
/// from it by ``buildIndex()``.
final class MusicLibraryFolder: Sendable {
    let folder: String
    let storePath: String
    let indexPath: String
    /// Tokens of the app's transactions.
    let appTokens: [HistoryToken]

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-migration-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        storePath = folder + "/store.sqlite"
        indexPath = folder + "/search"
        let store = try SpotliteStore(path: storePath, migrationManager: try StagedMigrationManager(version: MusicLibrary.v1))
        for chunk in stride(from: 0, to: MusicLibrary.seeds.count, by: 150) {
            try store.write(author: "app", context: "import") { db in
                for seed in MusicLibrary.seeds[chunk..<min(chunk + 150, MusicLibrary.seeds.count)] {
                    let json = String(decoding: try JSONEncoder().encode(seed.artists), as: UTF8.self)
                    try db.execute(
                        sql: "INSERT INTO Track (id, title, imageURL, lastPlayedAt, json, artistName) VALUES (?, ?, ?, ?, ?, ?)",
                        arguments: [seed.id, seed.title, "https://img.example/t\(seed.id).png",
                                    "2024-05-\(String(format: "%02d", seed.id % 28 + 1))", json,
                                    seed.artists.map(\.name).joined(separator: " & ")])
                }
            }
        }
        try store.write(author: "app", context: "player") { db in
            try db.execute(sql: "UPDATE Track SET lastPlayedAt = '2024-06-01T20:00:00Z' WHERE id = 2")
            try db.execute(sql: "INSERT INTO Track (id, title, json) VALUES (999, 'Deleted later', '[]')")
            try db.execute(sql: "DELETE FROM Track WHERE id = 999")
        }
        appTokens = try store.fetchHistory(.allRetained).map(\.token)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A folder with an indexed v1 library.
    static func indexed() async throws -> MusicLibraryFolder {
        let library = try MusicLibraryFolder()
        let store = try SpotliteStore(path: library.storePath, model: MusicLibrary.v1.model)
        let indexer = try SpotliteIndexer(store: store, configuration: MusicLibrary.configuration(
            storePath: library.storePath, indexPath: library.indexPath, version: 1))
        let summary = try await indexer.update()
        #expect(summary.rebuilt && summary.indexed == MusicLibrary.seeds.count)
        return library
    }

    /// Copies the store's files as a crash at this instant would leave them: the database, its WAL with whatever
    /// uncommitted pages were written to it, and the shared-memory index.
    static func saveCrashImage(of storePath: String, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: storePath + suffix) {
            try FileManager.default.copyItem(atPath: storePath + suffix, toPath: folder + "/store.sqlite" + suffix)
        }
    }
}

/// What the migrated library holds, in a form two runs can be compared by.
struct LibraryState: Equatable {
    var version: ModelVersionID?
    var tracks: [String]
    var artists: [String]
    var links: [String]
    /// The migration's history: context and changes (type, entity, key), without tokens or dates.
    var migrationHistory: [String]

    init(store: SpotliteStore) throws {
        version = try store.currentModelVersion()
        (tracks, artists, links) = try store.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT * FROM Track ORDER BY id").map { $0.description },
                try Row.fetchAll(db, sql: "SELECT * FROM Artist ORDER BY id").map { $0.description },
                try Row.fetchAll(db, sql: "SELECT track, artist FROM TrackArtist ORDER BY track, artist").map { $0.description }
            )
        }
        migrationHistory = try store.fetchHistory(.allRetained)
            .filter { $0.author == StagedMigrationManager.author }
            .flatMap { transaction in
                ["context \(transaction.contextName ?? "-")"]
                    + transaction.changes.map { "\($0.changeType) \($0.entity) \($0.key.storage)" }
            }
    }
}

@Suite("Migrating a store with history and an index", .blockingWork)
struct MigrationIndexTests {
    private static let queries = ["Pharrell", "Nile Rodgers", "artist:chic", "Daft Punk", "lucky", "Ensemble xx1", "silence"]

    /// The keys each query finds, as `Entity:key`.
    private static func searchAll(_ searcher: IndexSearcher) throws -> [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        for query in queries {
            let results = try searcher.search(SearchRequest(query, limit: 1000))
            found[query] = Set(results.hits.map { "\($0.entity):\($0.key)" })
        }
        return found
    }

    /// Updates the index with the v2+ mapping and returns the update summary and what each query finds.
    private static func indexAndSearch(store: SpotliteStore, storePath: String, indexPath: String) async throws
        -> (IndexUpdateSummary, [String: Set<String>]) {
        let configuration = MusicLibrary.configuration(storePath: storePath, indexPath: indexPath, version: 3)
        let indexer = try SpotliteIndexer(store: store, configuration: configuration,
                                          documentProvider: MusicLibrary.RelationProvider())
        let summary = try await indexer.update()
        let found = try searchAll(IndexSearcher(configuration: configuration))
        return (summary, found)
    }

    @Test func migratingV1ToV3KeepsEverythingAndTheIndexFollowsTheNewModel() async throws {
        let library = try await MusicLibraryFolder.indexed()
        let before = try SpotliteStore(path: library.storePath, model: MusicLibrary.v1.model)
        let historyBefore = try before.fetchHistory(.allRetained)
        let tracksBefore = try before.read { db in
            try Row.fetchAll(db, sql: "SELECT id, title, imageURL, lastPlayedAt, json FROM Track ORDER BY id")
        }
        let v1Searcher = try IndexSearcher(configuration: MusicLibrary.configuration(
            storePath: library.storePath, indexPath: library.indexPath, version: 1))
        #expect(Set(try v1Searcher.search(SearchRequest("Pharrell")).hits.map { "\($0.entity):\($0.key)" })
                == ["Track:1", "Track:2"])

        let store = try SpotliteStore(path: library.storePath,
                                      migrationManager: try StagedMigrationManager(MusicLibrary.stages()))
        #expect(try store.currentModelVersion() == MusicLibrary.v3.id)
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Track')") }
                == ["id", "title", "imageURL", "lastPlayedAt"])

        // Every track is still there with its values; every artist exists once; every track links its artists.
        var expectedArtists: [String: MusicLibrary.ArtistJSON] = [:]
        var expectedLinks: Set<String> = []
        for row in tracksBefore {
            let artists = try JSONDecoder().decode([MusicLibrary.ArtistJSON].self, from: Data((row["json"] as String).utf8))
            for artist in artists {
                if expectedArtists[artist.id] == nil { expectedArtists[artist.id] = artist }
                expectedLinks.insert("\(row["id"] as Int64)/\(artist.id)")
            }
        }
        let (tracksAfter, artistsAfter, linksAfter) = try store.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT id, title, imageURL, lastPlayedAt FROM Track ORDER BY id"),
                try Row.fetchAll(db, sql: "SELECT id, name, imageURL FROM Artist ORDER BY id"),
                try Row.fetchAll(db, sql: "SELECT track, artist FROM TrackArtist").map { "\($0["track"] as Int64)/\($0["artist"] as String)" }
            )
        }
        #expect(tracksAfter.count == MusicLibrary.seeds.count)
        for (old, new) in zip(tracksBefore, tracksAfter) {
            #expect(old["id"] as Int64 == new["id"] as Int64)
            #expect(old["title"] as String == new["title"] as String)
            #expect(old["imageURL"] as String? == new["imageURL"] as String?)
            #expect(old["lastPlayedAt"] as DatabaseValue == new["lastPlayedAt"] as DatabaseValue)
        }
        #expect(artistsAfter.count == expectedArtists.count)
        for row in artistsAfter {
            let expected = try #require(expectedArtists[row["id"] as String])
            #expect(row["name"] as String == expected.name)
            #expect(row["imageURL"] as String? == expected.imageURL)
        }
        #expect(linksAfter.count == expectedLinks.count, "a link is recorded once, even when the JSON repeats an artist")
        #expect(Set(linksAfter) == expectedLinks)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM TrackArtist WHERE track = 5") } == 0)

        // History: nothing of the app's is lost, and the migration's inserts are there under the migration author.
        let history = try store.fetchHistory(.allRetained)
        #expect(Array(history.prefix(historyBefore.count)) == historyBefore)
        #expect(history.prefix(historyBefore.count).map(\.token) == library.appTokens)
        let migration = try #require(history.last)
        #expect(history.count == historyBefore.count + 1, "the lightweight stage changes no rows, so it adds no transaction")
        #expect(migration.author == StagedMigrationManager.author)
        #expect(migration.contextName == "migration v1 → v2")
        #expect(migration.changes.filter { $0.entity == "Artist" }.count == expectedArtists.count)
        #expect(migration.changes.filter { $0.entity == "TrackArtist" }.count == expectedLinks.count)
        #expect(migration.changes.allSatisfy { $0.changeType == .insert })
        #expect(try store.migrationLog().map(\.event) == [.created, .custom, .lightweight])

        // The indexer sees the new model version, rebuilds with the relation-following mapping, and says why.
        let (summary, found) = try await Self.indexAndSearch(store: store, storePath: library.storePath, indexPath: library.indexPath)
        #expect(summary.rebuilt)
        let reason = try #require(summary.reason)
        #expect(reason.contains("migrated to another model version"), "\(reason)")
        #expect(reason.contains("v1 (checksum \(MusicLibrary.v1.checksum)) is now v3 (checksum \(MusicLibrary.v3.checksum))"), "\(reason)")
        #expect(found["Pharrell"] == ["Artist:pw", "Track:1", "Track:2"])
        #expect(found["Nile Rodgers"] == ["Artist:nr", "Track:1", "Track:4"])
        #expect(found["artist:chic"] == ["Track:4"])
        #expect(found["Daft Punk"] == ["Artist:dp", "Track:1", "Track:3"])
        #expect(found["silence"] == ["Track:5"])

        // Later writes go through the new capture and the index follows them without another rebuild.
        try store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Artist (id, name) VALUES ('daft', 'Thomas Bangalter')")
            try db.execute(sql: "INSERT INTO TrackArtist (track, artist) VALUES (3, 'daft')")
            try db.execute(sql: "UPDATE Track SET title = 'Around the World (edit)' WHERE id = 3")
        }
        let configuration = MusicLibrary.configuration(storePath: library.storePath, indexPath: library.indexPath, version: 3)
        let indexer = try SpotliteIndexer(store: store, configuration: configuration, documentProvider: MusicLibrary.RelationProvider())
        let next = try await indexer.update()
        #expect(!next.rebuilt)
        let bangalter = try IndexSearcher(configuration: configuration).search(SearchRequest("Bangalter"))
        #expect(Set(bangalter.hits.map { "\($0.entity):\($0.key)" }) == ["Artist:daft", "Track:3"])
    }

    /// Where the injected crash happens.
    enum CrashPoint: String, CaseIterable, Sendable {
        /// Stage 1 (custom), halfway through decoding the tracks in didMigrate.
        case customStageHalfwayThroughDidMigrate
        /// Stage 2 (lightweight), after its schema change, just before it commits.
        case lightweightStageBeforeCommit
    }

    @Test(arguments: CrashPoint.allCases)
    func aCrashDuringAStageResumesOnReopenAndEndsInTheSameState(at crash: CrashPoint) async throws {
        // The reference: the same library migrated without interruption.
        let reference = try await MusicLibraryFolder.indexed()
        let referenceStore = try SpotliteStore(path: reference.storePath,
                                               migrationManager: try StagedMigrationManager(MusicLibrary.stages()))
        let expected = try LibraryState(store: referenceStore)
        let (_, expectedFound) = try await Self.indexAndSearch(store: referenceStore, storePath: reference.storePath,
                                                               indexPath: reference.indexPath)

        let library = try await MusicLibraryFolder.indexed()
        let storePath = library.storePath
        let imageFolder = library.folder + "/crash"
        try FileManager.default.copyItem(atPath: library.indexPath, toPath: imageFolder + "-search")
        let imagePath = imageFolder + "/store.sqlite"
        let crashingStages: [MigrationStage]
        let hook: StagedMigrator.CommitHook?
        switch crash {
        case .customStageHalfwayThroughDidMigrate:
            crashingStages = MusicLibrary.stages(didMigrate: { db in
                try db.execute(sql: "PRAGMA cache_size = 4")
                try db.execute(sql: "CREATE UNIQUE INDEX TrackArtist_link ON TrackArtist(track, artist)")
                for id in try Int64.fetchAll(db, sql: "SELECT id FROM Track ORDER BY id LIMIT 250") {
                    try db.execute(sql: "INSERT INTO Artist (id, name) VALUES (?, 'half-done') ON CONFLICT(id) DO NOTHING",
                                   arguments: ["partial\(id % 40)"])
                    try db.execute(sql: "INSERT INTO TrackArtist (track, artist) VALUES (?, ?)", arguments: [id, "partial\(id % 40)"])
                }
                try MusicLibraryFolder.saveCrashImage(of: storePath, to: imageFolder)
                throw InjectedCrash()
            })
            hook = nil
        case .lightweightStageBeforeCommit:
            crashingStages = MusicLibrary.stages()
            hook = { _, stage in
                guard stage.kind == .lightweight else { return }
                try MusicLibraryFolder.saveCrashImage(of: storePath, to: imageFolder)
                throw InjectedCrash()
            }
        }
        let crashingManager = try StagedMigrationManager(crashingStages)
        #expect(throws: SpotliteStoreError.self) {
            try StagedMigrator(manager: crashingManager, path: library.storePath, options: StoreOptions(),
                               assumedVersion: nil, beforeCommit: hook).migrate()
        }
        let walImage = try FileManager.default.attributesOfItem(atPath: imagePath + "-wal")[.size] as? Int ?? 0
        #expect(walImage > 0, "the crash image holds the stage's uncommitted pages")

        // Both the rolled-back store and the crash image are at the version before the crashed stage.
        let manager = try StagedMigrationManager(MusicLibrary.stages())
        let versionBefore = crash == .customStageHalfwayThroughDidMigrate ? MusicLibrary.v1.id : MusicLibrary.v2.id
        for path in [library.storePath, imagePath] {
            let status = try manager.status(ofStoreAtPath: path)
            #expect(status.storeVersion == versionBefore, "\(path)")
            #expect(status.pendingStages.count == (crash == .customStageHalfwayThroughDidMigrate ? 2 : 1))
        }

        // Reopening resumes and ends where the uninterrupted migration ended, for the index too.
        for (storePath, indexPath) in [(library.storePath, library.indexPath), (imagePath, imageFolder + "-search")] {
            let store = try SpotliteStore(path: storePath, migrationManager: manager)
            #expect(try LibraryState(store: store) == expected, "\(storePath)")
            #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Artist WHERE name = 'half-done'") } == 0)
            let (summary, found) = try await Self.indexAndSearch(store: store, storePath: storePath, indexPath: indexPath)
            #expect(summary.rebuilt)
            #expect(found == expectedFound)
        }
    }

    @Test func aModelVersionChangeAloneRebuildsTheIndex() async throws {
        let directory = try XapianTestDirectory()
        let storePath = directory.database("store.sqlite"), indexPath = directory.database("search")
        let configuration = MusicLibrary.configuration(storePath: storePath, indexPath: indexPath, version: 1)
        do {
            let store = try SpotliteStore(path: storePath, migrationManager: try StagedMigrationManager(version: MusicLibrary.v1))
            try store.write(author: "app") { db in
                try db.execute(sql: "INSERT INTO Track (id, title, artistName) VALUES (1, 'Get Lucky', 'Daft Punk')")
            }
            let indexer = try SpotliteIndexer(store: store, configuration: configuration)
            #expect(try await indexer.update().reason == "there is no index yet")
            #expect(try await indexer.update().rebuilt == false)
        }
        // v1b adds a column the index does not use: the configuration and its fingerprint stay the same.
        var trackV1b = MusicLibrary.trackV1
        trackV1b.attributes.append(AttributeDescription(name: "rating", type: .integer))
        let v1b = ModelVersion(name: "v1b", model: StoreModel(entities: [trackV1b]))
        let store = try SpotliteStore(path: storePath, migrationManager: try StagedMigrationManager([
            .lightweight(migratingFrom: MusicLibrary.v1, to: v1b)]))
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        let summary = try await indexer.update()
        #expect(summary.rebuilt)
        #expect(summary.reason?.contains("is now v1b (checksum \(v1b.checksum))") == true, "\(summary.reason ?? "nil")")
        #expect(try await indexer.update().rebuilt == false, "the index now records the new version")
        let status = try IndexSearcher(configuration: configuration).search(SearchRequest("lucky"))
        #expect(status.hits.map { $0.entity } == ["Track"])
    }
}

struct InjectedCrash: Error, CustomStringConvertible {
    var description: String { "injected crash" }
}

import Foundation
import Spotlite
import SpotliteTestSupport
import Testing

/// How the configuration file becomes the store's model, its cleanup policy and a tracker's configuration.
@Suite("Configuration mapping", .blockingWork)
struct ConfigurationMappingTests {
    static let toml = """
        [history]
        authors = ["app", "widget", "importer"]
        batch_authors = ["importer"]
        mirror_authors = ["sync"]
        clean = { every = "4h" }

        [entities.Track]
        key = "id"
        preserve_on_delete = ["title"]
        [entities.Track.fields]
        id = { type = "number" }
        title = { type = "text", store = true }
        played = { type = "date", sortable = true }
        """

    @Test func storeModelHasTheKeyTypeAndColumns() throws {
        let configuration = try SpotliteConfiguration(tomlString: Self.toml)
        let track = try #require(configuration.storeModel.entity(named: "Track"))
        #expect(track.keyType == .integer, "a number field as key makes an integer key")
        #expect(track.columns.map(\.name) == ["id", "title", "played"])
        #expect(track.preserveOnDelete == ["title"])
    }

    @Test func cleanupWaitsForReadersNotBatchAuthorsAndTheIndexerThroughItsRegistration() throws {
        let configuration = try SpotliteConfiguration(tomlString: Self.toml)
        let policy = configuration.deletionPolicy
        // The indexer registers itself in the store while it has an index, so deleting the index can release it.
        #expect(Set(policy.requiredAuthors) == ["app", "widget"])
        #expect(Set(policy.listedAuthors) == ["app", "widget", "importer"])
        let seconds = try #require(policy.maximumDuration)
        #expect(abs(seconds - 604_800) < 0.001, "seven days unless configured")
    }

    @Test func maximumDurationNoneKeepsHistory() throws {
        let configuration = try SpotliteConfiguration(tomlString: "[history]\nmaximum_duration = \"none\"\n")
        #expect(configuration.history.maximumDuration == nil)
        #expect(configuration.deletionPolicy.maximumDuration == nil)
    }

    @Test func trackerConfigurationFollowsTheHistorySection() throws {
        let configuration = try SpotliteConfiguration(tomlString: Self.toml)
        let tracker = configuration.trackerConfiguration(currentAuthor: "app")
        #expect(tracker.currentAuthor == "app")
        #expect(tracker.allAuthors == ["app", "widget", "importer"])
        #expect(tracker.batchAuthors == ["importer"])
        #expect(tracker.mirrorAuthors == ["sync"])
        #expect(tracker.consumers.isEmpty, "the indexer is waited for through its registration in the store")
        #expect(tracker.includesUnattributedTransactions, "writes by the sqlite3 shell are delivered by default")
        #expect(tracker.deletionSchedule == .every(.seconds(4 * 3600)))
        #expect(tracker.maximumDuration == .seconds(7 * 86_400))
    }
}

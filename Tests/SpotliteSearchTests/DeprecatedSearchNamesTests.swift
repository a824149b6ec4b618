import Foundation
import SpotliteTestSupport
import Testing
import Spotlite

/// SpotliteSearch's names from before 0.1.0 still build and mean what the new ones mean (CHANGELOG.md,
/// "Renamed"). The tests are deprecated themselves, so that using the old names here warns no one.
@Suite("Deprecated search names", .blockingWork)
struct DeprecatedSearchNamesTests {
    @available(*, deprecated)
    @Test func theOldHistoryConfigurationNamesSetTheDeletionSchedule() {
        var history = HistoryConfiguration(authors: ["app"], clean: CleanPolicy.notifications(50))
        #expect(history == HistoryConfiguration(authors: ["app"], deletionSchedule: .notifications(50)))
        history.clean = .every(.seconds(4 * 3600))
        #expect(history.deletionSchedule == .every(.seconds(4 * 3600)))
        #expect(history.clean == history.deletionSchedule)
    }

    @available(*, deprecated)
    @Test func theOldRankingAndPathNamesKeepTheirValues() {
        #expect(RankingOptions.tuned == RankingOptions.knownItemFitted)
        #expect(SpotliteConfiguration.defaultPath == "config/spotlite.toml")
    }

    @available(*, deprecated)
    @Test func theOldRecordIdentityIsTheStoresExactOne() {
        let old: IndexRecordID = IndexRecordID(entity: "Item", key: "café".databaseValue)
        let records: Set<RecordID> = [old, RecordID(entity: "Item", key: "cafe\u{301}".databaseValue)]
        #expect(records.count == 2, "NFC and NFD keys stay two records under the old name too")
    }
}

import Foundation
import GRDB
import Logging
import SpotliteTestSupport
import Testing
@testable import SpotliteStore

/// Observer hooks: per entity and operation, grouped per transaction, in registration and change order, and
/// tombstones on deletes. The widget writes through its own handle; the app's tracker processes on request.
@Suite("Tracking: observers", .blockingWork)
struct TrackingObserverTests {
    struct Fixture {
        let test: TestStore
        let widget: SpotliteStore
        let tracker: HistoryTracker

        init() throws {
            test = try TestStore()
            widget = try test.reopen()
            tracker = try HistoryTracker(
                store: test.store, configuration: trackerConfiguration("app", allAuthors: ["app", "widget"], autoStart: false))
        }

        @discardableResult
        func widgetWrites(_ sql: String) throws -> HistoryToken {
            try widget.run(sql, author: "widget")
        }
    }

    @Test func insertUpdateAndDeleteFireTheirOwnHooks() async throws {
        let fixture = try Fixture()
        let seen = Recorder<ObservedChanges>()
        for operation in HistoryChangeType.allCases {
            fixture.tracker.registerObserver(entity: "Package", operation: operation) { seen.append($0) }
        }
        let inserted = try fixture.widgetWrites("INSERT INTO Package (name, summary) VALUES ('zsh', 'shell')")
        let updated = try fixture.widgetWrites("UPDATE Package SET summary = 'the Z shell' WHERE name = 'zsh'")
        let deleted = try fixture.widgetWrites("DELETE FROM Package WHERE name = 'zsh'")
        try await fixture.tracker.processPendingHistory()

        #expect(seen.values.map(\.operation) == [.insert, .update, .delete])
        #expect(seen.values.map(\.token) == [inserted, updated, deleted])
        #expect(seen.values.allSatisfy { $0.entity == "Package" && $0.author == "widget" && $0.changes.count == 1 })
        #expect(seen.values.allSatisfy { $0.changes.first?.key == "zsh".databaseValue })
        #expect(seen.values[1].changes.first?.updatedColumns == ["summary"])
    }

    @Test func hooksArePerEntityAndPerOperation() async throws {
        let fixture = try Fixture()
        let packageInserts = Recorder<ObservedChanges>()
        let itemInserts = Recorder<ObservedChanges>()
        let itemDeletes = Recorder<ObservedChanges>()
        fixture.tracker.registerObserver(entity: "Package", operation: .insert) { packageInserts.append($0) }
        fixture.tracker.registerObserver(entity: "Item", operation: .insert) { itemInserts.append($0) }
        fixture.tracker.registerObserver(entity: "Item", operation: .delete) { itemDeletes.append($0) }

        try fixture.widgetWrites("""
            INSERT INTO Package (name) VALUES ('vim');
            INSERT INTO Item (id, label) VALUES (1, 'one'), (2, 'two');
            UPDATE Item SET label = 'uno' WHERE id = 1;
            """)
        try await fixture.tracker.processPendingHistory()

        #expect(packageInserts.values.map { $0.changes.map(\.key) } == [["vim".databaseValue]])
        #expect(itemInserts.values.map { $0.changes.map(\.key) } == [[1.databaseValue, 2.databaseValue]])
        #expect(itemInserts.values.allSatisfy { $0.entity == "Item" && $0.operation == .insert })
        #expect(itemDeletes.values.isEmpty, "no Item was deleted; the update must not reach other hooks")
    }

    @Test func registrationReturnsAnIdAndRemovalByIdSucceedsOnce() async throws {
        let fixture = try Fixture()
        let seen = Recorder<String>()
        let first = fixture.tracker.registerObserver(entity: "Package", operation: .insert) { _ in seen.append("first") }
        let second = fixture.tracker.registerObserver(entity: "Package", operation: .insert) { _ in seen.append("second") }
        #expect(first != second)

        #expect(fixture.tracker.removeObserver(id: first))
        #expect(!fixture.tracker.removeObserver(id: first))
        #expect(!fixture.tracker.removeObserver(id: UUID()))

        try fixture.widgetWrites("INSERT INTO Package (name) VALUES ('git')")
        try await fixture.tracker.processPendingHistory()
        #expect(seen.values == ["second"])
    }

    @Test func removalByEntityAndOperationAndRemoveAll() async throws {
        let fixture = try Fixture()
        let seen = Recorder<String>()
        fixture.tracker.registerObserver(entity: "Package", operation: .insert) { _ in seen.append("insert 1") }
        fixture.tracker.registerObserver(entity: "Package", operation: .insert) { _ in seen.append("insert 2") }
        fixture.tracker.registerObserver(entity: "Package", operation: .delete) { _ in seen.append("delete") }
        fixture.tracker.registerObserver(entity: "Item", operation: .insert) { _ in seen.append("item insert") }

        #expect(fixture.tracker.removeObservers(entity: "Package", operation: .insert) == 2)
        #expect(fixture.tracker.removeObservers(entity: "Package", operation: .insert) == 0)
        try fixture.widgetWrites("""
            INSERT INTO Package (name) VALUES ('a'); DELETE FROM Package WHERE name = 'a';
            INSERT INTO Item (id) VALUES (7);
            """)
        try await fixture.tracker.processPendingHistory()
        #expect(seen.values == ["delete", "item insert"])

        fixture.tracker.removeAllObservers()
        try fixture.widgetWrites("INSERT INTO Package (name) VALUES ('b'); DELETE FROM Package WHERE name = 'b'")
        try await fixture.tracker.processPendingHistory()
        #expect(seen.values == ["delete", "item insert"], "no observer is left to call")
    }

    @Test func registrationOrderIsExecutionOrder() async throws {
        let fixture = try Fixture()
        let seen = Recorder<Int>()
        for index in 1...4 {
            fixture.tracker.registerObserver(entity: "Package", operation: .insert) { _ in
                // Later hooks would overtake one that suspends if they ran concurrently.
                if index == 1 { for _ in 0..<100 { await Task.yield() } }
                seen.append(index)
            }
        }
        try fixture.widgetWrites("INSERT INTO Package (name) VALUES ('x')")
        try await fixture.tracker.processPendingHistory()
        #expect(seen.values == [1, 2, 3, 4])
    }

    @Test func fiveInsertsInOneSaveGiveOneCallbackWithFiveChanges() async throws {
        let fixture = try Fixture()
        let seen = Recorder<ObservedChanges>()
        fixture.tracker.registerObserver(entity: "Package", operation: .insert) { seen.append($0) }
        let names = ["a", "b", "c", "d", "e"]
        try fixture.widget.insertPackages(names, author: "widget")
        try await fixture.tracker.processPendingHistory()

        #expect(seen.count == 1)
        #expect(seen.values.first?.changes.map(\.key) == names.map(\.databaseValue))
    }

    @Test func separateSavesGiveSeparateCallbacks() async throws {
        let fixture = try Fixture()
        let seen = Recorder<ObservedChanges>()
        fixture.tracker.registerObserver(entity: "Package", operation: .insert) { seen.append($0) }
        var tokens: [HistoryToken] = []
        for name in ["a", "b", "c"] {
            tokens.append(try fixture.widget.insertPackages([name], author: "widget"))
        }
        try await fixture.tracker.processPendingHistory()

        #expect(seen.values.map(\.token) == tokens)
        #expect(seen.values.map { $0.changes.map(\.key) } == [["a"], ["b"], ["c"]].map { $0.map(\.databaseValue) })
    }

    @Test func callbackOrderMatchesChangeOrder() async throws {
        let fixture = try Fixture()
        let seen = Recorder<String>()
        for entity in ["Package", "Item"] {
            for operation in HistoryChangeType.allCases {
                fixture.tracker.registerObserver(entity: entity, operation: operation) { changes in
                    let keys = changes.changes.map { change in
                        String.fromDatabaseValue(change.key) ?? Int64.fromDatabaseValue(change.key).map(String.init) ?? "?"
                    }
                    seen.append("\(changes.entity).\(changes.operation)(\(keys.joined(separator: ",")))")
                }
            }
        }
        try fixture.widgetWrites("INSERT INTO Package (name) VALUES ('old')")
        try fixture.widgetWrites("""
            INSERT INTO Package (name) VALUES ('p1');
            INSERT INTO Item (id) VALUES (1);
            DELETE FROM Package WHERE name = 'old';
            INSERT INTO Package (name) VALUES ('p2');
            UPDATE Item SET label = 'l' WHERE id = 1;
            """)
        try fixture.widgetWrites("INSERT INTO Item (id) VALUES (2)")
        try await fixture.tracker.processPendingHistory()

        #expect(seen.values == [
            "Package.insert(old)",
            "Package.insert(p1,p2)", "Item.insert(1)", "Package.delete(old)", "Item.update(1)",
            "Item.insert(2)",
        ])
    }

    @Test func deletesCarryTombstonesWithTheDeletionDateAndOthersNone() async throws {
        let fixture = try Fixture()
        let seen = Recorder<ObservedChanges>()
        for operation in HistoryChangeType.allCases {
            fixture.tracker.registerObserver(entity: "Package", operation: operation) { seen.append($0) }
        }
        try fixture.widgetWrites("INSERT INTO Package (name, summary, section, size) VALUES ('zsh', 'shell', 'shells', 12)")
        try fixture.widgetWrites("UPDATE Package SET size = 13 WHERE name = 'zsh'")
        let deletion = try fixture.widgetWrites("DELETE FROM Package WHERE name = 'zsh'")
        try await fixture.tracker.processPendingHistory()

        let byOperation = Dictionary(grouping: seen.values, by: \.operation)
        let delete = try #require(byOperation[.delete]?.first)
        let tombstone = try #require(delete.tombstones.first)
        #expect(delete.tombstones.count == 1)
        // Only the entity's preserveOnDelete columns (name, summary), not section or size.
        #expect(tombstone.values == ["name": "zsh".databaseValue, "summary": "shell".databaseValue])
        #expect(tombstone.key == "zsh".databaseValue)
        let transaction = try #require(try fixture.test.store.fetchHistory(.after(HistoryToken(deletion.rawValue - 1))).first)
        #expect(tombstone.deletionDate == transaction.timestamp)
        #expect(abs(tombstone.deletionDate.timeIntervalSinceNow) < 600)

        for operation in [HistoryChangeType.insert, .update] {
            let observed = try #require(byOperation[operation]?.first)
            #expect(observed.tombstones.isEmpty)
            #expect(observed.changes.allSatisfy { $0.tombstone == nil })
        }
    }

    @Test func observersOfEntitiesOutsideTheModelAreReported() async throws {
        let test = try TestStore()
        let messages = Recorder<(Logger.Level, String)>()
        let tracker = try HistoryTracker(
            store: test.store,
            configuration: trackerConfiguration("app", allAuthors: ["app"], autoStart: false) {
                $0.logLevel = .important
                $0.logger = Logger(label: "test") { _ in CapturingLogHandler(messages: messages) }
            })
        tracker.registerObserver(entity: "Pakage", operation: .insert) { _ in }
        #expect(messages.values.contains { $0.1.contains("Pakage") && $0.1.contains("does not track") })
    }
}

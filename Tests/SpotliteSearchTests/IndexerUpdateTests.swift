import Foundation
import GRDB
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch
import Spotlite

/// `update()`: history after the index's token becomes index changes, committed with the token.
@Suite("Indexer updates", .blockingWork)
struct IndexerUpdateTests {
    @Test("the first update builds the index from the rows, and says why")
    func firstUpdateBuilds() async throws {
        let sandbox = try IndexerSandbox()
        let token = try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        let summary = try await indexer.update()
        #expect(summary.rebuilt)
        #expect(summary.reason == "there is no index yet")
        #expect(summary.indexed == SamplePackage.catalogue.count)
        #expect(summary.token == token)
        #expect(try sandbox.indexToken() == token)
        #expect(try sandbox.makeSearcher().documentCount() == SamplePackage.catalogue.count)
        #expect(try sandbox.keys("editor").contains("vim"))

        let again = try await indexer.update()
        #expect(!again.rebuilt)
        #expect(again.transactions == 0 && again.indexed == 0 && again.deleted == 0)
        #expect(again.token == token)
    }

    @Test("an insert through the store is searchable after update()")
    func insertIsSearchable() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(3)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        #expect(try sandbox.keys("postgresql").isEmpty)

        let token = try sandbox.write([SamplePackage.named("postgresql")])
        let summary = try await indexer.update()
        #expect(!summary.rebuilt)
        #expect(summary.transactions == 1)
        #expect(summary.changes == 1)
        #expect(summary.indexed == 1)
        #expect(summary.token == token)
        #expect(try sandbox.keys("postgresql") == ["postgresql"])
        #expect(try sandbox.keys("relational") == ["postgresql"])
        #expect(try sandbox.indexToken() == token)
    }

    @Test("an update through the store changes the document; a delete removes it")
    func updateAndDelete() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        #expect(try sandbox.keys("pico") == ["nano"])

        var nano = SamplePackage.named("nano")
        nano.summary = "tiny terminal editor"
        nano.description = "A tiny terminal editor with a friendly keyboard layout."
        nano.section = "text"
        try sandbox.write([nano])
        let updated = try await indexer.update()
        #expect(updated.indexed == 1 && updated.deleted == 0)
        #expect(try sandbox.keys("pico").isEmpty)
        #expect(try sandbox.keys("keyboard") == ["nano"])
        let hit = try #require(try sandbox.makeSearcher().search(SearchRequest("keyboard")).hits.first)
        #expect(hit.fields["section"] == .text("text"))
        #expect(hit.fields["summary"] == .text("tiny terminal editor"))

        try sandbox.delete(["nano", "vim"])
        let deleted = try await indexer.update()
        #expect(deleted.deleted == 2 && deleted.indexed == 0)
        #expect(try sandbox.keys("keyboard").isEmpty)
        #expect(try sandbox.keys("editor").contains("vim") == false)
        #expect(try sandbox.makeSearcher().documentCount() == SamplePackage.catalogue.count - 2)
    }

    @Test("a row inserted then deleted before the update never appears; a re-insert does")
    func changesSinceReadFromCurrentRows() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(2)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()

        try sandbox.write([SamplePackage.named("gimp")])
        try sandbox.delete(["gimp"])
        try sandbox.write([SamplePackage.named("inkscape")])
        try sandbox.delete(["inkscape"])
        try sandbox.write([SamplePackage.named("inkscape")])
        let summary = try await indexer.update()
        #expect(summary.transactions == 5)
        #expect(try sandbox.keys("gimp").isEmpty)
        #expect(try sandbox.keys("inkscape") == ["inkscape"])
        #expect(try sandbox.makeSearcher().documentCount() == 3)
    }

    @Test("a write by the sqlite3 shell, which knows nothing of Spotlite, is indexed")
    func foreignWrite() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(Array(SamplePackage.catalogue.prefix(2)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()

        try sandbox.sqlite3("""
            INSERT INTO Package (name, summary, description, section) VALUES ('htop', 'interactive processes viewer', 'htop is an ncurses-based process viewer', 'utils');
            UPDATE Package SET summary = 'a modal editor from the shell' WHERE name = 'vim';
            """)
        let summary = try await indexer.update()
        #expect(summary.indexed == 2)
        #expect(try sandbox.keys("ncurses").contains("htop"))
        #expect(try sandbox.keys("modal") == ["vim"])
        let history = try sandbox.store.fetchHistory(.after(nil))
        #expect(history.last?.author == nil, "the shell's write is an unattributed transaction")
        #expect(try sandbox.indexToken() == history.last?.token)
    }

    @Test("an update of a column that is not indexed reindexes nothing")
    func nonIndexedColumn() async throws {
        let sandbox = try IndexerSandbox(prepareSQL: """
            CREATE TABLE Package (name TEXT PRIMARY KEY NOT NULL, summary TEXT, description TEXT, maintainer TEXT,
              section TEXT, tags TEXT, version TEXT, released, size, popularity INTEGER);
            """)
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let updates = indexer.indexUpdates()

        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET popularity = 42 WHERE name IN ('vim', 'grep')")
        }
        let token = try sandbox.store.currentToken()
        let changes = try sandbox.store.fetchHistory(.after(try sandbox.indexToken())).flatMap(\.changes)
        #expect(changes.count == 2 && changes.allSatisfy { $0.updatedColumns == ["popularity"] })
        let summary = try await indexer.update()
        #expect(summary.changes == 2)
        #expect(summary.indexed == 0 && summary.deleted == 0)
        #expect(summary.token == token, "the token still moves past the ignored changes")
        #expect(try sandbox.indexToken() == token)

        // An indexed column does reindex.
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET summary = 'a lunar editor', popularity = 7 WHERE name = 'vim'")
        }
        #expect(try await indexer.update().indexed == 1)
        #expect(try sandbox.keys("lunar") == ["vim"])
        let first = try #require(try await within("the first index update") {
            var iterator = updates.makeAsyncIterator()
            return await iterator.next()
        })
        #expect(first.token == token && first.summary.indexed == 0)
    }

    @Test("a stored field is reindexed when it changes: hits return it")
    func storedFieldChange() async throws {
        let sandbox = try IndexerSandbox()
        try sandbox.write(SamplePackage.catalogue)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "UPDATE Package SET version = '9.9' WHERE name = 'grep'")
        }
        #expect(try await indexer.update().indexed == 1)
        let hit = try #require(try sandbox.makeSearcher().search(SearchRequest("name:grep")).hits.first)
        #expect(hit.fields["version"] == .text("9.9"))
    }

    @Test("changes are committed in batches of batch_size, each with its token")
    func batches() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 7")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let updates = indexer.indexUpdates()
        // 30 single-row transactions and one transaction of 20 rows.
        for number in 0..<30 {
            try sandbox.write([SamplePackage(name: "single\(number)", summary: "single row number \(number)")])
        }
        try sandbox.write((0..<20).map { SamplePackage(name: "bulk\($0)", summary: "bulk row") })
        let token = try sandbox.store.currentToken()
        let summary = try await indexer.update()
        #expect(summary.transactions == 31)
        #expect(summary.indexed == 50)
        #expect(summary.token == token)
        #expect(try sandbox.makeSearcher().documentCount() == 51)

        let seen = try await within("index updates through token \(String(describing: token))") {
            var seen: [IndexDidUpdate] = []
            for await update in updates {
                seen.append(update)
                if update.token == token { break }
            }
            return seen
        }
        #expect(seen.count >= 50 / 7, "one commit per batch of 7 changes")
        let tokens = seen.compactMap(\.token)
        #expect(tokens == tokens.sorted(), "tokens only move forward")
        #expect(try sandbox.store.position(of: sandbox.configuration.indexer.author)?.token == token)
    }

    @Test("small transactions are read a page of at most a batch of changes at a time and committed by batch")
    func pagesAndCommits() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 1000")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let updates = indexer.indexUpdates()
        let transactions = 250
        for number in 0..<transactions {
            try sandbox.write([SamplePackage(name: "paged\(number)", summary: "paged row")])
        }
        let token = try sandbox.store.currentToken()
        let summary = try await indexer.update()
        #expect(summary.transactions == transactions && summary.indexed == transactions)
        #expect(summary.token == token)
        #expect(try sandbox.makeSearcher().search(SearchRequest("paged", limit: 0)).total == transactions)
        let commits = try await within("index updates through token \(String(describing: token))") {
            var commits: [IndexDidUpdate] = []
            for await update in updates {
                commits.append(update)
                if update.token == token { break }
            }
            return commits
        }
        #expect(commits.count == 1, "\(transactions) small transactions, one batch: one commit")
    }

    @Test("a transaction bigger than the batch is committed in pieces; its token only with its last piece")
    func bigTransaction() async throws {
        let sandbox = try IndexerSandbox(indexer: "batch_size = 10")
        try sandbox.write([SamplePackage.named("vim")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let before = try sandbox.indexToken()
        let updates = indexer.indexUpdates()
        try sandbox.write((0..<35).map { SamplePackage(name: "big\($0)", summary: "big transaction") })
        let token = try sandbox.store.currentToken()
        let summary = try await indexer.update()
        #expect(summary.transactions == 1 && summary.changes == 35 && summary.indexed == 35)
        let commits = try await within("index updates through token \(String(describing: token))") {
            var commits: [IndexDidUpdate] = []
            for await update in updates {
                commits.append(update)
                if update.token == token { break }
            }
            return commits
        }
        #expect(commits.count == 4)
        #expect(commits.dropLast().allSatisfy { $0.token == before }, "pieces are committed under the previous token")
        #expect(try sandbox.makeSearcher().documentCount() == 36)
    }

    @Test("the indexer's checkpoint follows each commit and blocks cleanup of history it has not indexed")
    func checkpointBlocksCleanup() async throws {
        let sandbox = try IndexerSandbox()
        let author = sandbox.configuration.indexer.author
        try sandbox.write(Array(SamplePackage.catalogue.prefix(3)))
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let indexed = try #require(try sandbox.indexToken())
        #expect(try sandbox.store.position(of: author)?.token == indexed)

        // The app has read everything; the indexer has not seen the newer writes.
        try sandbox.write([SamplePackage.named("gimp")])
        try sandbox.write([SamplePackage.named("inkscape")])
        let newest = try #require(try sandbox.store.currentToken())
        try sandbox.store.setPosition(newest, for: "app")
        let deleter = HistoryDeleter(store: sandbox.store, policy: sandbox.configuration.deletionPolicy)
        let result = try deleter.deleteConsumedHistory()
        #expect(result.watermark == indexed, "the indexer's position is the lowest")
        #expect(try sandbox.store.countHistory(.after(indexed)) == 2, "history the indexer needs is kept")

        let summary = try await indexer.update()
        #expect(!summary.rebuilt, "no rebuild: the history was there")
        #expect(summary.indexed == 2)
        #expect(try sandbox.store.position(of: author)?.token == newest)
        #expect(try deleter.deleteConsumedHistory().watermark == newest)
        #expect(try sandbox.keys("inkscape") == ["inkscape"])
    }

    @Test("keys of any length get a unique id term under Xapian's term limit")
    func longKeys() async throws {
        let sandbox = try IndexerSandbox()
        let long = String(repeating: "k", count: 400)
        let almost = String(repeating: "k", count: 399) + "j"
        let hashLike = "#" + String(repeating: "0", count: 32)
        try sandbox.write([SamplePackage(name: long, summary: "first long key"),
                           SamplePackage(name: almost, summary: "second long key"),
                           SamplePackage(name: hashLike, summary: "hash lookalike key")])
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        #expect(try sandbox.makeSearcher().documentCount() == 3)
        #expect(DocumentIdentity.term(entity: "Package", keyText: long) != DocumentIdentity.term(entity: "Package", keyText: almost))
        #expect(DocumentIdentity.term(entity: "Package", keyText: long).utf8.count < 245)

        try sandbox.write([SamplePackage(name: long, summary: "first long key renamed")])
        try sandbox.delete([almost])
        try await indexer.update()
        let hits = try sandbox.makeSearcher().search(SearchRequest("\"long key\"")).hits
        #expect(hits.map(\.key) == [.text(long)])
        #expect(hits.first?.fields["summary"] == .text("first long key renamed"))
        #expect(try sandbox.keys("lookalike") == [hashLike])
    }

    @Test("over-long keyword values and words never fail a batch")
    func overLongValues() async throws {
        let field = "a" + String(repeating: "b", count: 63)
        let sandbox = try IndexerSandbox(entities: """
            [entities.Note]
            key = "id"
            [entities.Note.fields]
            id = { type = "number" }
            body = { type = "text" }
            \(field) = { type = "keyword", separator = ",", facet = true }
            """)
        let longValue = String(repeating: "v", count: 200)
        let nulValue = "x" + String(repeating: "\u{0}", count: 120)
        try sandbox.store.write(author: "app") { db in
            try db.execute(sql: "INSERT INTO Note (id, body, \(field)) VALUES (1, ?, ?)",
                           arguments: [String(repeating: "w", count: 300) + " findable", "short," + longValue + "," + nulValue])
            try db.execute(sql: "INSERT INTO Note (id, body, \(field)) VALUES (2, 'other', 'short')")
        }
        let indexer = try sandbox.makeIndexer()
        let summary = try await indexer.update()
        #expect(summary.indexed == 2)
        let searcher = try sandbox.makeSearcher()
        #expect(try searcher.search(SearchRequest("findable")).hits.map(\.key) == [.integer(1)])
        let filtered = try searcher.search(SearchRequest("", filters: [SearchFilter(field: field, value: "short")]))
        #expect(filtered.hits.count == 2)
    }
}

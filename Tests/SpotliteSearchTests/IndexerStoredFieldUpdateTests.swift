import Foundation
import GRDB
import Synchronization
import Testing
@testable import SpotliteSearch
@testable import SpotliteStore
import Spotlite

/// The documents the indexer writes, by id term: how many terms each held (0 for values and data alone).
final class WrittenDocuments: Sendable {
    private let terms = Mutex<[String: [Int]]>([:])

    var hook: @Sendable (String, XapianDocument) throws -> Void {
        { [self] idTerm, document in
            let count = try document.termCount()
            terms.withLock { $0[idTerm, default: []].append(count) }
        }
    }

    /// The term counts written for each document, and forgets them.
    func take() -> [String: [Int]] {
        terms.withLock { written in
            defer { written = [:] }
            return written
        }
    }
}

/// Updates that change only stored fields and values (a version, a size, a date) rewrite a document without its
/// terms; what searches see is what a rebuild of the same rows gives.
@Suite("Updates of stored fields and values", .blockingWork)
struct IndexerStoredFieldUpdateTests {
    /// Every hit of `query` sorted as asked, with its score and stored fields.
    private func answers(_ sandbox: IndexerSandbox, _ query: String, sort: SearchSort = .relevance)
        throws -> [String] {
        let results = try sandbox.makeSearcher().search(SearchRequest(query, limit: 100, sort: sort, correctsSpelling: false))
        return results.hits.map { hit in
            let fields = hit.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            return "\(hit.key) \(String(format: "%.9f", hit.score)) \(fields)"
        } + ["total \(results.total)"]
    }

    @Test("stored fields, numbers and dates changed: hits show the new values, in the order a rebuild gives")
    func storedFieldsAndValues() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        let packages = ShardedIndexTests.generatedPackages(count: 80)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let spellings = try IndexerSpellingTests.spellings(sandbox)

        let changed = packages[0..<30].enumerated().map { index, package in
            var copy = package
            copy.version = "2.\(index)"
            copy.size = 20_000 + index
            copy.released = "2024-02-\(String(format: "%02d", 1 + index % 28))"
            return copy
        }
        try sandbox.write(changed)
        let written = WrittenDocuments()
        await indexer.setDocumentWriteHook(written.hook)
        let summary = try await indexer.update()
        #expect(!summary.rebuilt && summary.indexed == 30)
        #expect(try IndexerSpellingTests.spellings(sandbox) == spellings, "the text did not change")
        let counts = written.take()
        #expect(counts.count == 30)
        #expect(counts.values.allSatisfy { $0 == [0] }, "values and data alone were built: \(counts)")
        await indexer.setDocumentWriteHook(nil)

        let queries: [(String, SearchSort)] = [
            ("search engine", .relevance), ("size:20000..20029", .relevance), ("fast", .field("size", ascending: false)),
            ("released:2024-02-01..2024-02-28", .field("released", ascending: true)), ("\"text editor\"", .relevance),
        ]
        let incremental = try queries.map { try answers(sandbox, $0.0, sort: $0.1) }
        let newest = try sandbox.makeSearcher().search(SearchRequest("size:20029..20029", limit: 5))
        #expect(newest.hits.map(\.key.description) == [changed[29].name])
        #expect(newest.hits.first?.fields["size"] == .integer(20_029))
        #expect(newest.hits.first?.fields["released"] == .text(changed[29].released ?? ""))
        #expect(try sandbox.makeSearcher().search(SearchRequest("size:20000..20029", limit: 50)).total == 30)

        #expect(try await indexer.rebuild().rebuilt)
        let rebuilt = try queries.map { try answers(sandbox, $0.0, sort: $0.1) }
        for (index, query) in queries.enumerated() {
            #expect(incremental[index] == rebuilt[index], "\(query.0)")
        }
        #expect(try IndexerSpellingTests.spellings(sandbox) == spellings)
    }

    @Test("text and stored fields changed in the same batch as stored fields alone: each document as a rebuild writes it")
    func mixedBatch() async throws {
        let sandbox = try IndexerSandbox(top: "shards = 2")
        let packages = ShardedIndexTests.generatedPackages(count: 60)
        try sandbox.write(packages)
        let indexer = try sandbox.makeIndexer()
        try await indexer.update()
        let written = WrittenDocuments()
        await indexer.setDocumentWriteHook(written.hook)
        for round in 0..<3 {
            let changed = packages.enumerated().map { index, package in
                var copy = package
                copy.version = "\(round).\(index)"
                if index.isMultiple(of: 3) { copy.summary += " zebra\(round)" }
                if index.isMultiple(of: 5) { copy.size = round * 1000 + index }
                return copy
            }
            try sandbox.write(changed)
            #expect(try await indexer.update().indexed == 60)
            let counts = written.take()
            for (index, package) in packages.enumerated() {
                let written = counts[DocumentIdentity.term(entity: "Package", key: package.name.databaseValue)] ?? []
                if index.isMultiple(of: 3) {
                    #expect(written.count == 1 && written.allSatisfy { $0 > 0 }, "\(package.name), round \(round): \(written)")
                } else {
                    #expect(written == [0], "\(package.name), round \(round): values and data alone")
                }
            }
        }
        let queries = ["zebra2", "search engine", "size:2000..2059", "fast -game"]
        let incremental = try queries.map { try answers(sandbox, $0) }
        let spellings = try IndexerSpellingTests.spellings(sandbox)
        #expect(try await indexer.rebuild().rebuilt)
        #expect(try queries.map { try answers(sandbox, $0) } == incremental)
        #expect(try IndexerSpellingTests.spellings(sandbox) == spellings)
    }

    @Test("which records keep their terms: those whose every change updated only stored, number or date columns")
    func classification() throws {
        let sandbox = try IndexerSandbox()
        let schema = try IndexSchema(configuration: sandbox.configuration)
        var changeID: Int64 = 0
        func change(_ key: String, _ type: HistoryChangeType, _ columns: [String]? = nil, entity: String = "Package")
            -> HistoryChange {
            changeID += 1
            return HistoryChange(changeID: changeID, token: HistoryToken(1), entity: entity, key: key.databaseValue,
                                 changeType: type, updatedColumns: type == .update ? columns : nil)
        }
        func transaction(_ changes: [HistoryChange]) -> HistoryTransaction {
            HistoryTransaction(token: HistoryToken(1), timestamp: Date(), author: "app", contextName: nil,
                               processID: nil, changes: changes)
        }
        let kept = IndexUpdater.recordsWithUnchangedTerms([
            transaction([change("a", .update, ["version"]), change("b", .update, ["size", "released"]),
                         change("c", .update, ["summary"]), change("d", .insert), change("e", .update, nil),
                         change("f", .update, ["version"]), change("g", .update, ["tags"]),
                         change("h", .update, ["name"]), change("i", .update, ["version"], entity: "Other")]),
            transaction([change("f", .update, ["description"]), change("c", .update, ["version"]),
                         change("j", .update, ["version"]), change("j", .delete)]),
        ], schema: schema)
        #expect(kept == Set(["a", "b"].map { ExactText(DocumentIdentity.term(entity: "Package", key: $0.databaseValue)) }))
    }
}

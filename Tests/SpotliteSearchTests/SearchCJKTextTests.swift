import Foundation
import Spotlite
import SpotliteTestSupport
import Testing

/// Chinese, Japanese and Korean text: written without spaces between words, so a run of such characters is split
/// into one- and two-character terms when indexed and when queried; otherwise a word inside the run is never found.
@Suite("CJK text", .blockingWork)
struct SearchCJKTextTests {
    static let notes: [(id: String, title: String, body: String)] = [
        ("ja", "旅行", "東京タワーは高いです。日本の首都"),
        ("zh", "工具", "我们喜欢搜索引擎"),
        ("ko", "인사", "안녕하세요 세계"),
        ("mixed", "mixed", "Swift と Xapian で全文検索"),
        ("en", "plain", "an English note about search engines"),
    ]

    @Test("a word inside a run of CJK characters is found, in a field and by phrase; other words do not match")
    func wordsInsideRuns() async throws {
        try await withIndexedNotes { searcher, _ in
            let expected: [(query: String, keys: Set<String>)] = [
                ("タワー", ["ja"]), ("日本", ["ja"]), ("首都", ["ja"]), ("\"東京タワー\"", ["ja"]), ("東京 首都", ["ja"]),
                ("搜索", ["zh"]), ("引擎", ["zh"]), ("세계", ["ko"]), ("안녕", ["ko"]), ("全文", ["mixed"]),
                ("xapian", ["mixed"]), ("title:旅行", ["ja"]), ("搜索 OR 首都", ["zh", "ja"]),
                // Kyoto: its two characters each occur in the Japanese note, but not together.
                ("京都", []), ("\"首都東京\"", []),
            ]
            for (query, keys) in expected {
                let results = try searcher.search(SearchRequest(query, correctsSpelling: false))
                #expect(Set(results.hits.map { $0.key.description }) == keys, "\(query)")
            }
        }
    }

    @Test("snippets mark the CJK words of the query")
    func snippetsMarkWords() async throws {
        try await withIndexedNotes { searcher, _ in
            let request = SearchRequest("首都", snippet: SnippetOptions(highlightStart: "[", highlightEnd: "]"))
            let hit = try #require(try searcher.search(request).hits.first)
            // Xapian marks each character of a CJK word (its unigrams), and nothing else.
            #expect(hit.snippet == "東京タワーは高いです。日本の[首][都]")
        }
    }

    @Test("an update replaces the CJK words of a record")
    func updateReplacesWords() async throws {
        try await withIndexedNotes { searcher, update in
            try await update("UPDATE Note SET body = '大阪城は美しい' WHERE id = 'ja'")
            #expect(try searcher.search(SearchRequest("首都", correctsSpelling: false)).hits.isEmpty)
            #expect(try searcher.search(SearchRequest("大阪", correctsSpelling: false)).hits.map { $0.key.description } == ["ja"])
        }
    }

    /// The notes in a store and an up-to-date index; `body` gets the searcher and a way to run SQL as author `app`
    /// and bring the index up to date.
    private func withIndexedNotes(
        _ body: (IndexSearcher, (String) async throws -> Void) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cjk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = SpotliteConfiguration(
            storePath: directory + "/notes.sqlite", indexPath: directory + "/search",
            entities: [EntityConfiguration(name: "Note", key: "id", fields: [
                .text("title", weight: 3, prefix: "title", store: true), .text("body"),
            ])])
        let store = try SpotliteStore(path: configuration.storePath, model: configuration.storeModel)
        try store.write(author: "app", context: "test") { db in
            for note in Self.notes {
                try db.execute(sql: "INSERT INTO Note (id, title, body) VALUES (?, ?, ?)",
                               arguments: [note.id, note.title, note.body])
            }
        }
        let indexer = try SpotliteIndexer(store: store, configuration: configuration)
        try await indexer.update()
        let searcher = try IndexSearcher(configuration: configuration, store: store)
        try await body(searcher) { sql in
            try store.write(author: "app", context: "test") { db in try db.execute(sql: sql) }
            try await indexer.update()
        }
    }
}

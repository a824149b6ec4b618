import Foundation

/// The keyword and semantic lists of every query of a run, with the judgements, written by
/// `spotlite-bench relevance --lists-output` so that fusions can be studied without ranking again.
struct RankedLists: Codable {
    struct Query: Codable {
        var id: String
        var text: String
        var keyword: [String]
        var semantic: [String]
        var grades: [String: Int]
    }

    struct KnownItem: Codable {
        var text: String
        var target: String
        var keyword: [String]
        var semantic: [String]
    }

    var queries: [Query]
    var knownItems: [KnownItem]

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

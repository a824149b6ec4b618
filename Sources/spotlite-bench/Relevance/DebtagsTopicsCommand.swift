import ArgumentParser
import Foundation

/// `spotlite-bench debtags-topics`: a second ad-hoc test collection over the Debian catalogue, judged by people.
///
/// Debtags are topic labels that Debian contributors assign to packages by hand (`works-with::image`,
/// `field::astronomy`, …); their vocabulary (the `debtags` package's `/usr/share/debtags/vocabulary`) describes
/// each tag in words. Each tag becomes a query — its short description ("title" queries, 1–5 words) or its short and
/// long descriptions ("description" queries, a sentence or two) — and the packages carrying the tag are its relevant
/// documents. Tags of facets about how a package is built rather than what it is for (implemented-in, role, interface,
/// uitoolkit, x11, made-of, scope, special, suite) are left out, and so are tags with fewer than 10 or more than
/// 1,000 packages. Spotlite's configuration indexes `tags` as keywords (filter terms), so the query words never
/// match the judgements themselves. The judgements are incomplete (many packages are untagged), which lowers every
/// engine's figures alike.
struct DebtagsTopicsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debtags-topics",
        abstract: "Write a test collection (queries and qrels) from Debtags over the Debian catalogue corpus.")

    @Option(help: "The Debian catalogue: JSON Lines (optionally .xz) with name and tags.")
    var corpus = "../shared/corpus/debian-packages.jsonl.xz"
    @Option(help: "The Debtags vocabulary (install the debtags package).")
    var vocabulary = "/usr/share/debtags/vocabulary"
    @Option(help: "Directory to write queries-title.tsv, queries-description.tsv and qrels.txt to.")
    var output: String

    static let excludedFacets: Set<String> = [
        "implemented-in", "role", "interface", "uitoolkit", "x11", "made-of", "scope", "special", "suite",
    ]
    static let packageRange = 10...1000

    func run() throws {
        guard let vocabularyText = FileManager.default.contents(atPath: vocabulary).map({ String(decoding: $0, as: UTF8.self) }) else {
            throw BenchError("cannot read the Debtags vocabulary \(vocabulary); install it with `apt-get install debtags` or pass --vocabulary")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-debtags-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let records = try Corpus.prepare(source: corpus, limit: nil, key: "name", destination: work).records
        var packages: [String: [String]] = [:]
        for record in records {
            guard let name = record["name"], let tags = record["tags"] else { continue }
            for tag in tags.split(whereSeparator: { $0 == " " || $0 == "," }) { packages[String(tag), default: []].append(name) }
        }
        let topics = Self.topics(vocabulary: vocabularyText).filter { topic in
            !Self.excludedFacets.contains(String(topic.tag.prefix { $0 != ":" }))
                && Self.packageRange.contains(packages[topic.tag]?.count ?? 0)
        }
        guard !topics.isEmpty else {
            throw BenchError("no Debtags tag of the vocabulary has \(Self.packageRange.lowerBound)–\(Self.packageRange.upperBound) packages in \(corpus); check that the corpus has a tags field")
        }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        func clean(_ text: String) -> String { text.replacingOccurrences(of: "\t", with: " ") }
        let title = topics.map { "\($0.tag)\t\(clean($0.short))\n" }.joined()
        let description = topics.map { "\($0.tag)\t\(clean($0.short + ". " + $0.long))\n" }.joined()
        let qrels = topics.flatMap { topic in (packages[topic.tag] ?? []).sorted().map { "\(topic.tag) 0 \($0) 1\n" } }.joined()
        for (file, text) in [("queries-title.tsv", title), ("queries-description.tsv", description), ("qrels.txt", qrels)] {
            try text.write(toFile: output + "/" + file, atomically: true, encoding: .utf8)
        }
        print("\(topics.count) Debtags topics, \(qrels.split(separator: "\n").count) judgements written to \(output)")
    }

    struct Topic {
        var tag: String
        var short: String
        var long: String
    }

    /// The tags of a Debtags vocabulary (RFC 822-style stanzas): each `Tag:` with its `Description:` line and the
    /// first paragraph of its continuation lines.
    static func topics(vocabulary: String) -> [Topic] {
        var topics: [Topic] = []
        for stanza in vocabulary.components(separatedBy: "\n\n") {
            var tag: String?
            var short: String?
            var long: [String] = []
            var inDescription = false
            for line in stanza.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("Tag: ") {
                    tag = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                    inDescription = false
                } else if line.hasPrefix("Description: ") {
                    short = line.dropFirst(13).trimmingCharacters(in: .whitespaces)
                    inDescription = true
                } else if inDescription, line.hasPrefix(" ") {
                    let text = line.trimmingCharacters(in: .whitespaces)
                    if text == "." { inDescription = false } else { long.append(text) }
                } else {
                    inDescription = false
                }
            }
            if let tag, let short, !short.isEmpty { topics.append(Topic(tag: tag, short: short, long: long.joined(separator: " "))) }
        }
        return topics
    }
}

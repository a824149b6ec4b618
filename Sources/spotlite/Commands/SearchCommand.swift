import ArgumentParser
import Foundation
import Spotlite

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the index.",
        discussion: """
        The words are joined with spaces and parsed with Xapian's query syntax: words, "phrases", AND/OR/NOT, \
        +must/-mustnot, wildcards foo*, field prefixes name:foo, keyword filters section:utils, ranges size:10..20. \
        Quote the query for your shell when it has quotes or brackets. When a query finds nothing and a spelling \
        correction exists, the corrected query is run instead (and said so).
        """
    )

    @Argument(help: ArgumentHelp("The query.", valueName: "query"))
    var words: [String] = []

    @Option(name: .customLong("entity"), help: ArgumentHelp("Only this entity (repeatable).", valueName: "name"))
    var entities: [String] = []

    @Option(name: .customLong("filter"), help: ArgumentHelp("Only records whose keyword FIELD has VALUE (repeatable).", valueName: "field:value"))
    var filters: [String] = []

    @Option(parsing: .unconditional, help: "How many hits to show (0 to 10,000).")
    var limit = 10

    @Option(parsing: .unconditional, help: "How many hits to skip (0 to 1,000,000).")
    var offset = 0

    @Option(help: ArgumentHelp("relevance, FIELD (ascending) or -FIELD (descending, written --sort=-FIELD), for sortable fields.", valueName: "order"))
    var sort = "relevance"

    @Option(name: .customLong("facet"), help: ArgumentHelp("Count the values of this facet field among all matches (repeatable).", valueName: "field"))
    var facets: [String] = []

    @Option(help: ArgumentHelp("Run one query per line of FILE (- for stdin); with --json, one JSON line per query.", valueName: "file"))
    var queries: String?

    @Flag(help: "Print results as JSON.")
    var json = false

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        try OptionRange.check(limit, in: OptionRange.searchLimit, option: "--limit",
                              hint: "; page through more hits with --offset")
        try OptionRange.check(offset, in: OptionRange.searchOffset, option: "--offset")
        if queries == nil && words.isEmpty && filters.isEmpty && entities.isEmpty {
            throw ValidationError("give a query (e.g. `spotlite search xapian`), a --filter, or --queries FILE")
        }
    }

    func run() async throws {
        let environment = try CommandEnvironment(options: options)
        try environment.requireEntities()
        let store = try environment.openStore(create: false)
        let searcher = try IndexSearcher(configuration: environment.configuration, store: store)
        let parsedFilters = try filters.map(SearchFilter.init(parsing:))
        let highlight = !json && Terminal.stdoutIsTerminal
        func request(_ text: String) -> SearchRequest {
            SearchRequest(text, entities: entities, filters: parsedFilters, offset: offset, limit: limit,
                          sort: SearchSort(parsing: sort), facets: facets,
                          snippet: SnippetOptions(highlightStart: highlight ? Terminal.bold : "",
                                                  highlightEnd: highlight ? Terminal.reset : "", format: .plain))
        }
        if let queries {
            let text: String
            if queries == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let data = FileManager.default.contents(atPath: queries) else {
                    throw CommandFailure(message: "cannot read \(queries): no such file or not readable; check the path")
                }
                guard let decoded = String(data: data, encoding: .utf8) else {
                    throw CommandFailure(message: "\(queries) is not UTF-8 text; convert it (e.g. with iconv)")
                }
                text = decoded
            }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let query = line.trimmingCharacters(in: .whitespaces)
                if query.isEmpty { continue }
                do {
                    let results = try searcher.search(request(query))
                    if json { JSONOutput.print(results.jsonObject) } else { print(render(results)); print("") }
                } catch let error as SearchError {
                    throw CommandFailure(message: "line \(number + 1) of \(queries): \(error)")
                }
            }
            return
        }
        let results = try searcher.search(request(words.joined(separator: " ")))
        if json {
            JSONOutput.print(results.jsonObject)
        } else {
            print(render(results))
        }
    }

    private func render(_ results: SearchResults) -> String {
        var lines: [String] = []
        if let corrected = results.corrected {
            lines.append("No results for \"\(results.query)\"; showing results for \(Terminal.strong(corrected)).")
        } else if results.hits.isEmpty, let suggestion = results.suggestion, !suggestion.isEmpty, suggestion != results.query {
            lines.append("Did you mean \(Terminal.strong(suggestion))?")
        }
        if results.hits.isEmpty {
            lines.append("No results for \"\(results.query)\".")
        }
        for hit in results.hits {
            let key = hit.key.description
            var header = "\(hit.rank). " + Terminal.strong(key) + "  " + Terminal.faint("\(hit.entity) · \(hit.percent)%")
            if let summary = hit.fields["summary"], key != summary.description {
                header += "  " + summary.description
            }
            lines.append(header)
            let otherFields = hit.fields.filter { $0.key != "summary" && $0.value.description != key }
                .sorted { $0.key < $1.key }
                .map { "\($0.key): \($0.value.description.prefix(80))" }
            if !otherFields.isEmpty { lines.append("   " + Terminal.faint(otherFields.joined(separator: "  "))) }
            if !hit.snippet.isEmpty {
                lines.append("   " + hit.snippet.replacingOccurrences(of: "\n", with: " "))
            }
        }
        for field in results.facets.keys.sorted() {
            let counts = results.facets[field]!.prefix(12).map { "\($0.value) (\(Terminal.number($0.count)))" }
            lines.append("\(Terminal.strong(field)): " + (counts.isEmpty ? "no values" : counts.joined(separator: ", ")))
        }
        let shown = results.hits.isEmpty ? "" : " (showing \(results.hits.first!.rank)–\(results.hits.last!.rank))"
        lines.append(Terminal.faint("About \(Terminal.number(results.total)) results\(shown) in \(Terminal.duration(results.seconds))."))
        return lines.joined(separator: "\n")
    }
}

import Foundation
import Spotlite
import Synchronization

/// Fuzzes the query path through the Swift API (`IndexSearcher.search`), in this process: query text from
/// ``QueryGenerator`` plus random entities, filters, paging, sort orders and facets.
///
/// Every search must either answer or throw a ``SearchError`` that names the problem and the way out. A crash ends
/// this process (the query being run is in `last-query.txt` of the workspace); a search running past the hang limit
/// makes the watchdog print it and exit.
struct QueryFuzzer {
    struct Outcome {
        var queries = 0
        var answered = 0
        var rejected = 0
        /// Failures that were not a clear SearchError.
        var unclear: [String] = []
        var slowest = 0.0
        var slowestQuery = ""
        var seconds = 0.0
        var errorKinds: [String: Int] = [:]
    }

    let searcher: IndexSearcher
    let lastQueryPath: String
    static let hangLimitSeconds = 120.0

    func run(count: Int, generator: inout QueryGenerator) -> Outcome {
        var outcome = Outcome()
        let watchdog = Watchdog(limit: Self.hangLimitSeconds)
        watchdog.start()
        defer { watchdog.stop() }
        let started = ContinuousClock.now
        for _ in 0..<count {
            var request = SearchRequest(generator.query(), snippet: SnippetOptions(length: generator.chance(0.5) ? 200 : 0))
            if generator.chance(0.3) { request.entities = [generator.entity()] }
            if generator.chance(0.3) {
                let filter = generator.filter()
                request.filters = [SearchFilter(field: filter.field, value: filter.value)]
            }
            if generator.chance(0.2) { (request.offset, request.limit) = generator.paging() }
            if generator.chance(0.2) { request.sort = SearchSort(parsing: generator.sort()) }
            if generator.chance(0.2) { request.facets = [generator.facet()] }
            if generator.chance(0.2) { request.defaultOperator = .and }
            let summary = Self.describe(request)
            try? Data(summary.utf8).write(to: URL(fileURLWithPath: lastQueryPath))
            watchdog.begin(summary)
            let queryStart = ContinuousClock.now
            do {
                _ = try searcher.search(request)
                outcome.answered += 1
            } catch let error as SearchError {
                if case .engine = error {
                    outcome.unclear.append("\(summary) → \(error)")
                } else if !Self.isClear(error.description) {
                    outcome.unclear.append("\(summary) → unclear message: \(error)")
                } else {
                    outcome.rejected += 1
                    outcome.errorKinds[Self.kind(of: error), default: 0] += 1
                }
            } catch {
                outcome.unclear.append("\(summary) → \(type(of: error)): \(error)")
            }
            let elapsed = (ContinuousClock.now - queryStart).seconds
            watchdog.end()
            if elapsed > outcome.slowest {
                outcome.slowest = elapsed
                outcome.slowestQuery = String(summary.prefix(80))
            }
            outcome.queries += 1
        }
        outcome.seconds = (ContinuousClock.now - started).seconds
        return outcome
    }

    /// A clear message names the problem, then the way out after a semicolon, or shows an example.
    static func isClear(_ message: String) -> Bool {
        message.contains("; ") || message.contains("e.g. ")
    }

    static func kind(of error: SearchError) -> String {
        switch error {
        case .invalidQuery: "invalid query"
        case .overBudget: "over budget"
        case .unknownEntity: "unknown entity"
        case .unknownField: "unknown field"
        case .invalidFilter: "invalid filter"
        case .indexMissing: "index missing"
        case .indexCorrupt: "index corrupt"
        case .indexLocked: "index locked"
        case .cannotWrite: "cannot write"
        case .historyDeletedWhileRebuilding: "history deleted while rebuilding"
        case .engine: "engine"
        case .indexingRunning: "indexing running"
        case .invalidQuerySet: "invalid query set"
        case .invalidRanking: "invalid ranking"
        case .shardUnavailable: "shard unavailable"
        case .shardIdentityChanged: "shard identity changed"
        case .indexPartlyDeleted: "index partly deleted"
        }
    }

    /// The request in one line, with control characters escaped, for failure messages.
    static func describe(_ request: SearchRequest) -> String {
        var text = "query \"\(escaped(String(request.query.prefix(120))))\""
        if request.query.count > 120 { text += "…(\(request.query.utf8.count) bytes)" }
        if !request.entities.isEmpty { text += " entities \(request.entities.map(escaped))" }
        if !request.filters.isEmpty { text += " filters \(request.filters.map { escaped($0.field) + ":" + escaped($0.value) })" }
        if request.offset != 0 || request.limit != 10 { text += " offset \(request.offset) limit \(request.limit)" }
        if request.sort != .relevance { text += " sort \(request.sort)" }
        if !request.facets.isEmpty { text += " facets \(request.facets.map(escaped))" }
        return text
    }

    static func escaped(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? String(format: "\\u{%X}", scalar.value) : String(scalar)
        }.joined())
    }
}

/// Ends the process when one search runs past a time limit (a hang), after saying which one.
final class Watchdog: Sendable {
    private struct State {
        var current: String?
        var since = ContinuousClock.now
        var stopped = false
    }

    private let state = Mutex(State())
    private let limit: Double

    init(limit: Double) {
        self.limit = limit
    }

    func start() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.5)
                let (stopped, hung) = state.withLock { state -> (Bool, String?) in
                    guard let current = state.current, (ContinuousClock.now - state.since).seconds > limit else {
                        return (state.stopped, nil)
                    }
                    return (state.stopped, current)
                }
                if stopped { return }
                if let hung {
                    FileHandle.standardError.write(Data("bad-input: hang: \(hung) ran for more than \(Int(limit)) s\n".utf8))
                    exit(3)
                }
            }
        }
        thread.start()
    }

    func begin(_ description: String) {
        state.withLock { $0.current = description; $0.since = .now }
    }

    func end() {
        state.withLock { $0.current = nil }
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }
}

import Foundation
import SpotliteSearch

/// The parameters of `/search`, from the query string or a JSON body (the same names; the repeatable ones are arrays
/// in JSON), checked as the command line checks its options, with the same sentences.
struct SearchParameters: Sendable, Equatable {
    var q = ""
    var entities: [String] = []
    var filters: [String] = []
    var limit = 10
    var offset = 0
    var sort = "relevance"
    var facets: [String] = []
    /// nil: the configuration's `[search] mode`.
    var mode: String?
    var prefix = false
    var allowPartial = false
    /// Snippets as HTML with the matched words in `<mark>` (the search page's); plain text otherwise, as the command
    /// line's JSON has them.
    var highlight = false

    static let maximumBodyBytes = 64 * 1024
    static let repeatable: Set<String> = ["entity", "filter", "facet"]
    static let names = ["q", "entity", "filter", "limit", "offset", "sort", "facet", "mode", "prefix", "allow_partial", "highlight"]
    /// The search modes a request may name; semantic and hybrid need the configuration's `[embeddings]`.
    static let modes = SearchMode.allCases.map(\.rawValue)
    static let limits = 0...SearchRequest.maximumLimit
    static let offsets = 0...SearchRequest.maximumOffset

    init() {}

    /// From a raw query string (`q=vim+editor&limit=5`), read as HTML forms and `curl --data-urlencode -G` write it:
    /// `+` is a space and `%XX` a byte of UTF-8, in names and values (a literal plus is `%2B`).
    init(queryString: String?) throws(Problem) {
        var pairs: [(name: String, value: String)] = []
        for field in (queryString ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.formDecoded(parts[0])
            pairs.append((name, parts.count > 1 ? try Self.formDecoded(parts[1]) : ""))
        }
        try self.init(query: pairs)
    }

    /// `text` with `+` read as a space and `%XX` as a byte, the bytes read as UTF-8. Decoded here, byte by byte:
    /// Foundation's replacing and percent-decoding go through `NSString` and character sets on Linux, a visible
    /// part of every request's processor time (docs/serve.md).
    static func formDecoded(_ text: Substring) throws(Problem) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { throw malformedEscape(text) }
                utf8.formIndex(after: &index)
                guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { throw malformedEscape(text) }
                utf8.formIndex(after: &index)
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        // Escapes that do not spell UTF-8 are refused like malformed ones.
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw malformedEscape(text) }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func malformedEscape(_ text: Substring) -> Problem {
        Problem(.badRequest, "the query string has a malformed %-escape in \"\(text.prefix(80))\"; encode a literal % as %25")
    }

    /// From a query string's parameters, in order.
    init(query: [(name: String, value: String)]) throws(Problem) {
        for (name, value) in query {
            switch name {
            case "q": q = q.isEmpty ? value : q + " " + value
            case "entity": entities.append(value)
            case "filter": filters.append(value)
            case "facet": facets.append(value)
            case "limit": limit = try Self.integer(value, name: name)
            case "offset": offset = try Self.integer(value, name: name)
            case "sort": sort = value
            case "mode": mode = value
            case "prefix": prefix = try Self.boolean(value, name: name)
            case "allow_partial": allowPartial = try Self.boolean(value, name: name)
            case "highlight": highlight = try Self.boolean(value, name: name)
            default: throw Self.unknown(name)
            }
        }
        try check()
    }

    /// From a JSON body: an object with the same names.
    init(json body: Data) throws(Problem) {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw Problem(.badRequest, "the body is not valid JSON (\(Self.reason(error))); send an object such as {\"q\": \"vim\", \"limit\": 5}")
        }
        guard let object = parsed as? [String: Any] else {
            throw Problem(.badRequest, "the body is JSON but not an object; send an object such as {\"q\": \"vim\", \"limit\": 5}")
        }
        for name in object.keys.sorted() {
            let value = object[name]!
            switch name {
            case "q": q = try Self.string(value, name: name)
            case "entity": entities = try Self.strings(value, name: name)
            case "filter": filters = try Self.strings(value, name: name)
            case "facet": facets = try Self.strings(value, name: name)
            case "limit": limit = try Self.integer(value, name: name)
            case "offset": offset = try Self.integer(value, name: name)
            case "sort": sort = try Self.string(value, name: name)
            case "mode": mode = try Self.string(value, name: name)
            case "prefix": prefix = try Self.boolean(value, name: name)
            case "allow_partial": allowPartial = try Self.boolean(value, name: name)
            case "highlight": highlight = try Self.boolean(value, name: name)
            default: throw Self.unknown(name)
            }
        }
        try check()
    }

    /// The command line's `validate()`: ranges, and something to search for.
    private func check() throws(Problem) {
        try Self.check(limit, in: Self.limits, name: "limit", hint: "; page through more hits with offset")
        try Self.check(offset, in: Self.offsets, name: "offset")
        if let mode, !Self.modes.contains(mode) {
            throw Problem(.badRequest, "mode must be keyword, semantic or hybrid, not \(mode.debugDescription)")
        }
        // Blank: only tabs and space separators (what Foundation's `.whitespaces` holds), checked without it.
        if q.unicodeScalars.allSatisfy({ $0 == "\t" || $0.properties.generalCategory == .spaceSeparator })
            && filters.isEmpty && entities.isEmpty {
            throw Problem(.badRequest, "give a query (q=vim), a filter or an entity")
        }
    }

    /// The library's request; a filter that is not `FIELD:VALUE` is an error with the command line's sentence.
    func request() throws(Problem) -> SearchRequest {
        let parsedFilters: [SearchFilter]
        do {
            parsedFilters = try filters.map(SearchFilter.init(parsing:))
        } catch let error as SearchError {
            throw Problem(.badRequest, error.commandLineDescription)
        } catch {
            throw Problem(.badRequest, "\(error)")
        }
        let snippet = highlight
            ? SnippetOptions(highlightStart: "<mark>", highlightEnd: "</mark>", format: .html)
            : SnippetOptions(format: .plain)
        return SearchRequest(q, entities: entities, filters: parsedFilters, offset: offset, limit: limit,
                             sort: SearchSort(parsing: sort), facets: facets, snippet: snippet, prefix: prefix)
    }

    private static func unknown(_ name: String) -> Problem {
        Problem(.badRequest, "unknown parameter \(name.debugDescription); the parameters are \(names.joined(separator: ", "))")
    }

    private static func check(_ value: Int, in range: ClosedRange<Int>, name: String, hint: String = "") throws(Problem) {
        if value < range.lowerBound { throw Problem(.badRequest, "\(name) must be ≥ \(range.lowerBound), not \(value)") }
        if value > range.upperBound {
            throw Problem(.badRequest, "\(name) must be ≤ \(grouped(range.upperBound)), not \(value)\(hint)")
        }
    }

    /// `10000` as `10,000`, as the command line writes numbers.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (number < 0 ? "-" : "") + result
    }

    private static func integer(_ value: String, name: String) throws(Problem) -> Int {
        guard let number = Int(value) else { throw Problem(.badRequest, "\(name) must be a whole number, not \(value.debugDescription)") }
        return number
    }

    private static func boolean(_ value: String, name: String) throws(Problem) -> Bool {
        switch value {
        case "true", "1", "": return true
        case "false", "0": return false
        default: throw Problem(.badRequest, "\(name) must be true or false, not \(value.debugDescription)")
        }
    }

    private static func string(_ value: Any, name: String) throws(Problem) -> String {
        guard let text = value as? String else { throw Problem(.badRequest, "\(name) must be a string in a JSON body, not \(describe(value))") }
        return text
    }

    private static func strings(_ value: Any, name: String) throws(Problem) -> [String] {
        guard let array = value as? [Any], let texts = array as? [String] else {
            throw Problem(.badRequest, "\(name) must be an array of strings in a JSON body, not \(describe(value))")
        }
        return texts
    }

    private static func integer(_ value: Any, name: String) throws(Problem) -> Int {
        guard let number = value as? NSNumber, !isBoolean(number), let whole = Int(exactly: number.doubleValue) else {
            throw Problem(.badRequest, "\(name) must be a whole number in a JSON body, not \(describe(value))")
        }
        return whole
    }

    private static func boolean(_ value: Any, name: String) throws(Problem) -> Bool {
        guard let number = value as? NSNumber, isBoolean(number) else {
            throw Problem(.badRequest, "\(name) must be true or false in a JSON body, not \(describe(value))")
        }
        return number.boolValue
    }

    /// Whether JSON's `true` or `false` (Foundation hands them out as numbers of type `c`, a char).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case let text as String: return "the string \(text.debugDescription)"
        case let number as NSNumber: return isBoolean(number) ? "\(number.boolValue)" : "the number \(number)"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "null"
        }
    }

    private static func reason(_ error: Error) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}

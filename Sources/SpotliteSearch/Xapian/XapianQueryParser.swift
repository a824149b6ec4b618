import CXapian

/// Parses what users type into a `XapianQuery`: words, phrases, AND/OR/NOT, `field:value` prefixes,
/// `size:10..20` number ranges and `date:2024-01-01..2024-12-31` date ranges.
///
/// Not thread-safe: use it from one thread (or one actor) at a time.
package final class XapianQueryParser {
    /// Parsing options; `.default` is phrase + boolean operators + love/hate (+/-).
    package struct Flags: OptionSet, Sendable {
        package let rawValue: UInt32

        package init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        /// AND, OR, NOT, XOR and brackets.
        package static let boolean = Flags(rawValue: cx_qp_flag_boolean)
        /// "quoted phrases".
        package static let phrase = Flags(rawValue: cx_qp_flag_phrase)
        /// +required and -excluded words.
        package static let loveHate = Flags(rawValue: cx_qp_flag_lovehate)
        /// Boolean operators in any case (and, or, not).
        package static let booleanAnyCase = Flags(rawValue: cx_qp_flag_boolean_any_case)
        /// Trailing * wildcards (limit them with `setWildcardLimit`).
        package static let wildcard = Flags(rawValue: cx_qp_flag_wildcard)
        /// Queries made only of NOT terms.
        package static let pureNot = Flags(rawValue: cx_qp_flag_pure_not)
        /// Treat the last word as a prefix (search as you type).
        package static let partial = Flags(rawValue: cx_qp_flag_partial)
        /// Compute `correctedQueryString()` (needs a database with spelling data).
        package static let spellingCorrection = Flags(rawValue: cx_qp_flag_spelling_correction)
        /// Split CJK text into n-grams.
        package static let cjkNgram = Flags(rawValue: cx_qp_flag_cjk_ngram)
        /// Xapian's defaults: phrase, boolean and love/hate.
        package static let `default` = Flags(rawValue: cx_qp_flag_default)
        /// Xapian's defaults and CJK n-grams, as `XapianTermGenerator` indexes text by default.
        package static let standard: Flags = [.default, .cjkNgram]
    }

    /// How plain words are joined.
    package enum DefaultOperator: Sendable {
        /// Every word must match.
        case and
        /// Any word may match (Xapian's default).
        case or
    }

    let handle: OpaquePointer

    /// Creates a parser.
    /// - Parameters:
    ///   - language: stemmer language; use the one the documents were indexed with (nil or "none": none).
    ///   - stopwords: words dropped from queries.
    /// - Throws: `SearchError.engine` (`.invalidArgument` for an unknown language).
    package init(language: String? = "english", stopwords: XapianStopwords = .english) throws {
        let created = try xapianCall { cx_query_parser_new($0) }
        guard let created else {
            throw XapianError.shimFailure("creating a query parser returned nothing")
        }
        handle = created
        _ = try xapianCall { cx_query_parser_set_stemmer(handle, language, $0) }
        try stopwords.withStopper { stopper in
            _ = try xapianCall { cx_query_parser_set_stopper(handle, stopper, $0) }
        }
    }

    deinit {
        cx_query_parser_free(handle)
    }

    /// Sets how plain words are joined.
    package func setDefaultOperator(_ op: DefaultOperator) throws {
        let value = op == .and ? cx_op_and : cx_op_or
        _ = try xapianCall { cx_query_parser_set_default_op(handle, value, $0) }
    }

    /// Sets the database used for spelling correction and wildcard expansion.
    package func setDatabase(_ database: XapianDatabase) throws {
        _ = try xapianCall { cx_query_parser_set_database(handle, database.handle, $0) }
    }

    /// Makes `field:words` search free-text terms indexed with `prefix`. An empty field sets the prefix of
    /// unqualified words.
    package func addPrefix(field: String, prefix: String) throws {
        try XapianBytes.with(field) { fieldPointer, fieldLength in
            try XapianBytes.with(prefix) { prefixPointer, prefixLength in
                _ = try xapianCall {
                    cx_query_parser_add_prefix(handle, fieldPointer, fieldLength, prefixPointer, prefixLength, $0)
                }
            }
        }
    }

    /// Makes `field:value` filter on the boolean term `prefix + value`. With `exclusive`, several values of
    /// one field are OR-ed (different fields are AND-ed); otherwise every filter is AND-ed.
    package func addBooleanPrefix(field: String, prefix: String, exclusive: Bool = true) throws {
        try XapianBytes.with(field) { fieldPointer, fieldLength in
            try XapianBytes.with(prefix) { prefixPointer, prefixLength in
                _ = try xapianCall {
                    cx_query_parser_add_boolean_prefix(
                        handle, fieldPointer, fieldLength, prefixPointer, prefixLength, exclusive, $0)
                }
            }
        }
    }

    /// Accepts `<prefix>A..B` as a range over numbers stored in value slot `slot`.
    package func addNumberRange(slot: UInt32, prefix: String) throws {
        try XapianBytes.with(prefix) { pointer, length in
            _ = try xapianCall { cx_query_parser_add_number_range(handle, slot, pointer, length, $0) }
        }
    }

    /// Accepts `<prefix>A..B` with UTC dates YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z] as a range
    /// over Unix seconds stored as numbers in value slot `slot`; A's first second to B's last, either end open.
    package func addDateRange(slot: UInt32, prefix: String) throws {
        try XapianBytes.with(prefix) { pointer, length in
            _ = try xapianCall { cx_query_parser_add_date_range(handle, slot, pointer, length, $0) }
        }
    }

    /// How query words are turned into terms.
    package enum StemmingStrategy: Sendable, Hashable {
        /// Words as typed.
        case none
        /// Stems of words not starting with a capital letter, as `Z` terms; other words as typed (Xapian's default).
        case some
        /// Stems of every word, as `Z` terms.
        case allZ
    }

    /// Sets how query words are stemmed (default `.some`).
    package func setStemmingStrategy(_ strategy: StemmingStrategy) throws {
        let value: Int32
        switch strategy {
        case .none: value = cx_stem_none
        case .some: value = cx_stem_some
        case .allZ: value = cx_stem_all_z
        }
        _ = try xapianCall { cx_query_parser_set_stemming_strategy(handle, value, $0) }
    }

    /// Limits how many terms one wildcard may expand to; exceeding it makes the search fail with `.wildcard`.
    /// 0 removes the limit.
    package func setWildcardLimit(_ limit: UInt32) throws {
        _ = try xapianCall { cx_query_parser_set_max_wildcard_expansion(handle, limit, $0) }
    }

    /// Makes the last word of a text parsed with `.partial` match at most `limit` words starting with it (1 to
    /// 10,000), the most frequent ones, besides the word itself; more never fail the search.
    package func setPartialLimit(_ limit: UInt32) throws {
        _ = try xapianCall { cx_query_parser_set_max_partial_expansion(handle, limit, $0) }
    }

    /// Parses `text`.
    /// - Throws: `SearchError.engine` with `.queryParser` for malformed text such as `invoice AND`.
    package func parse(_ text: String, flags: Flags = .standard) throws -> XapianQuery {
        try XapianBytes.with(text) { pointer, length in
            try XapianQuery { cx_query_parser_parse(handle, pointer, length, flags.rawValue, $0) }
        }
    }

    /// Parses `text`, and says whether Xapian could not read its syntax and read it as plain words instead (it does
    /// so silently on a syntax error its grammar has no message for: brackets holding only excluded words, an
    /// operator at the end). Costs a second parse.
    /// - Throws: `SearchError.engine` as ``parse(_:flags:)``.
    package func parseNotingPlainWords(_ text: String, flags: Flags = .standard) throws -> (query: XapianQuery, readAsWords: Bool) {
        var readAsWords = false
        let query = try XapianBytes.with(text) { pointer, length in
            try XapianQuery { cx_query_parser_parse_checked(handle, pointer, length, flags.rawValue, &readAsWords, $0) }
        }
        return (query, readAsWords)
    }

    /// The spelling-corrected form of the last parsed text, or nil when nothing was corrected. The parsed
    /// query itself is never corrected.
    package func correctedQueryString() throws -> String? {
        let corrected = try XapianBytes.readString { cx_query_parser_corrected_query(handle, $0, $1, $2) }
        return corrected.isEmpty ? nil : corrected
    }
}

import CXapian
import SpotliteTestSupport
import Testing

@Suite("CXapian query parsing", .blockingWork)
struct ShimQueryTests {
    private func parse(_ parser: OpaquePointer, _ text: [UInt8], flags: UInt32 = cx_qp_flag_default)
        -> (query: OpaquePointer?, error: ShimError?)
    {
        var err: OpaquePointer?
        let query = withBytes(text) { cx_query_parser_parse(parser, $0, $1, flags, &err) }
        return (query, takeError(&err))
    }

    private func description(_ query: OpaquePointer) throws -> String {
        String(decoding: try readBytes { cx_query_description(query, $0, $1, $2) }.get(), as: UTF8.self)
    }

    @Test func malformedQueriesAreParserErrors() throws {
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        for text in ["invoice AND", "NOT x", "a OR OR b", "AND b", "a AND NOT"] {
            let result = parse(parser, Array(text.utf8))
            #expect(result.query == nil, "\(text)")
            #expect(result.error?.code == CX_ERR_QUERY_PARSER, "\(text)")
            #expect(result.error?.type == "QueryParserError", "\(text)")
        }
    }

    @Test func oddButValidQueriesParse() throws {
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        // Without a range processor Xapian 1.4.22 reads 1..2 as a phrase.
        for text in ["\"abc", "(((", "AND", "\u{0}", "", "   ", "1..2"] {
            let result = parse(parser, Array(text.utf8))
            if let query = result.query {
                cx_query_free(query)
            } else {
                #expect(result.error?.code == CX_ERR_QUERY_PARSER, "\(text.debugDescription)")
            }
        }
        let blank = parse(parser, [])
        let query = try #require(blank.query)
        defer { cx_query_free(query) }
        #expect(cx_query_is_empty(query))
    }

    @Test func randomBytesWithNulsNeverCrashTheParser() throws {
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        #expect(cx_query_parser_set_stemmer(parser, "english", &err))
        var generator = SystemRandomNumberGenerator()
        let allFlags = cx_qp_flag_default | cx_qp_flag_wildcard | cx_qp_flag_partial | cx_qp_flag_boolean_any_case
            | cx_qp_flag_pure_not
        for round in 0..<4 {
            let bytes = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(bytes.contains(0))
            let result = parse(parser, bytes, flags: round.isMultiple(of: 2) ? cx_qp_flag_default : allFlags)
            if let query = result.query {
                cx_query_free(query)
            } else {
                let error = try #require(result.error)
                #expect([CX_ERR_QUERY_PARSER, CX_ERR_INVALID_ARGUMENT].contains(error.code), "\(error)")
            }
        }
    }

    @Test func prefixesRangesAndDefaultOperatorShapeTheQuery() throws {
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        #expect(withText("name") { field, fieldLength in
            withText("XNAME") { cx_query_parser_add_prefix(parser, field, fieldLength, $0, $1, &err) }
        })
        #expect(withText("section") { field, fieldLength in
            withText("XSECTION") { cx_query_parser_add_boolean_prefix(parser, field, fieldLength, $0, $1, true, &err) }
        })
        #expect(withText("size:") { cx_query_parser_add_number_range(parser, 2, $0, $1, &err) })
        #expect(withText("released:") { cx_query_parser_add_date_range(parser, 3, $0, $1, &err) })
        #expect(cx_query_parser_set_default_op(parser, cx_op_and, &err))
        #expect(takeError(&err) == nil)

        let parsed = parse(parser, Array("name:vim editor section:utils section:editors size:10..20".utf8))
        let query = try #require(parsed.query)
        defer { cx_query_free(query) }
        let text = try description(query)
        #expect(text.contains("XNAMEvim"))
        #expect(text.contains("XSECTIONutils OR XSECTIONeditors"))
        #expect(text.contains("VALUE_RANGE 2"))
        #expect(text.contains(" AND "))

        let dates = parse(parser, Array("released:2024-02..2024-02".utf8))
        let dateQuery = try #require(dates.query)
        defer { cx_query_free(dateQuery) }
        #expect(try description(dateQuery).contains("VALUE_RANGE 3"))

        let badDate = parse(parser, Array("released:2024-02-30..2024-03-01".utf8))
        #expect(badDate.query == nil)
        #expect(badDate.error?.code == CX_ERR_QUERY_PARSER)
        #expect(badDate.error?.message.contains("'2024-02-30'") == true)
        #expect(badDate.error?.message.contains("YYYY-MM-DD") == true)

        #expect(!cx_query_parser_set_default_op(parser, cx_op_filter, &err))
        let filterAsDefault = takeError(&err)
        #expect(filterAsDefault?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: filterAsDefault))")
        #expect(filterAsDefault?.message.contains("cx_op_and or cx_op_or") == true, "the shim's message names the argument")
        #expect(!withText("name") { field, fieldLength in
            withText("XNAME") { cx_query_parser_add_boolean_prefix(parser, field, fieldLength, $0, $1, true, &err) }
        })
        #expect(takeError(&err)?.code == CX_ERR_INVALID_OPERATION)
    }

    @Test("a date range accepts only dates that exist, the rule the Swift side applies to stored dates",
          arguments: [("2024-02-29", true), ("2023-02-29", false), ("2024-02-31", false), ("2024-04-31", false),
                      ("2024-13", false), ("2024-12-31T23:59:59Z", true), ("2024-12-31T24:00", false),
                      ("2024-12-31T10:60", false), ("2024-12-31T10:20:60", false), ("1583", true), ("1582-12-31", false),
                      ("9999-12-31", true), ("2000-02-29", true), ("1900-02-29", false)])
    func dateRangesRejectImpossibleDates(date: String, valid: Bool) throws {
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        #expect(withText("released:") { cx_query_parser_add_date_range(parser, 3, $0, $1, &err) })
        let parsed = parse(parser, Array("released:\(date)..2024".utf8))
        if let query = parsed.query { cx_query_free(query) }
        #expect((parsed.query != nil) == valid, "\(date): \(String(describing: parsed.error))")
        if !valid {
            #expect(parsed.error?.code == CX_ERR_QUERY_PARSER)
            #expect(parsed.error?.message.contains("'\(date)'") == true)
        }
    }

    @Test func composedQueriesDescribeTheirStructure() throws {
        var err: OpaquePointer?
        let invoice = try #require(withText("invoice") { cx_query_new_term($0, $1, &err) })
        defer { cx_query_free(invoice) }
        let paid = try #require(withText("Kpaid") { cx_query_new_term($0, $1, &err) })
        defer { cx_query_free(paid) }
        let draft = try #require(withText("Kdraft") { cx_query_new_term($0, $1, &err) })
        defer { cx_query_free(draft) }
        var filterParts: [OpaquePointer?] = [invoice, paid]
        let filtered = try #require(cx_query_combine(cx_op_filter, &filterParts, 2, &err))
        defer { cx_query_free(filtered) }
        var notParts: [OpaquePointer?] = [filtered, draft]
        let combined = try #require(cx_query_combine(cx_op_and_not, &notParts, 2, &err))
        defer { cx_query_free(combined) }
        let text = try description(combined)
        #expect(text.contains("invoice FILTER Kpaid"))
        #expect(text.contains("AND_NOT Kdraft"))
        // Inputs are unchanged and still usable.
        #expect(try description(invoice) == "Query(invoice)")
    }
}

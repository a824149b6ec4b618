import CXapian
import SpotliteTestSupport
import Testing

@Suite("CXapian searching", .blockingWork)
struct ShimSearchTests {
    /// Adds `count` documents with many terms each, so that commits reuse the blocks of older revisions.
    private func addBulk(_ writer: OpaquePointer, from first: Int, count: Int) throws {
        var err: OpaquePointer?
        for id in first..<(first + count) {
            let document = try #require(cx_document_new(&err))
            defer { cx_document_free(document) }
            withText("common") { _ = cx_document_add_term(document, $0, $1, 1, &err) }
            for extra in 0..<20 {
                withText("t\(id * 7 + extra)") { _ = cx_document_add_term(document, $0, $1, 1, &err) }
            }
            withText("\(id)") { _ = cx_document_set_data(document, $0, $1, &err) }
            withText("Q\(id)") { _ = cx_writable_database_replace_document(writer, $0, $1, document, nil, &err) }
        }
        #expect(cx_writable_database_commit(writer, &err))
        #expect(takeError(&err) == nil)
    }

    @Test func aLongLivedReaderSurvivesRepeatedCommits() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        // The reader's revision must span several blocks for later commits to reuse them.
        try addBulk(writer, from: 0, count: 300)
        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        let query = try #require(withText("common") { cx_query_new_term($0, $1, &err) })
        defer { cx_query_free(query) }
        var options = cx_search_options()
        options.limit = 10

        // Two large commits overwrite the blocks of the revision the reader has open.
        try addBulk(writer, from: 300, count: 300)
        try addBulk(writer, from: 600, count: 300)
        options.no_retry = true
        #expect(cx_database_search(reader, query, &options, &err) == nil)
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_DATABASE_MODIFIED)
        #expect(error.type == "DatabaseModifiedError")

        options.no_retry = false
        var next = 900
        for round in 1...3 {
            try addBulk(writer, from: next, count: 300)
            try addBulk(writer, from: next + 300, count: 300)
            next += 600
            let mset = try #require(cx_database_search(reader, query, &options, &err), "round \(round)")
            defer { cx_mset_free(mset) }
            #expect(takeError(&err) == nil)
            // The reader sees a whole committed revision: the latest one when a retry reopened it.
            let seen = Int(cx_mset_matches_estimated(mset))
            #expect(seen % 300 == 0 && (900...next).contains(seen), "round \(round): \(seen)")
        }
        var changed = false
        #expect(cx_database_reopen(reader, &changed, &err))
        #expect(cx_database_doc_count(reader, &err) == UInt32(next))
        #expect(cx_database_reopen(reader, &changed, &err))
        #expect(!changed)
    }

    @Test func facetsSortingAndSnippetsComeBackWithTheHits() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        var err: OpaquePointer?
        for (index, section) in ["utils", "utils", "editors"].enumerated() {
            let document = try #require(cx_document_new(&err))
            defer { cx_document_free(document) }
            withText("package") { _ = cx_document_add_term(document, $0, $1, 1, &err) }
            withText(section) { _ = cx_document_set_value(document, 1, $0, $1, &err) }
            #expect(cx_document_set_value_number(document, 2, Double(index * 100), &err))
            withText("\(index)") { _ = cx_document_set_data(document, $0, $1, &err) }
            withText("Q\(index)") { _ = cx_writable_database_replace_document(writer, $0, $1, document, nil, &err) }
        }
        #expect(takeError(&err) == nil)
        cx_writable_database_free(writer)

        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        let query = try #require(withText("package") { cx_query_new_term($0, $1, &err) })
        defer { cx_query_free(query) }
        let slots: [UInt32] = [1]
        var options = cx_search_options()
        options.limit = 10
        options.check_at_least = 3
        options.sort = CX_SORT_VALUE_DESCENDING
        options.sort_slot = 2
        let mset = try slots.withUnsafeBufferPointer { buffer in
            options.facet_slots = buffer.baseAddress
            options.facet_slot_count = buffer.count
            return try #require(cx_database_search(reader, query, &options, &err))
        }
        defer { cx_mset_free(mset) }
        #expect(cx_mset_matches_estimated(mset) == 3)
        let order = try (0..<cx_mset_size(mset)).map { index in
            String(decoding: try readBytes { cx_mset_hit_data(mset, index, $0, $1, $2) }.get(), as: UTF8.self)
        }
        #expect(order == ["2", "1", "0"])
        var counts: [String: UInt32] = [:]
        for index in 0..<cx_mset_facet_value_count(mset, 0, &err) {
            var frequency: UInt32 = 0
            let value = try readBytes { cx_mset_facet_value(mset, 0, index, $0, $1, &frequency, $2) }.get()
            counts[String(decoding: value, as: UTF8.self)] = frequency
        }
        #expect(counts == ["utils": 2, "editors": 1])

        var snippetOptions = cx_snippet_options()
        let snippet = try withText("[") { start, startLength in
            try withText("]") { end, endLength in
                snippetOptions.highlight_start = start
                snippetOptions.highlight_start_len = startLength
                snippetOptions.highlight_end = end
                snippetOptions.highlight_end_len = endLength
                return try withText("A <package> & more") { text, length in
                    try readBytes { cx_mset_snippet(mset, text, length, &snippetOptions, $0, $1, $2) }.get()
                }
            }
        }
        #expect(String(decoding: snippet, as: UTF8.self) == "A &lt;[package]&gt; &amp; more")
    }

    @Test func aWildcardOverItsLimitIsAnErrorNotACrash() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        for index in 0..<5 {
            #expect(addDocument(writer, id: "\(index)", text: "prefix\(index)word") == nil)
        }
        cx_writable_database_free(writer)
        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        var err: OpaquePointer?
        let parser = try #require(cx_query_parser_new(&err))
        defer { cx_query_parser_free(parser) }
        #expect(cx_query_parser_set_max_wildcard_expansion(parser, 2, &err))
        let query = try #require(withText("prefix*") {
            cx_query_parser_parse(parser, $0, $1, cx_qp_flag_default | cx_qp_flag_wildcard, &err)
        })
        defer { cx_query_free(query) }
        var options = cx_search_options()
        options.limit = 10
        #expect(cx_database_search(reader, query, &options, &err) == nil)
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_WILDCARD)
        #expect(error.type == "WildcardError")
    }
}

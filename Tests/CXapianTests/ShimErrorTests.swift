import CXapian
import Foundation
import Glibc
import SpotliteTestSupport
import Testing

@Suite("CXapian errors", .blockingWork)
struct ShimErrorTests {
    @Test func missingDatabaseOpenedReadOnlyIsNotFound() throws {
        let directory = try ShimTemporaryDirectory()
        let path = directory.database("missing")
        var err: OpaquePointer?
        let db = cx_database_open(path, &err)
        #expect(db == nil)
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_DATABASE_NOT_FOUND)
        #expect(error.type == "DatabaseNotFoundError")
        #expect(error.message.contains(path))
        #expect(!error.batchLost)
    }

    @Test func missingDatabaseOpenedForWritingWithOpenActionFails() throws {
        let directory = try ShimTemporaryDirectory()
        var err: OpaquePointer?
        let db = cx_writable_database_open(directory.database("missing"), cx_db_open, &err)
        #expect(db == nil)
        let error = try #require(takeError(&err))
        #expect([CX_ERR_DATABASE_NOT_FOUND, CX_ERR_DATABASE_OPENING].contains(error.code))
        #expect(error.type.hasPrefix("Database"))
    }

    @Test func secondWriterGetsTheLockError() throws {
        let directory = try ShimTemporaryDirectory()
        let path = directory.database()
        let first = try openWriter(path)
        defer { cx_writable_database_free(first) }
        var err: OpaquePointer?
        let second = cx_writable_database_open(path, cx_db_create_or_open, &err)
        #expect(second == nil)
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_DATABASE_LOCK)
        #expect(error.type == "DatabaseLockError")
        #expect(error.message.contains("lock"))
    }

    @Test func freeingTheWriterReleasesTheLockEvenWhileAGeneratorRefersToIt() throws {
        let directory = try ShimTemporaryDirectory()
        let path = directory.database()
        let first = try openWriter(path)
        var err: OpaquePointer?
        let generator = try #require(cx_term_generator_new(&err))
        defer { cx_term_generator_free(generator) }
        #expect(cx_term_generator_set_spelling_database(generator, first, &err))
        cx_writable_database_free(first)
        let second = try openWriter(path)
        cx_writable_database_free(second)
        #expect(takeError(&err) == nil)
    }

    @Test func nullHandlesAreInvalidArgumentsNotCrashes() throws {
        var err: OpaquePointer?
        #expect(!cx_writable_database_commit(nil, &err))
        let commitError = try #require(takeError(&err))
        #expect(commitError.code == CX_ERR_INVALID_ARGUMENT)
        #expect(commitError.type == "InvalidArgumentError")
        #expect(commitError.message.contains("NULL"))
        #expect(!commitError.batchLost)

        #expect(cx_database_doc_count(nil, &err) == 0)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        #expect(cx_query_parser_parse(nil, "x", 1, cx_qp_flag_default, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        #expect(cx_database_search(nil, nil, nil, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        #expect(cx_writable_database_open(nil, cx_db_create_or_open, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        #expect(!cx_term_generator_set_cjk_ngrams(nil, true, &err))
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        #expect(cx_writable_database_open("", cx_db_create_or_open, &err) == nil)
        let emptyPath = takeError(&err)
        #expect(emptyPath?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: emptyPath))")
        #expect(emptyPath?.message.contains("empty") == true, "the shim's message names the argument")
    }

    @Test func nullBytesWithALengthAreRejected() throws {
        var err: OpaquePointer?
        let document = try #require(cx_document_new(&err))
        defer { cx_document_free(document) }
        #expect(!cx_document_set_data(document, nil, 5, &err))
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_INVALID_ARGUMENT)
        #expect(error.message.contains("data is NULL but its length is 5"))
        // NULL with length 0 is the empty string.
        #expect(cx_document_set_data(document, nil, 0, &err))
        #expect(takeError(&err) == nil)
    }

    @Test func aCallWithAnUnclearedErrorFailsAndKeepsTheFirstError() throws {
        var err: OpaquePointer?
        #expect(cx_database_open(nil, &err) == nil)
        let first = err
        #expect(first != nil)
        let document = cx_document_new(&err)
        #expect(document == nil)
        #expect(err == first)
        let firstError = takeError(&err)
        #expect(firstError?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: firstError))")
        #expect(firstError?.message.contains("path is NULL") == true, "the shim's message names the argument")
    }

    @Test func errorsCanBeDiscardedByPassingNoErrorPointer() throws {
        #expect(cx_database_open(nil, nil) == nil)
        #expect(!cx_writable_database_commit(nil, nil))
    }

    @Test func closedDatabasesReportClosed() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        #expect(cx_writable_database_close(writer, &err))
        #expect(takeError(&err) == nil)
        // Xapian itself accepts commit() after close() and then counts 0 documents; the shim reports both.
        #expect(!cx_writable_database_commit(writer, &err))
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_DATABASE_CLOSED)
        #expect(error.type == "DatabaseClosedError")
        #expect(cx_writable_database_doc_count(writer, &err) == 0)
        #expect(takeError(&err)?.code == CX_ERR_DATABASE_CLOSED)
        #expect(cx_writable_database_close(writer, &err))
        #expect(takeError(&err) == nil)

        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        #expect(cx_database_close(reader, &err))
        _ = cx_database_doc_count(reader, &err)
        #expect(takeError(&err)?.code == CX_ERR_DATABASE_CLOSED)
    }

    @Test func cancellingWithoutATransactionIsAnInvalidOperation() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        #expect(!cx_writable_database_cancel_transaction(writer, &err))
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_INVALID_OPERATION)
        #expect(error.type == "InvalidOperationError")
    }

    @Test func unknownStemmerLanguageNamesTheAlternatives() throws {
        var err: OpaquePointer?
        let generator = try #require(cx_term_generator_new(&err))
        defer { cx_term_generator_free(generator) }
        #expect(!cx_term_generator_set_stemmer(generator, "klingon", &err))
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_INVALID_ARGUMENT)
        #expect(error.message.contains("klingon"))
        #expect(error.message.contains("english"))
        for language in ["english", "en", "german", "none", ""] {
            #expect(cx_term_generator_set_stemmer(generator, language, &err), "\(language)")
            #expect(takeError(&err) == nil)
        }
        #expect(cx_term_generator_set_stemmer(generator, nil, &err))
    }

    @Test func outOfRangeIndexesAreRangeErrors() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        #expect(addDocument(writer, id: "1", text: "hello") == nil)
        cx_writable_database_free(writer)
        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        var err: OpaquePointer?
        let query = try #require(cx_query_new_match_all(&err))
        defer { cx_query_free(query) }
        var options = cx_search_options()
        options.limit = 10
        let mset = try #require(cx_database_search(reader, query, &options, &err))
        defer { cx_mset_free(mset) }
        #expect(cx_mset_size(mset) == 1)
        var hit = cx_hit()
        #expect(!cx_mset_hit(mset, 1, &hit, &err))
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_RANGE)
        #expect(error.message.contains("has 1 hits"))
        let data = readBytes { cx_mset_hit_data(mset, 5, $0, $1, $2) }
        #expect(throws: ShimErrorBox.self) { try data.get() }
        #expect(cx_mset_facet_value_count(mset, 0, &err) == 0)
        #expect(takeError(&err)?.code == CX_ERR_RANGE)
    }

    @Test func badOptionValuesAreRejectedWithTheWayOut() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        cx_writable_database_free(writer)
        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        var err: OpaquePointer?
        #expect(!cx_database_compact(reader, directory.database("out"), 12345, &err))
        let unknownCompaction = takeError(&err)
        #expect(unknownCompaction?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: unknownCompaction))")
        #expect(unknownCompaction?.message.contains("cx_compact_standard") == true, "the shim's message names the argument")

        let query = try #require(cx_query_new_match_all(&err))
        defer { cx_query_free(query) }
        var options = cx_search_options()
        options.sort = cx_sort_order(rawValue: 77)
        #expect(cx_database_search(reader, query, &options, &err) == nil)
        let unknownSortOrder = takeError(&err)
        #expect(unknownSortOrder?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: unknownSortOrder))")
        #expect(unknownSortOrder?.message.contains("CX_SORT_RELEVANCE") == true, "the shim's message names the argument")
        options.sort = CX_SORT_VALUE_ASCENDING
        options.sort_slot = cx_bad_valueno
        #expect(cx_database_search(reader, query, &options, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        options.sort = CX_SORT_RELEVANCE
        options.facet_slot_count = 2
        #expect(cx_database_search(reader, query, &options, &err) == nil)
        let missingFacetSlots = takeError(&err)
        #expect(missingFacetSlots?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: missingFacetSlots))")
        #expect(missingFacetSlots?.message.contains("facet slots are NULL") == true, "the shim's message names the argument")

        var parts: [OpaquePointer?] = [query]
        #expect(cx_query_combine(cx_op_and, &parts, 0, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
        #expect(cx_query_combine(999, &parts, 1, &err) == nil)
        let unknownOperator = takeError(&err)
        #expect(unknownOperator?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: unknownOperator))")
        #expect(unknownOperator?.message.contains("cx_op_and") == true, "the shim's message names the argument")
        parts.append(nil)
        #expect(cx_query_combine(cx_op_or, &parts, 2, &err) == nil)
        let missingQuery = takeError(&err)
        #expect(missingQuery?.code == CX_ERR_INVALID_ARGUMENT, "\(String(describing: missingQuery))")
        #expect(missingQuery?.message.contains("query 1 is NULL") == true, "the shim's message names the argument")
        #expect(cx_query_new_value_range(0, nil, 0, nil, 0, &err) == nil)
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)
    }

    @Test func versionAndConstantsComeFromXapian() throws {
        #expect(String(cString: cx_version_string()).hasPrefix("1.4."))
        let actions = [cx_db_create_or_open, cx_db_create_or_overwrite, cx_db_create, cx_db_open]
        #expect(Set(actions).count == 4)
        let flags = [cx_db_no_sync, cx_db_full_sync, cx_db_retry_lock]
        for flag in flags {
            #expect(flag != 0)
            for action in actions { #expect(flag & action == 0) }
        }
        #expect(cx_qp_flag_default == cx_qp_flag_phrase | cx_qp_flag_boolean | cx_qp_flag_lovehate)
        #expect(Set([cx_op_and, cx_op_or, cx_op_and_not, cx_op_xor, cx_op_and_maybe, cx_op_filter]).count == 6)
        let defaults = cx_bm25_default_params()
        #expect(defaults.k1 > 0 && defaults.b > 0 && defaults.b <= 1)
    }

    /// A database with enough documents that every table spans several blocks.
    private func filledDatabase(_ directory: ShimTemporaryDirectory) throws -> String {
        let path = directory.database()
        let writer = try openWriter(path)
        for number in 0..<2000 {
            let error = addDocument(writer, id: "\(number)", text: "hello world number \(number) " + String(repeating: "x", count: 40))
            #expect(error == nil)
        }
        var err: OpaquePointer?
        #expect(cx_writable_database_commit(writer, &err))
        cx_writable_database_free(writer)
        return path
    }

    @Test("a table cut short is corruption, although Xapian 1.4 reports it as a plain DatabaseError")
    func truncatedTableIsCorrupt() throws {
        let directory = try ShimTemporaryDirectory()
        let path = try filledDatabase(directory)
        #expect(truncate(path + "/postlist.glass", 0) == 0)
        var err: OpaquePointer?
        // Opening reads the document count from the posting list table.
        #expect(cx_database_open(path, &err) == nil)
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_DATABASE_CORRUPT)
        #expect(error.type == "DatabaseError", "the type name stays Xapian's")
        #expect(error.message.hasPrefix("EOF reading block"))
    }

    @Test func garbageVersionFileIsCorrupt() throws {
        let directory = try ShimTemporaryDirectory()
        let path = try filledDatabase(directory)
        try Data("not a version file".utf8).write(to: URL(fileURLWithPath: path + "/iamglass"))
        var err: OpaquePointer?
        #expect(cx_database_open(path, &err) == nil)
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_DATABASE_CORRUPT)
        #expect(error.type == "DatabaseCorruptError")
    }

    @Test("a remote database that refuses the connection is a network error, not a damaged database")
    func unreachableRemoteIsNetworkError() throws {
        let directory = try ShimTemporaryDirectory()
        // Bound but not listening: connections to it are refused, and no other process can take the port meanwhile.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) == 0 && getsockname(socket, $0, &size) == 0 }
        }
        #expect(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let stub = directory.database("remote-stub")
        try Data("remote 127.0.0.1:\(port)\n".utf8).write(to: URL(fileURLWithPath: stub))
        var err: OpaquePointer?
        #expect(cx_database_open(stub, &err) == nil)
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_NETWORK)
        #expect(error.type == "NetworkError")
    }
}

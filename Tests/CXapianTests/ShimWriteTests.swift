import CXapian
import SpotliteTestSupport
import Testing

@Suite("CXapian writing", .blockingWork)
struct ShimWriteTests {
    @Test func bytesWithNulRoundTripThroughDataMetadataTermsAndValues() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        let binary: [UInt8] = [0, 1, 0, 255, 0x41, 0]
        let id = "Qid\u{0}with\u{0}nul"
        let document = try #require(cx_document_new(&err))
        defer { cx_document_free(document) }
        withBytes(binary) { _ = cx_document_set_data(document, $0, $1, &err) }
        withBytes(binary) { _ = cx_document_set_value(document, 3, $0, $1, &err) }
        withText(id) { _ = cx_writable_database_replace_document(writer, $0, $1, document, nil, &err) }
        withText("key\u{0}x") { key, keyLength in
            withBytes(binary) { _ = cx_writable_database_set_metadata(writer, key, keyLength, $0, $1, &err) }
        }
        #expect(cx_writable_database_commit(writer, &err))
        #expect(takeError(&err) == nil)

        #expect(try readBytes { cx_document_get_value(document, 3, $0, $1, $2) }.get() == binary)
        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        var found = false
        let data = try withText(id) { term, length in
            try readBytes { cx_database_document_data(reader, term, length, &found, $0, $1, $2) }.get()
        }
        #expect(found)
        #expect(data == binary)
        let metadata = try withText("key\u{0}x") { key, length in
            try readBytes { cx_database_get_metadata(reader, key, length, $0, $1, $2) }.get()
        }
        #expect(metadata == binary)
        // The truncated key is a different key.
        let truncated = try withText("key") { key, length in
            try readBytes { cx_database_get_metadata(reader, key, length, $0, $1, $2) }.get()
        }
        #expect(truncated.isEmpty)
    }

    @Test func replaceByUniqueTermKeepsOneDocumentAndDeleteRemovesIt() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        #expect(addDocument(writer, id: "a", text: "first version", data: Array("v1".utf8)) == nil)
        #expect(addDocument(writer, id: "a", text: "second version", data: Array("v2".utf8)) == nil)
        #expect(addDocument(writer, id: "b", text: "other") == nil)
        #expect(cx_writable_database_doc_count(writer, &err) == 2)
        var found = false
        let data = try withText("Qa") { term, length in
            try readBytes { cx_writable_database_document_data(writer, term, length, &found, $0, $1, $2) }.get()
        }
        #expect(found && data == Array("v2".utf8))
        withText("Qa") { _ = cx_writable_database_delete_document(writer, $0, $1, &err) }
        withText("Qmissing") { _ = cx_writable_database_delete_document(writer, $0, $1, &err) }
        #expect(takeError(&err) == nil)
        #expect(cx_writable_database_doc_count(writer, &err) == 1)
        _ = try withText("Qa") { term, length in
            try readBytes { cx_writable_database_document_data(writer, term, length, &found, $0, $1, $2) }.get()
        }
        #expect(!found)
        withText("") { _ = cx_writable_database_delete_document(writer, $0, $1, &err) }
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_INVALID_ARGUMENT)
        #expect(!error.batchLost)
    }

    @Test func aFailedWriteReportsTheWholeUncommittedBatchLost() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        #expect(addDocument(writer, id: "committed", text: "kept") == nil)
        #expect(cx_writable_database_commit(writer, &err))

        #expect(addDocument(writer, id: "pending", text: "lost") == nil)
        withText("position") { key, keyLength in
            withText("42") { _ = cx_writable_database_set_metadata(writer, key, keyLength, $0, $1, &err) }
        }
        #expect(takeError(&err) == nil)
        let failure = addDocument(writer, id: "bad", text: "x", extraBooleanTerm: String(repeating: "X", count: 300))
        let error = try #require(failure)
        #expect(error.code == CX_ERR_INVALID_ARGUMENT)
        #expect(error.message.contains("Term too long"))
        #expect(error.batchLost)

        #expect(cx_writable_database_commit(writer, &err))
        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        #expect(cx_database_doc_count(reader, &err) == 1)
        let position = try withText("position") { key, length in
            try readBytes { cx_database_get_metadata(reader, key, length, $0, $1, $2) }.get()
        }
        #expect(position.isEmpty)
    }

    @Test func rejectedArgumentsDoNotLoseTheBatch() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        #expect(addDocument(writer, id: "pending", text: "kept") == nil)
        #expect(!cx_writable_database_set_metadata(writer, nil, 0, "v", 1, &err))
        let error = try #require(takeError(&err))
        #expect(error.code == CX_ERR_INVALID_ARGUMENT)
        #expect(error.message.contains("metadata key is empty"))
        #expect(!error.batchLost)
        #expect(cx_writable_database_commit(writer, &err))
        #expect(cx_writable_database_doc_count(writer, &err) == 1)
    }

    @Test func metadataAndDocumentsCommitAndCancelTogether() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        defer { cx_writable_database_free(writer) }
        var err: OpaquePointer?
        let setPosition = { (value: String) in
            withText("position") { key, keyLength in
                withText(value) { _ = cx_writable_database_set_metadata(writer, key, keyLength, $0, $1, &err) }
            }
        }
        #expect(cx_writable_database_begin_transaction(writer, true, &err))
        #expect(addDocument(writer, id: "1", text: "one") == nil)
        setPosition("1")
        #expect(cx_writable_database_commit_transaction(writer, &err))

        #expect(cx_writable_database_begin_transaction(writer, true, &err))
        #expect(addDocument(writer, id: "2", text: "two") == nil)
        setPosition("2")
        #expect(cx_writable_database_cancel_transaction(writer, &err))
        #expect(takeError(&err) == nil)

        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        #expect(cx_database_doc_count(reader, &err) == 1)
        let position = try withText("position") { key, length in
            try readBytes { cx_database_get_metadata(reader, key, length, $0, $1, $2) }.get()
        }
        #expect(position == Array("1".utf8))
    }

    @Test func aStopperDropsTheStemmedTermsOfItsWords() throws {
        let directory = try ShimTemporaryDirectory()
        let writer = try openWriter(directory.database())
        var err: OpaquePointer?
        let english = try #require(cx_stopper_new_english(&err))
        defer { cx_stopper_free(english) }
        #expect(withText("the") { cx_stopper_contains(english, $0, $1) })
        #expect(!withText("invoice") { cx_stopper_contains(english, $0, $1) })
        let custom = try #require(cx_stopper_new(&err))
        defer { cx_stopper_free(custom) }
        withText("invoice") { _ = cx_stopper_add(custom, $0, $1, &err) }
        #expect(!cx_stopper_add(custom, nil, 0, &err))
        #expect(takeError(&err)?.code == CX_ERR_INVALID_ARGUMENT)

        let generator = try #require(cx_term_generator_new(&err))
        defer { cx_term_generator_free(generator) }
        let document = try #require(cx_document_new(&err))
        defer { cx_document_free(document) }
        #expect(cx_term_generator_set_stemmer(generator, "english", &err))
        #expect(cx_term_generator_set_stopper(generator, custom, &err))
        #expect(cx_term_generator_set_document(generator, document, &err))
        withText("invoice paid") { _ = cx_term_generator_index_text(generator, $0, $1, 1, nil, 0, false, &err) }
        withText("Q1") { _ = cx_writable_database_replace_document(writer, $0, $1, document, nil, &err) }
        #expect(takeError(&err) == nil)
        cx_writable_database_free(writer)

        let reader = try openReader(directory.database())
        defer { cx_database_free(reader) }
        #expect(withText("Zpaid") { cx_database_term_frequency(reader, $0, $1, &err) } == 1)
        // Stop words lose their stemmed term (what plain queries search) but keep the exact one for phrases.
        #expect(withText("Zinvoic") { cx_database_term_frequency(reader, $0, $1, &err) } == 0)
        #expect(withText("invoice") { cx_database_term_frequency(reader, $0, $1, &err) } == 1)
        #expect(takeError(&err) == nil)
    }
}

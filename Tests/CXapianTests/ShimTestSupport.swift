import CXapian
import Foundation
import Testing

/// A directory under the system temporary directory, removed when the test ends.
final class ShimTemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("cxapian-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func database(_ name: String = "db") -> String {
        (path as NSString).appendingPathComponent(name)
    }
}

/// A copy of a shim error, after the shim's error was freed.
struct ShimError: Equatable {
    let code: cx_error_code
    let type: String
    let message: String
    let batchLost: Bool
}

/// Copies and frees the error left in `err` (nil if there is none), resetting `err` for the next call.
func takeError(_ err: inout OpaquePointer?) -> ShimError? {
    guard let error = err else { return nil }
    defer {
        cx_error_free(error)
        err = nil
    }
    var length = 0
    let message = cx_error_get_message(error, &length)!
    return ShimError(
        code: cx_error_get_code(error),
        type: String(cString: cx_error_get_type(error)),
        message: String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self),
        batchLost: cx_error_batch_lost(error)
    )
}

/// Runs a shim call returning a malloc'd buffer; returns its bytes (freed) or the error.
func readBytes(
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<Int>,
             UnsafeMutablePointer<OpaquePointer?>) -> Bool
) -> Result<[UInt8], ShimErrorBox> {
    var buffer: UnsafeMutablePointer<CChar>?
    var length = 0
    var err: OpaquePointer?
    let ok = body(&buffer, &length, &err)
    defer { cx_free(buffer) }
    if let error = takeError(&err) {
        return .failure(ShimErrorBox(error: error))
    }
    guard ok, let buffer else { return .failure(ShimErrorBox(error: nil)) }
    // The shim promises a NUL after the counted bytes.
    #expect(buffer[length] == 0)
    return .success(Array(UnsafeRawBufferPointer(start: buffer, count: length)))
}

/// `ShimError` wrapped as an `Error` so it can travel in a `Result`; nil means "failed without an error".
struct ShimErrorBox: Error {
    let error: ShimError?
}

/// Calls `body` with a pointer and length for the bytes of `bytes` (which may contain NUL).
func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>?, Int) throws -> R) rethrows -> R {
    try bytes.withUnsafeBufferPointer { buffer in
        try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress, $0.count) }
    }
}

/// Calls `body` with a pointer and length for the UTF-8 bytes of `text`.
func withText<R>(_ text: String, _ body: (UnsafePointer<CChar>?, Int) throws -> R) rethrows -> R {
    try withBytes(Array(text.utf8), body)
}

/// Opens a writable database at `path`, failing the test when it cannot.
func openWriter(_ path: String, flags: Int32 = cx_db_create_or_open | cx_db_no_sync) throws -> OpaquePointer {
    var err: OpaquePointer?
    let db = cx_writable_database_open(path, flags, &err)
    if let error = takeError(&err) {
        Issue.record("opening \(path) failed: \(error)")
    }
    return try #require(db)
}

/// Opens a read-only database at `path`, failing the test when it cannot.
func openReader(_ path: String) throws -> OpaquePointer {
    var err: OpaquePointer?
    let db = cx_database_open(path, &err)
    if let error = takeError(&err) {
        Issue.record("opening \(path) read-only failed: \(error)")
    }
    return try #require(db)
}

/// Adds a document with id term "Q<id>", `text` indexed (English stemming) and `data`; returns the error if any.
@discardableResult
func addDocument(_ db: OpaquePointer, id: String, text: String, data: [UInt8]? = nil,
                 extraBooleanTerm: String? = nil) -> ShimError? {
    var err: OpaquePointer?
    guard let document = cx_document_new(&err) else { return takeError(&err) }
    defer { cx_document_free(document) }
    guard let generator = cx_term_generator_new(&err) else { return takeError(&err) }
    defer { cx_term_generator_free(generator) }
    _ = cx_term_generator_set_stemmer(generator, "english", &err)
    _ = cx_term_generator_set_document(generator, document, &err)
    withText(text) { _ = cx_term_generator_index_text(generator, $0, $1, 1, nil, 0, true, &err) }
    withBytes(data ?? Array(id.utf8)) { _ = cx_document_set_data(document, $0, $1, &err) }
    if let extraBooleanTerm {
        withText(extraBooleanTerm) { _ = cx_document_add_boolean_term(document, $0, $1, &err) }
    }
    if let error = takeError(&err) { return error }
    withText("Q" + id) { _ = cx_writable_database_replace_document(db, $0, $1, document, nil, &err) }
    return takeError(&err)
}

import CXapian
import Foundation

/// Pointer-and-length views of Swift values for the shim, which accepts bytes with NUL in them.
enum XapianBytes {
    /// Calls `body` with the UTF-8 bytes of `text` (NUL bytes included).
    static func with<Result>(_ text: String, _ body: (UnsafePointer<CChar>?, Int) throws -> Result) rethrows -> Result {
        var copy = text
        return try copy.withUTF8 { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { chars in try body(chars.baseAddress, chars.count) }
        }
    }

    /// Calls `body` with the raw bytes of `bytes`.
    static func with<Bytes: ContiguousBytes, Result>(
        bytes: Bytes, _ body: (UnsafePointer<CChar>?, Int) throws -> Result
    ) rethrows -> Result {
        try bytes.withUnsafeBytes { raw in
            let chars = raw.bindMemory(to: CChar.self)
            return try body(chars.baseAddress, chars.count)
        }
    }

    /// The shim's out-parameters for a returned buffer: `char **out, size_t *out_len, cx_error **err`.
    typealias Reader = (
        UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<OpaquePointer?>
    ) -> Bool

    /// Runs a shim call that returns a malloc'd buffer, copies the bytes and frees the buffer.
    static func read(_ body: Reader) throws -> [UInt8] {
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        defer { cx_free(buffer) }
        _ = try xapianCall { error in body(&buffer, &length, error) }
        guard let buffer else { return [] }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// Like `read`, decoding the bytes as UTF-8 (invalid sequences become U+FFFD).
    static func readString(_ body: Reader) throws -> String {
        String(decoding: try read(body), as: UTF8.self)
    }
}

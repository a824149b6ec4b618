import Foundation

/// Reads a file or pipe line by line as raw bytes, in large chunks, so that huge inputs stream in bounded memory and
/// invalid UTF-8 can be reported with its line number instead of being replaced silently.
///
/// Linear in the input: each byte is searched for a newline once, however long its line. A line longer than
/// `maximumLineBytes` stops the reader with ``LineTooLong`` instead of growing without bound.
struct LineReader {
    /// A line went on past the limit without a newline.
    struct LineTooLong: Error {
        var limit: Int
    }

    /// The longest line accepted by default: far above any real record, far below what exhausts memory.
    static let defaultMaximumLineBytes = 64 << 20

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next newline resumes: the bytes before it (from `start`) hold none.
    private var scanned = 0
    private var finished = false
    private(set) var bytesRead = 0
    private let chunkSize = 1 << 20
    let maximumLineBytes: Int

    init(handle: FileHandle, maximumLineBytes: Int = LineReader.defaultMaximumLineBytes) {
        self.handle = handle
        self.maximumLineBytes = maximumLineBytes
    }

    /// The next line without its terminator, or nil at the end of the input.
    mutating func next() throws -> [UInt8]? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                guard newline - start <= maximumLineBytes else { throw LineTooLong(limit: maximumLineBytes) }
                let line = Array(buffer[start..<newline])
                bytesRead += newline - start + 1
                start = newline + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            guard buffer.count - start <= maximumLineBytes else { throw LineTooLong(limit: maximumLineBytes) }
            if finished {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                bytesRead += line.count
                start = buffer.count
                scanned = start
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                scanned -= start
                start = 0
            }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: chunkSize)
            } catch {
                throw SpotliteStoreError.unreadable(error.localizedDescription)
            }
            if let chunk, !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
            } else {
                finished = true
            }
        }
    }
}

import Foundation

/// Reads a file or pipe line by line as raw bytes, in large chunks, so that huge inputs stream in bounded memory and
/// invalid UTF-8 can be reported with its line number instead of being replaced silently.
struct LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private(set) var bytesRead = 0
    private let chunkSize = 1 << 20

    init(handle: FileHandle) {
        self.handle = handle
    }

    /// The next line without its terminator, or nil at the end of the input.
    mutating func next() throws -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                bytesRead += newline - start + 1
                start = newline + 1
                return line
            }
            if finished {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                bytesRead += line.count
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: chunkSize)
            } catch {
                throw ImportError.unreadable(error.localizedDescription)
            }
            if let chunk, !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
            } else {
                finished = true
            }
        }
    }
}

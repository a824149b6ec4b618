import Foundation

/// Reads a file or standard input line by line, as it arrives: `spotlite search --queries -` answers each query
/// while the next ones are still being written, so a program can hold a conversation with it through pipes.
final class LineReader {
    /// The input as named in messages.
    let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// Called before each read that may block: where output waiting in a buffer is written, so that whoever
    /// feeds the input sees the answers to what it wrote so far.
    var beforeWaiting: () -> Void = {}

    /// Opens `path`, or standard input for `-`.
    init(path: String) throws {
        if path == "-" {
            name = "standard input"
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            return
        }
        name = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(message: "cannot read \(path): no such file; check the path (or use - for standard input)")
        }
        guard !isDirectory.boolValue else {
            throw CommandFailure(message: "\(path) is a directory; give a file with one query per line (or - for standard input)")
        }
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            throw CommandFailure(message: "cannot read \(path): \(String(cString: strerror(errno))); check the file's permissions")
        }
        descriptor = opened
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Whether ``nextLine()`` can return a line without reading (and so without waiting for the input).
    var hasBufferedLine: Bool {
        buffer[start...].contains(UInt8(ascii: "\n")) || (atEnd && start < buffer.count)
    }

    /// The next line's bytes without its line ending (`\n` or `\r\n`), or nil at the end of the input.
    func nextLine() throws -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[start..<newline]
                start = newline + 1
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            try fill()
        }
    }

    private func fill() throws {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        beforeWaiting()
        let chunk = 1 << 16
        let oldCount = buffer.count
        buffer.reserveCapacity(oldCount + chunk)
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + oldCount, chunk) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            let reason = String(cString: strerror(errno))
            buffer.removeSubrange(oldCount...)
            throw CommandFailure(message: "cannot read \(name): \(reason); check the path")
        }
        buffer.removeSubrange((oldCount + count)...)
        if count == 0 { atEnd = true }
    }
}

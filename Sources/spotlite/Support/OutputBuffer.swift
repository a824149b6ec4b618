import Foundation

/// Bytes on their way to standard output, written in large pieces: one write per 64 KiB rather than one per result.
/// What `print` buffered is flushed first, so the order of everything printed is kept.
final class OutputBuffer {
    private(set) var bytes: [UInt8] = []
    static let threshold = 1 << 16

    init() {
        bytes.reserveCapacity(Self.threshold + (1 << 14))
    }

    func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= Self.threshold { writeOut() }
    }

    /// Lets `body` append bytes, then writes them out if the buffer is full.
    func write(_ body: (inout [UInt8]) -> Void) {
        body(&bytes)
        if bytes.count >= Self.threshold { writeOut() }
    }

    /// Writes what is buffered now, so that a reader at the other end of a pipe sees it.
    func flush() {
        writeOut()
    }

    private func writeOut() {
        guard !bytes.isEmpty else { return }
        // Whatever `print` left in C's buffer goes first, so output keeps its order.
        fflush(nil)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                // A closed pipe or a full disk: the rest has nowhere to go (like `print`, which ignores it too).
                guard written > 0 else { break }
                offset += written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

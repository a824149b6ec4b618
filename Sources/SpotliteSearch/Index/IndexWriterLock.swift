import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The exclusive right to update one index, held as an `flock` on `writer.lock` for as long as this value lives.
///
/// Xapian's own write lock covers one generation only; a rebuild writes a second generation, so a lock on the index
/// directory is what keeps two indexers (in this process or another) from interleaving. The OS releases it when the
/// holder dies, so a crashed indexer never blocks the next one.
final class IndexWriterLock: Sendable {
    private let fd: Int32
    let path: String

    init(directory: IndexDirectory) throws {
        path = directory.lockPath
        // Never through a symbolic link: the pid written below would overwrite the link's target.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SearchError.cannotWrite(path: path, reason: StubFile.openFailure(errno))
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder = Self.readHolder(fd)
            close(fd)
            throw SearchError.indexLocked(path: directory.path, holderPID: holder)
        }
        self.fd = fd
        // Record who holds the lock, for the error message a second indexer prints.
        let pid = "\(getpid())\n"
        ftruncate(fd, 0)
        _ = pid.utf8CString.withUnsafeBufferPointer { pwrite(fd, $0.baseAddress, $0.count - 1, 0) }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    private static func readHolder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int32(text)
    }
}

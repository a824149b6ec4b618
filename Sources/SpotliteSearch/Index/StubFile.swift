import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Xapian stub files (`auto NAME` lines) written so that a crash leaves either the old stub or the new one: written to
/// a fresh temporary file, fsynced, renamed into place, and the directory fsynced.
package enum StubFile {
    /// Replaces the stub at `path` with `lines`, one `auto NAME` entry each.
    ///
    /// The temporary file is created with `O_EXCL | O_NOFOLLOW`: a symbolic link someone left at that name is
    /// refused, never followed, so its target is never overwritten.
    package static func write(_ lines: [String], to path: String) throws {
        try write(contents: lines.map { "auto \($0)\n" }.joined(), to: path)
    }

    /// Replaces the file at `path` with `contents` in the same durable way (the shard map uses it).
    static func write(contents: String, to path: String) throws {
        let temporary = path + ".tmp"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SearchError.cannotWrite(path: temporary, reason: openFailure(errno)) }
        let written = contents.utf8CString.withUnsafeBufferPointer { buffer in
            Glibc.write(fd, buffer.baseAddress, buffer.count - 1)
        }
        let synced = fsync(fd)
        close(fd)
        guard written == contents.utf8.count, synced == 0 else {
            unlink(temporary)
            throw SearchError.cannotWrite(path: temporary, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SearchError.cannotWrite(path: path, reason: reason)
        }
        syncDirectory(containing: path)
    }

    /// Why `open` failed, in words; a symbolic link (refused with `O_NOFOLLOW`) is named as such.
    static func openFailure(_ code: Int32) -> String {
        code == ELOOP ? "it is a symbolic link, and Spotlite does not follow links in the index directory (remove it)"
            : String(cString: strerror(code))
    }

    /// Makes a rename in the directory durable.
    static func syncDirectory(containing path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

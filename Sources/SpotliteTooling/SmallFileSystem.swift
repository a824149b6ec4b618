import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted on a directory of its own, for trials of a full or read-only disk: the reliability suite's
/// and the tests'. Mounting needs root; ``unavailableReason`` says why it cannot be used otherwise, so that callers
/// skip with a message instead of failing.
///
/// The disk fills in two ways: a size too small for what is written, and ``fill(leaving:)``, which writes a ballast
/// file taking all but a few kilobytes of the free space; ``release()`` deletes it ("space returns"), ``resize(megabytes:)``
/// grows the file system in place.
package final class SmallFileSystem {
    /// The mount point.
    package let path: String
    private var mounted = false
    private var ballast: String { path + "/.ballast" }

    /// Why no tmpfs can be mounted here (not root, no `mount`), or nil when it can.
    package static var unavailableReason: String? {
        if geteuid() != 0 { return "mounting a tmpfs needs root (run as root to include the full-disk trials)" }
        if !FileManager.default.isExecutableFile(atPath: "/bin/mount") && !FileManager.default.isExecutableFile(atPath: "/usr/bin/mount") {
            return "no mount command"
        }
        return nil
    }

    /// Mounts a tmpfs of `megabytes` on a new directory `name` under `parent`.
    package init(megabytes: Int, at path: String) throws {
        self.path = path
        if let reason = Self.unavailableReason { throw Failure(description: reason) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", path])
        mounted = true
    }

    deinit { unmount() }

    /// Why a mount or a remount failed.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Free bytes.
    package var freeBytes: Int {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return 0 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Grows (or shrinks, down to what is used) the file system in place.
    package func resize(megabytes: Int) throws {
        try Self.mount(["-o", "remount,size=\(megabytes)m", path])
    }

    /// Makes the file system read-only, or writable again.
    package func setReadOnly(_ readOnly: Bool) throws {
        try Self.mount(["-o", "remount,\(readOnly ? "ro" : "rw")", path])
    }

    /// Writes a ballast file taking the free space but `kilobytes`; replaces an earlier one.
    package func fill(leaving kilobytes: Int) throws {
        release()
        let target = max(0, freeBytes - kilobytes * 1024)
        guard let handle = fopen(ballast, "w") else { throw Failure(description: "cannot create \(ballast): \(String(cString: strerror(errno)))") }
        defer { fclose(handle) }
        let chunk = [UInt8](repeating: 0x5a, count: 64 * 1024)
        var written = 0
        while written < target {
            let count = min(chunk.count, target - written)
            let wrote = chunk.withUnsafeBytes { fwrite($0.baseAddress, 1, count, handle) }
            if wrote < count { break }
            written += wrote
        }
        fflush(handle)
    }

    /// Deletes the ballast file: the space it took returns.
    package func release() {
        unlink(ballast)
    }

    /// Unmounts the file system (everything on it is gone) and removes the mount point.
    package func unmount() {
        guard mounted else { return }
        mounted = false
        try? Self.mount(["-l", path], program: "umount")
        rmdir(path)
    }

    private static func mount(_ arguments: [String], program: String = "mount") throws {
        let executable = ["/bin/\(program)", "/usr/bin/\(program)"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? program
        let outcome = try ChildProcess.run(executable, arguments, error: .discard)
        guard outcome.status == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed with status \(outcome.status)")
        }
    }
}

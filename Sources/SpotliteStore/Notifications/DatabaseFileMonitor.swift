import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc

/// Calls a handler when a process writes the database file or its WAL, using inotify on the file's folder
/// (the WAL is deleted and re-created, so watching the folder is the only way to keep seeing it).
///
/// A commit becomes visible to readers only when the writer updates the WAL index in shared memory, which
/// inotify cannot see and which may happen just after the last write to the WAL. So after each burst of events
/// the handler runs again a few times (after 10, 50 and 250 ms): cheap checks, and only after activity.
final class DatabaseFileMonitor: Sendable {
    private let stopFD: Int32
    private let stopped = Mutex(false)

    /// Starts watching. `handler` runs on the monitor's own thread, never concurrently with itself: once at the
    /// start, then after changes.
    init(databasePath: String, handler: @escaping @Sendable () -> Void) throws {
        let url = URL(fileURLWithPath: databasePath)
        let directory = url.deletingLastPathComponent().path
        let fileName = url.lastPathComponent
        let watchedNames: Set<String> = [fileName, fileName + "-wal"]

        let inotifyFD = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotifyFD >= 0 else { throw Self.systemError("inotify_init1") }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)
        guard inotify_add_watch(inotifyFD, directory, mask) >= 0 else {
            let error = Self.systemError("inotify_add_watch \(directory)")
            close(inotifyFD)
            throw error
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            let error = Self.systemError("pipe")
            close(inotifyFD)
            throw error
        }
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        stopFD = pipeFDs[1]
        let wakeFD = pipeFDs[0]
        let thread = Thread {
            Self.run(inotifyFD: inotifyFD, wakeFD: wakeFD, watchedNames: watchedNames, handler: handler)
        }
        thread.name = "spotlite.store-monitor"
        thread.start()
    }

    /// Ends the thread (closing the pipe wakes it). Idempotent.
    func stop() {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        if !alreadyStopped { close(stopFD) }
    }

    deinit {
        stop()
    }

    private static let followUpDelays: [Duration] = [.milliseconds(10), .milliseconds(50), .milliseconds(250)]

    private static func run(
        inotifyFD: Int32, wakeFD: Int32, watchedNames: Set<String>, handler: @Sendable () -> Void
    ) {
        defer {
            close(inotifyFD)
            close(wakeFD)
        }
        let clock = ContinuousClock()
        var followUps: [ContinuousClock.Instant] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // Commits made before the watch existed produced no event: look once now.
        handler()
        while true {
            var fds = [
                pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            var timeout: Int32 = -1
            if let next = followUps.first {
                let remaining = clock.now.duration(to: next)
                let (seconds, attoseconds) = remaining.components
                timeout = max(0, Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000) + 1)
            }
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0 {
                if readEvents(inotifyFD, &buffer, watchedNames: watchedNames) {
                    handler()
                    let now = clock.now
                    followUps = followUpDelays.map { now.advanced(by: $0) }
                }
            } else if !followUps.isEmpty, clock.now >= followUps[0] {
                followUps.removeFirst()
                handler()
            }
        }
    }

    /// Drains the queued events; true when one concerns a watched file.
    private static func readEvents(_ fd: Int32, _ buffer: inout [UInt8], watchedNames: Set<String>) -> Bool {
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                let headerSize = MemoryLayout<inotify_event>.size
                while offset + headerSize <= count {
                    let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + headerSize
                    if nameLength > 0, nameStart + nameLength <= count {
                        let nameBytes = bytes[nameStart..<(nameStart + nameLength)].prefix { $0 != 0 }
                        if watchedNames.contains(String(decoding: nameBytes, as: UTF8.self)) { relevant = true }
                    }
                    offset = nameStart + nameLength
                }
            }
        }
    }

    private static func systemError(_ operation: String) -> NSError {
        let code = errno
        return NSError(
            domain: NSPOSIXErrorDomain, code: Int(code),
            userInfo: [NSLocalizedDescriptionKey: "\(operation) failed: \(String(cString: strerror(code)))"])
    }
}
#endif

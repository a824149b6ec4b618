import Dispatch
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
/// A writer paused longer than that between the two (a loaded machine, a stopped process) would leave its commit
/// unseen until the next write to the folder, and so would events the kernel dropped (its queue overflowed):
/// so the handler also runs every ``sweepInterval`` while the monitor lives, which bounds the delay of any
/// commit (the check is one `PRAGMA data_version`).
///
/// Every monitor of the process shares one inotify instance (``FolderWatcher``): the kernel allows a user few of
/// them (128 by default, across all of that user's processes), and a process with many stores open, or many
/// processes, would otherwise run out and silently miss other processes' commits.
final class DatabaseFileMonitor: Sendable {
    /// How often the handler runs without any event (see above).
    static let sweepInterval: DispatchTimeInterval = .seconds(2)

    private let registration: FolderWatcher.Registration

    /// Starts watching. `handler` runs on the monitor's own queue, never concurrently with itself: once at the
    /// start, then after changes.
    init(databasePath: String, handler: @escaping @Sendable () -> Void) throws {
        let url = URL(fileURLWithPath: databasePath)
        let fileName = url.lastPathComponent
        registration = try FolderWatcher.shared.get().watch(
            folder: url.deletingLastPathComponent().path, names: [fileName, fileName + "-wal"],
            handler: MonitorHandler(label: "spotlite.store-monitor", handler: handler))
    }

    /// Stops calling the handler. Idempotent.
    func stop() {
        registration.cancel()
    }

    deinit {
        stop()
    }
}

/// Runs one monitor's handler on a queue of its own: at once on a change, then the follow-ups; a new change
/// reschedules the follow-ups.
private final class MonitorHandler: Sendable {
    private static let followUpDelays: [Int] = [10, 50, 250]

    private let queue: QueueBox
    private let handler: @Sendable () -> Void
    /// Which burst the scheduled follow-ups belong to; a newer burst makes older follow-ups do nothing.
    private let burst = Atomic(0)
    private let cancelled = Atomic(false)

    init(label: String, handler: @escaping @Sendable () -> Void) {
        queue = QueueBox(DispatchQueue(label: label, qos: .utility))
        self.handler = handler
    }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Looks once (commits made before the watch existed produced no event), then every sweep interval.
    func start() {
        queue.queue.async { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            handler()
        }
        scheduleSweep()
    }

    private func scheduleSweep() {
        queue.queue.asyncAfter(deadline: .now() + DatabaseFileMonitor.sweepInterval) { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            handler()
            scheduleSweep()
        }
    }

    /// Called on the watcher's thread when a watched file changed.
    func changed() {
        let current = burst.add(1, ordering: .relaxed).newValue
        queue.queue.async { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            handler()
        }
        for delay in Self.followUpDelays {
            queue.queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [self] in
                guard !cancelled.load(ordering: .acquiring), burst.load(ordering: .relaxed) == current else { return }
                handler()
            }
        }
    }

    private final class QueueBox: @unchecked Sendable {
        // @unchecked: DispatchQueue is thread-safe but not marked Sendable by corelibs-libdispatch.
        let queue: DispatchQueue
        init(_ queue: DispatchQueue) { self.queue = queue }
    }
}

/// The process's one inotify instance, read by one thread, with a watch per watched folder.
private final class FolderWatcher: Sendable {
    /// Created on first use; an error when the system refuses an inotify instance.
    static let shared = Result { try FolderWatcher() }

    /// One monitor's interest in a folder: the file names it watches and its handler.
    final class Registration: Sendable {
        fileprivate let id: Int
        fileprivate let names: Set<String>
        fileprivate let handler: MonitorHandler
        private let watcher: FolderWatcher

        fileprivate init(id: Int, names: Set<String>, handler: MonitorHandler, watcher: FolderWatcher) {
            self.id = id
            self.names = names
            self.handler = handler
            self.watcher = watcher
        }

        func cancel() {
            handler.cancel()
            watcher.remove(id)
        }
    }

    private struct State {
        /// Registrations by watch descriptor.
        var byWatch: [Int32: [Registration]] = [:]
        var watchByRegistration: [Int: Int32] = [:]
        var nextID = 0
    }

    private let inotifyFD: Int32
    private let state = Mutex(State())

    private init() throws {
        inotifyFD = inotify_init1(Int32(IN_CLOEXEC))
        guard inotifyFD >= 0 else { throw Self.systemError("inotify_init1") }
        let thread = Thread { [self] in
            run()
        }
        thread.name = "spotlite.store-monitor"
        thread.start()
    }

    func watch(folder: String, names: Set<String>, handler: MonitorHandler) throws -> Registration {
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)
        let registration = try state.withLock { state throws -> Registration in
            // The same folder gives the same watch descriptor: monitors of one folder share it.
            let watch = inotify_add_watch(inotifyFD, folder, mask)
            guard watch >= 0 else { throw Self.systemError("inotify_add_watch \(folder)") }
            let registration = Registration(id: state.nextID, names: names, handler: handler, watcher: self)
            state.nextID += 1
            state.byWatch[watch, default: []].append(registration)
            state.watchByRegistration[registration.id] = watch
            return registration
        }
        handler.start()
        return registration
    }

    fileprivate func remove(_ id: Int) {
        state.withLock { state in
            guard let watch = state.watchByRegistration.removeValue(forKey: id) else { return }
            state.byWatch[watch]?.removeAll { $0.id == id }
            if state.byWatch[watch]?.isEmpty == true {
                state.byWatch[watch] = nil
                _ = inotify_rm_watch(inotifyFD, watch)
            }
        }
    }

    /// Called with the events of one read: tells each registration whose files changed (all of them when the
    /// kernel's queue overflowed and events were lost).
    private func deliver(_ events: [(watch: Int32, name: String, ignored: Bool)], overflowed: Bool) {
        var changed: [Int: MonitorHandler] = [:]
        state.withLock { state in
            if overflowed {
                for registration in state.byWatch.values.joined() { changed[registration.id] = registration.handler }
            }
            for event in events {
                if event.ignored {
                    // The folder is gone (or the watch removed): its registrations will see nothing more.
                    if let registrations = state.byWatch.removeValue(forKey: event.watch) {
                        for registration in registrations { state.watchByRegistration[registration.id] = nil }
                    }
                    continue
                }
                for registration in state.byWatch[event.watch] ?? [] where registration.names.contains(event.name) {
                    changed[registration.id] = registration.handler
                }
            }
        }
        for handler in changed.values { handler.changed() }
    }

    /// Reads events for the life of the process (the instance is never released).
    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            var events: [(watch: Int32, name: String, ignored: Bool)] = []
            var overflowed = false
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                let headerSize = MemoryLayout<inotify_event>.size
                while offset + headerSize <= count {
                    let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + headerSize
                    var name = ""
                    if nameLength > 0, nameStart + nameLength <= count {
                        name = String(decoding: bytes[nameStart..<(nameStart + nameLength)].prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        overflowed = true
                    } else {
                        events.append((watch, name, mask & UInt32(IN_IGNORED) != 0))
                    }
                    offset = nameStart + nameLength
                }
            }
            deliver(events, overflowed: overflowed)
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

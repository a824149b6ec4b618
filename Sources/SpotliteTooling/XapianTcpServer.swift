import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `xapian-tcpsrv --writable` serving one database on 127.0.0.1, for tests and benchmarks.
///
/// It listens on the loopback interface only, on a port found free, in a session of its own (`setsid`: its SIGTERM
/// handler signals its whole process group, which must not be ours), under `timeout -s KILL` so that it never
/// outlives a crashed test by more than its lifetime. ``stop()`` (also run on deinit) kills the session by its id.
/// Owned by one thread or task at a time.
public final class XapianTcpServer: @unchecked Sendable {
    // @unchecked: `pid` changes only in start/stop, which the owner calls from one task at a time.

    /// Why a server could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The directory of the database served (created by the server when missing).
    public let databasePath: String
    /// The port on 127.0.0.1.
    public let port: Int
    /// How long the server may run before `timeout` kills it, whatever happens to its owner.
    public let lifetime: Duration
    private let logPath: String
    /// The session leader (`timeout`, whose child is the server); nil when stopped.
    public private(set) var pid: pid_t?

    /// `tcp://127.0.0.1:PORT`, as a `shards` location.
    public var location: String { "tcp://127.0.0.1:\(port)" }
    /// `127.0.0.1:PORT`, as errors name it.
    public var hostAndPort: String { "127.0.0.1:\(port)" }

    /// Starts a server for `databasePath` on a free port of 127.0.0.1 and waits until it accepts connections.
    public convenience init(databasePath: String, lifetime: Duration = .seconds(600)) throws {
        var lastError: (any Error)?
        // A port found free may be taken before the server binds it: try a few.
        for _ in 0..<5 {
            do {
                try self.init(databasePath: databasePath, port: try Self.freePort(), lifetime: lifetime)
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? Failure(description: "no free port for xapian-tcpsrv")
    }

    /// Starts a server for `databasePath` on `port` of 127.0.0.1 and waits until it accepts connections.
    public init(databasePath: String, port: Int, lifetime: Duration = .seconds(600)) throws {
        self.databasePath = databasePath
        self.port = port
        self.lifetime = lifetime
        logPath = databasePath + ".tcpsrv.log"
        try start()
    }

    deinit {
        stop()
    }

    /// The server program, from PATH.
    public static func executable() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/xapian-tcpsrv"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw Failure(description: "xapian-tcpsrv is not installed; install xapian-tools (make deps does)")
    }

    /// Starts the server again (after ``stop()`` or ``kill()``) on the same port and database.
    public func start() throws {
        guard pid == nil else { return }
        let server = try Self.executable()
        let seconds = max(1, lifetime.components.seconds)
        let arguments = ["/usr/bin/setsid", "/usr/bin/timeout", "-s", "KILL", "\(seconds)s", server, "--writable",
                         "--interface", "127.0.0.1", "--port", String(port), databasePath]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        // A posix_spawn child is no process group leader, so setsid(1) makes it a session leader in place: the
        // session's id is this pid, and killing the group reaches the server and its per-connection children.
        let result = posix_spawn(&child, arguments[0], &actions, nil, argv, environ)
        guard result == 0 else {
            throw Failure(description: "cannot start xapian-tcpsrv: \(String(cString: strerror(result)))")
        }
        pid = child
        do {
            try waitUntilListening()
        } catch {
            stop()
            throw error
        }
    }

    /// Kills the server at once (SIGKILL to its session), as a crash would, and reaps it.
    public func stop() {
        guard let pid else { return }
        _ = Glibc.kill(-pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        self.pid = nil
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the whole server: a stopped server accepts connections in the kernel
    /// but answers nothing, as a hung host would.
    public func signal(_ signal: Int32) {
        guard let pid else { return }
        _ = Glibc.kill(-pid, signal)
    }

    /// What the server printed.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private func waitUntilListening() throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let pid {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    self.pid = nil
                    throw Failure(description: "xapian-tcpsrv on port \(port) exited at once: \(log)")
                }
            }
            if Self.accepts(port: port) { return }
            usleep(20_000)
        }
        throw Failure(description: "xapian-tcpsrv on port \(port) did not listen within 20 s: \(log)")
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0
    }

    /// A port of 127.0.0.1 free right now (the kernel's choice for port 0).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure(description: "bind: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

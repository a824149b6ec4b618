import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `spotlite index replicate serve` run by a test: on 127.0.0.1 and a free port, in a session of its own (`setsid`),
/// bounded in time (`timeout`), and stopped by its pid (and its Xapian server's) in every path.
///
/// Started with `posix_spawn`, not Foundation's `Process`, which makes the child a process group leader: `setsid`
/// would then fork, and the pid known here would not be the server's.
final class ReplicationServerProcess {
    /// The pid of `timeout`, which runs `spotlite … serve` and passes signals on to it.
    let pid: pid_t
    let port: Int
    /// The pid of the `xapian-replicate-server` that `serve` started (from its first JSON line).
    private(set) var serverPID: pid_t?
    private let outputPath: String
    private var exitStatus: Int32?

    var address: String { "127.0.0.1:\(port)" }

    /// Starts the server for the index of `tool`'s configuration and waits (up to `timeout` seconds) until it serves.
    init(tool: CommandLineTool, port: Int? = nil, lifetime: Int = 300, timeout: Double = 60) throws {
        self.port = try port ?? Self.freePort()
        outputPath = tool.path("serve-\(UUID().uuidString).jsonl")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, outputPath + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = ["/usr/bin/setsid", "timeout", "-k", "5", String(lifetime), CommandLineTool.binary,
                         "index", "replicate", "serve", "--config", tool.path("config/spotlite.toml"), "--host", "127.0.0.1", "--port", String(self.port), "--json"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, arguments[0], &actions, &attributes, argv, environ)
        guard result == 0 else { throw ServerError.cannotStart(String(cString: strerror(result))) }
        pid = child
        let deadline = Date().addingTimeInterval(timeout)
        while serverPID == nil {
            if let line = try? String(contentsOfFile: outputPath, encoding: .utf8).split(separator: "\n").first,
               let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               object["event"] as? String == "serving", let serverPID = object["pid"] as? Int {
                self.serverPID = pid_t(serverPID)
                break
            }
            if !isRunning || Date() > deadline {
                let message = errorOutput
                stop()
                throw ServerError.cannotStart(message.isEmpty ? "no \"serving\" line within \(Int(timeout)) seconds" : message)
            }
            usleep(20_000)
        }
    }

    enum ServerError: Error, CustomStringConvertible {
        case cannotStart(String)
        var description: String {
            switch self {
            case let .cannotStart(message): "spotlite index replicate serve did not start: \(message)"
            }
        }
    }

    /// The JSON lines `serve` printed so far.
    var events: [[String: Any]] {
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    var errorOutput: String {
        ((try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var isRunning: Bool {
        if exitStatus != nil { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            exitStatus = raw
            return false
        }
        return true
    }

    /// Stops `serve` with SIGTERM (it stops its Xapian server), then SIGKILL for anything left after 10 seconds.
    /// Returns `serve`'s exit status (as `waitpid` reports it).
    @discardableResult
    func stop() -> Int32? {
        if isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while isRunning && Date() < deadline { usleep(20_000) }
            if isRunning {
                kill(pid, SIGKILL)
                while isRunning { usleep(20_000) }
            }
        }
        // serve stops its server; should serve itself have been killed, its server is stopped here.
        if let serverPID, kill(serverPID, 0) == 0 {
            kill(serverPID, SIGKILL)
        }
        return exitStatus
    }

    deinit {
        stop()
    }

    /// A port nothing listens on now: bound to port 0 on 127.0.0.1, read back, released.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.cannotStart("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw ServerError.cannotStart("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

import Foundation
import SpotliteReplication
import SpotliteSearch
import SpotliteTooling
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `spotlite index replicate serve` run by a test: on 127.0.0.1 and a free port, in a session of its own, bounded in
/// time (`SessionProcess`, the package's one spawner of servers), and stopped by its pid (and its Xapian server's) in
/// every path.
final class ReplicationServerProcess {
    private let process: SessionProcess
    let port: Int
    /// The pid of the `xapian-replicate-server` that `serve` started (from its first JSON line).
    private(set) var serverPID: pid_t?

    /// The pid of `timeout`, which runs `spotlite … serve` and passes signals on to it.
    var pid: pid_t { process.pid }
    var address: String { "127.0.0.1:\(port)" }

    /// Starts the server for the index of `tool`'s configuration and waits (up to `timeout` seconds) until it serves.
    init(tool: CommandLineTool, port: Int? = nil, lifetime: Int = 300, timeout: Double = 60) throws {
        self.port = try port ?? Self.freePort()
        let outputPath = tool.path("serve-\(UUID().uuidString).jsonl")
        process = try SessionProcess(
            executable: CommandLineTool.binary,
            arguments: ["index", "replicate", "serve", "--config", tool.path("config/spotlite.toml"), "--host", "127.0.0.1",
                        "--port", String(self.port), "--json"],
            outputPath: outputPath, errorPath: outputPath + ".err", lifetime: .seconds(lifetime))
        let deadline = Date().addingTimeInterval(timeout)
        while serverPID == nil {
            if let line = process.output.split(separator: "\n").first,
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
            // The server's output goes to a file (SessionProcess: the program outlives no pipe), which tells no one
            // when it grows: a poll, bounded by `timeout` and by the server exiting.
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
        process.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    var errorOutput: String { process.errorOutput.trimmingCharacters(in: .whitespacesAndNewlines) }

    var isRunning: Bool { process.isRunning }

    /// Stops `serve` with SIGTERM (it stops its Xapian server), then SIGKILL for anything left after 10 seconds.
    /// Returns `serve`'s exit status (as `waitpid` reports it).
    @discardableResult
    func stop() -> Int32? {
        process.stop(grace: 10)
        // serve stops its server; should serve itself have been killed, its server is stopped here.
        if let serverPID, kill(serverPID, 0) == 0 {
            kill(serverPID, SIGKILL)
        }
        return process.exitStatus
    }

    deinit {
        stop()
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        try LoopbackPort.free()
    }
}

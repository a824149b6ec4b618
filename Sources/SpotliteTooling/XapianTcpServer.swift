import Foundation
import SpotliteReplication
import SpotliteSearch
#if canImport(Glibc)
import Glibc
#endif

/// A `xapian-tcpsrv --writable` serving one database on 127.0.0.1, for tests and benchmarks.
///
/// It listens on the loopback interface only, on a port found free, in a session of its own under `timeout`, so
/// that it never outlives a crashed test by more than its lifetime (see `SessionProcess`, the package's one spawner
/// of servers). ``stop()`` (also run on deinit) kills the session by its id. Owned by one thread or task at a time.
package final class XapianTcpServer: @unchecked Sendable {
    // @unchecked: `process` changes only in start/stop, which the owner calls from one task at a time.

    /// Why a server could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The directory of the database served (created by the server when missing).
    package let databasePath: String
    /// The port on 127.0.0.1.
    package let port: Int
    /// How long the server may run before `timeout` kills it, whatever happens to its owner.
    package let lifetime: Duration
    private let logPath: String
    private var process: SessionProcess?

    /// The session's id (`timeout`, whose child is the server); nil when stopped.
    package var pid: pid_t? { process?.pid }
    /// `tcp://127.0.0.1:PORT`, as a `shards` location.
    package var location: String { "tcp://127.0.0.1:\(port)" }
    /// `127.0.0.1:PORT`, as errors name it.
    package var hostAndPort: String { "127.0.0.1:\(port)" }

    /// Starts a server for `databasePath` on a free port of 127.0.0.1 and waits until it accepts connections.
    package convenience init(databasePath: String, lifetime: Duration = .seconds(600)) throws {
        var lastError: (any Error)?
        // A port found free may be taken before the server binds it: try a few.
        for _ in 0..<5 {
            do {
                try self.init(databasePath: databasePath, port: try LoopbackPort.free(), lifetime: lifetime)
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? Failure(description: "no free port for xapian-tcpsrv")
    }

    /// Starts a server for `databasePath` on `port` of 127.0.0.1 and waits until it accepts connections.
    package init(databasePath: String, port: Int, lifetime: Duration = .seconds(600)) throws {
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
    package static func executable() throws -> String {
        do {
            return try SessionProcess.find("xapian-tcpsrv")
        } catch {
            throw Failure(description: "xapian-tcpsrv is not installed; install xapian-tools (make deps does)")
        }
    }

    /// Starts the server again (after ``stop()``) on the same port and database.
    package func start() throws {
        guard process == nil else { return }
        let server = try Self.executable()
        do {
            // Listed in SpawnedProcesses, so that an interrupted harness stops the whole session.
            process = try SpawnedProcesses.start(wholeGroup: true) {
                let session = try SessionProcess(executable: server, arguments: ["--writable", "--interface", "127.0.0.1",
                                                                                 "--port", String(port), databasePath],
                                                 outputPath: logPath, appending: true, lifetime: lifetime)
                return (session, session.pid)
            }
        } catch let failure as SessionProcess.Failure {
            throw Failure(description: failure.description)
        }
        do {
            try waitUntilListening()
        } catch {
            stop()
            throw error
        }
    }

    /// Kills the server at once (SIGKILL to its session), as a crash would, reaps it, and waits until its port is
    /// closed.
    package func stop() {
        guard let process else { return }
        SpawnedProcesses.reap(process.pid) {
            process.kill()
            return true
        }
        self.process = nil
        waitUntilClosed()
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the whole server: a stopped server accepts connections in the kernel
    /// but answers nothing, as a hung host would.
    package func signal(_ signal: Int32) {
        process?.signal(signal)
    }

    /// What the server printed.
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    // The session's leader (`timeout`) can be reaped before the killed server has closed its listening socket (one
    // stop in six, measured): a restart's readiness probe, or a client, would then reach the dying socket and be reset.
    private func waitUntilClosed() {
        let deadline = ContinuousClock.now + .seconds(10)
        while LoopbackPort.accepts(port) && ContinuousClock.now < deadline { usleep(2_000) }
    }

    private func waitUntilListening() throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let process, !process.isRunning {
                SpawnedProcesses.reap(process.pid) { true }
                self.process = nil
                throw Failure(description: "xapian-tcpsrv on port \(port) exited at once: \(log)")
            }
            if LoopbackPort.accepts(port) { return }
            usleep(20_000)
        }
        throw Failure(description: "xapian-tcpsrv on port \(port) did not listen within 20 s: \(log)")
    }
}

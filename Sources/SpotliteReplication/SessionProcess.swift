import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A long-running program (a Xapian server, or `spotlite` serving replicas in a test) started with `posix_spawn` in a
/// session of its own (through `setsid`), optionally bounded in time (through `timeout`), its output in files,
/// watched and reaped with `waitpid`, and stopped by its session id. The one spawner of servers in the package: the
/// replication server, the tooling's `XapianTcpServer` and the tests' servers use it.
///
/// A session of its own, because Xapian's servers signal their whole process group from their SIGTERM handler, which
/// must find a group holding nothing but the server and its connection handlers; and because stopping the session
/// reaches every process the program started. Not Foundation's `Process`: it makes the child a process group leader,
/// so `setsid` would fork and the pid known here would not be the session's; `posix_spawn`'s child is no group
/// leader, so `setsid` makes it a session leader in place, and ``pid`` is the session id.
package final class SessionProcess: Sendable {
    /// Why a program could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The session leader: the program itself, or `timeout` running it when a lifetime was given.
    package let pid: pid_t
    /// Where the program's standard output goes (and its standard error, without ``errorPath``).
    package let outputPath: String
    /// Where its standard error goes, when apart from its output.
    package let errorPath: String?
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable arguments…` in a new session; stdin from /dev/null, stdout to `outputPath`, stderr to
    /// `errorPath` (default: with stdout), both truncated unless `appending`. With a `lifetime`, `timeout` sends
    /// SIGTERM past it and SIGKILL five seconds later, so the program never outlives a crashed owner by much.
    package init(executable: String, arguments: [String], outputPath: String, errorPath: String? = nil,
                 appending: Bool = false, lifetime: Duration? = nil) throws {
        let setsid = try Self.find("setsid")
        var command = [setsid, executable] + arguments
        if let lifetime {
            command = [setsid, try Self.find("timeout"), "-k", "5", "\(max(1, lifetime.components.seconds))s", executable]
                + arguments
        }
        self.outputPath = outputPath
        self.errorPath = errorPath
        let flags = O_WRONLY | O_CREAT | (appending ? O_APPEND : O_TRUNC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, flags, 0o600)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, flags, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // A fresh signal state: the caller may block signals (Dispatch threads do) or ignore SIGTERM (a command
        // waiting for it does), and both would be inherited across exec, leaving a program SIGTERM cannot stop.
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
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, setsid, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    /// `name` on `PATH`, then in /usr/bin and /usr/local/bin.
    package static func find(_ name: String) throws -> String {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = searchPath.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        guard let found = folders.map({ $0 + "/" + name }).first(where: { access($0, X_OK) == 0 }) else {
            throw Failure(description: "\(name) is not installed")
        }
        return found
    }

    /// The exit status (as `waitpid` reports it) once the session leader has ended; nil while it runs.
    package var exitStatus: Int32? {
        status.withLock { status in
            if status != nil { return status }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status
        }
    }

    package var isRunning: Bool { exitStatus == nil }

    /// Everything the program wrote to its output file so far.
    package var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Everything it wrote to its error file (its output, without a separate error file).
    package var errorOutput: String {
        errorPath.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" } ?? output
    }

    /// The program's last line of output (its error message when it stopped).
    package var lastMessage: String {
        output.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// Sends `signal` to the whole session (SIGSTOP freezes a server as a hung host would), or to the leader only.
    package func signal(_ signal: Int32, wholeSession: Bool = true) {
        guard isRunning else { return }
        _ = Glibc.kill(wholeSession ? -pid : pid, signal)
    }

    /// Stops the program: SIGTERM to the leader (which passes it on, or signals its group), then SIGKILL to the whole
    /// session after `grace` seconds; waits for the leader, and kills anything of the session still left.
    package func stop(grace: Double = 2) {
        if isRunning {
            _ = Glibc.kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(grace)
            while isRunning && Date() < deadline { usleep(10_000) }
        }
        kill()
    }

    /// Kills the whole session at once (SIGKILL), as a crash would, and reaps the leader.
    package func kill() {
        _ = Glibc.kill(-pid, SIGKILL)
        if isRunning {
            _ = Glibc.kill(pid, SIGKILL)
            while isRunning { usleep(5_000) }
        }
    }

    /// Removes the output files.
    package func removeOutput() {
        unlink(outputPath)
        if let errorPath { unlink(errorPath) }
    }
}

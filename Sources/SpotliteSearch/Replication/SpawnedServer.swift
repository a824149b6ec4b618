import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A long-running child program started with `posix_spawn` in a session of its own (through `setsid`), with its
/// output in a log file, watched and reaped with `waitpid`.
///
/// Not Foundation's `Process`: that makes the child a process group leader, so `setsid` forks and the program's pid
/// is not the one it reports; and a server's own SIGTERM handler that signals its whole group (as Xapian's servers
/// do) must find a group holding nothing but itself.
final class SpawnedServer: Sendable {
    let pid: pid_t
    let logPath: String
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable arguments…` in a new session; stdin from /dev/null, stdout and stderr to `logPath`.
    init(executable: String, arguments: [String], logPath: String) throws {
        let setsid = try ExternalTool("setsid")
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // A fresh signal state: the caller may block signals (Dispatch threads do) or ignore SIGTERM (a command
        // waiting for it does), and both would be inherited across exec, leaving a server that SIGTERM cannot stop.
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
        let argv = ([setsid.path, executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, setsid.path, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw ReplicationError.toolMissing("\(executable) (cannot start it: \(String(cString: strerror(result))))")
        }
        pid = child
    }

    /// The exit status (as `waitpid` reports it) once the program has ended; nil while it runs.
    var exitStatus: Int32? {
        status.withLock { status in
            if status != nil { return status }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status
        }
    }

    var isRunning: Bool { exitStatus == nil }

    /// The program's last line of output (its error message when it stopped).
    var lastMessage: String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// Stops the program: SIGTERM, then SIGKILL after `grace` seconds; waits for it and removes the log.
    func stop(grace: Double = 2) {
        if isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(grace)
            while isRunning && Date() < deadline { usleep(10_000) }
            if isRunning {
                kill(pid, SIGKILL)
                while isRunning { usleep(10_000) }
            }
        }
        unlink(logPath)
    }
}

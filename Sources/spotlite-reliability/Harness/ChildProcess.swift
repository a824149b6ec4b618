import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its standard output and error written to files, its peak memory
/// sampled while it runs. Owned by one thread: the suites drive children from a single loop.
final class ChildProcess {
    /// How a child ended.
    struct Termination: CustomStringConvertible {
        /// The exit status, when it exited.
        var exitStatus: Int32?
        /// The signal that ended it, when one did.
        var signal: Int32?
        /// Peak resident memory, in kilobytes: the highest `VmHWM` seen while it ran (see ``peakKilobytes``).
        var maximumResidentKilobytes: Int
        var seconds: Double
        /// True when the harness killed it because it ran past its time limit (a hang).
        var timedOut = false

        var succeeded: Bool { exitStatus == 0 }

        var description: String {
            if timedOut { return "timed out after \(Int(seconds)) s" }
            if let signal { return "killed by signal \(signal)" }
            return "exit status \(exitStatus ?? -1)"
        }
    }

    let pid: pid_t
    let arguments: [String]
    let stdoutPath: String
    let stderrPath: String
    private let started = ContinuousClock.now
    private(set) var termination: Termination?
    /// The highest resident set seen so far. `wait4`'s `ru_maxrss` cannot be used: a child made by `posix_spawn`
    /// (vfork) shares the harness's memory until `exec`, and Linux counts that memory in the child's peak.
    private(set) var peakKilobytes = 0

    /// Starts `executable` with `arguments`. Standard input comes from `stdinPath` (default /dev/null); output goes to
    /// the given files; `directory` is its working directory.
    init(executable: String, arguments: [String], directory: String? = nil, stdinPath: String? = nil,
         stdoutPath: String, stderrPath: String, environment: [String: String] = [:]) throws {
        self.arguments = [executable] + arguments
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let directory {
            guard let addChdir = Self.addChdir else {
                throw HarnessError("this C library cannot set a child's working directory (posix_spawn_file_actions_addchdir_np)")
            }
            _ = addChdir(&actions, directory)
        }

        // Children start with default signal dispositions and an empty mask, whatever the harness changed.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var environmentValues = ProcessInfo.processInfo.environment
        environmentValues["TERM"] = "dumb"
        for (name, value) in environment { environmentValues[name] = value }
        let argv = self.arguments.map { strdup($0) } + [nil]
        let envp = environmentValues.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw HarnessError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    /// glibc 2.29's `posix_spawn_file_actions_addchdir_np`, which Swift's Glibc module does not import.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let addChdir: AddChdir? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    /// Reaps the child if it has ended, without waiting.
    @discardableResult
    func poll() -> Termination? {
        if let termination { return termination }
        samplePeakMemory()
        return reap(options: WNOHANG)
    }

    /// Reads `VmHWM` (the peak resident set of the process's current image) from /proc.
    private func samplePeakMemory() {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            if let kilobytes = Int(line.dropFirst(6).split(whereSeparator: \.isWhitespace).first ?? "") {
                peakKilobytes = max(peakKilobytes, kilobytes)
            }
        }
    }

    /// Waits for the child to end. Past `timeout` seconds it is killed with SIGKILL and reported as timed out.
    @discardableResult
    func wait(timeout: Double = 600) -> Termination {
        let deadline = started + .milliseconds(Int(timeout * 1000))
        while true {
            if let termination = poll() { return termination }
            if ContinuousClock.now >= deadline {
                kill(SIGKILL)
                var ended = reap(options: 0)!
                ended.timedOut = true
                termination = ended
                return ended
            }
            // Short naps while it is young (most children end quickly), longer ones after.
            usleep(elapsed < 0.2 ? 2_000 : 10_000)
        }
    }

    func kill(_ signal: Int32) {
        guard termination == nil else { return }
        _ = Glibc.kill(pid, signal)
    }

    /// Seconds since the child started.
    var elapsed: Double { (ContinuousClock.now - started).seconds }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    private func reap(options: Int32) -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, options)
        guard result == pid else { return nil }
        var ended = Termination(exitStatus: nil, signal: nil, maximumResidentKilobytes: peakKilobytes,
                                seconds: (ContinuousClock.now - started).seconds)
        // WIFEXITED / WIFSIGNALED, which Swift does not import as functions.
        if status & 0x7F == 0 {
            ended.exitStatus = (status >> 8) & 0xFF
        } else {
            ended.signal = status & 0x7F
        }
        termination = ended
        return ended
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program run as a child process by the benchmark, the reliability suites and the tests: started with
/// `posix_spawn` with a fresh signal state, its standard output and error in files, on a pipe or inherited, its peak
/// memory sampled while it is polled, reaped with `wait4` for its exit status and CPU time, and killed by pid at any
/// moment its owner picks. Every child is listed in ``SpawnedProcesses`` until it is reaped, so that an interrupted
/// harness stops them all. (Servers, which live in sessions of their own, are `SessionProcess`es.)
///
/// Why `posix_spawn` here and not swift-subprocess (1.0.2, which can start a child in a process group, capture its
/// output and set its environment): swift-subprocess reaps its children itself, on its monitor thread with `waitid`,
/// so `wait4`'s CPU time (the benchmark's per-query CPU figures) is lost; its API is `async` and scoped to a closure,
/// while the reliability suites drive many children from one synchronous loop, polling each and killing it at a
/// seeded moment, and a bridge from there into tasks would block threads of the cooperative pool; and a pid that its
/// monitor may reap at any time cannot be listed safely for ``SpawnedProcesses/stopAll(grace:)``.
///
/// Thread-safe: the bench waits for a child on a thread of its own while it reads the child's output.
package final class ChildProcess: Sendable {
    /// Where the child's standard output or standard error goes.
    package enum Destination: Sendable {
        /// A file, created or truncated.
        case file(String)
        /// A pipe whose read end is ``standardOutput`` (for standard output only).
        case pipe
        /// The spawner's own.
        case inherit
        /// /dev/null.
        case discard
    }

    /// Why a child could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// How a child ended.
    package struct Termination: Sendable, CustomStringConvertible {
        /// The exit status, when it exited.
        package var exitStatus: Int32?
        /// The signal that ended it, when one did.
        package var signal: Int32?
        /// Wall-clock seconds from the start to the reaping.
        package var seconds: Double
        /// User and system CPU time of the child (every thread), from `wait4`.
        package var cpuSeconds: Double
        /// Peak resident memory in kilobytes: the highest `VmHWM` seen while the child was polled. `wait4`'s
        /// `ru_maxrss` (``reportedMaximumResidentKilobytes``) cannot be used for that: a child made by `posix_spawn`
        /// (vfork) shares the spawner's memory until `exec`, and Linux counts that memory in the child's peak.
        package var maximumResidentKilobytes: Int
        /// `wait4`'s `ru_maxrss` in kilobytes: an upper bound of the child's peak (see ``maximumResidentKilobytes``).
        package var reportedMaximumResidentKilobytes: Int
        /// True when the child was killed because it ran past the time its owner allowed (a hang).
        package var timedOut = false

        /// Whether it exited with status 0.
        package var succeeded: Bool { exitStatus == 0 }

        /// The status as a shell reports it: the exit status, or 128 + the signal.
        package var status: Int32 { exitStatus ?? 128 + (signal ?? 0) }

        package var description: String {
            if timedOut { return "timed out after \(Int(seconds)) s" }
            if let signal { return "killed by signal \(signal)" }
            return "exit status \(exitStatus ?? -1)"
        }
    }

    /// What a child run to completion printed on its standard output, and how it ended.
    package struct Outcome: Sendable {
        package var termination: Termination
        package var standardOutput: Data

        /// The status as a shell reports it (see ``Termination/status``).
        package var status: Int32 { termination.status }
        package var seconds: Double { termination.seconds }
        package var cpuSeconds: Double { termination.cpuSeconds }
        /// `wait4`'s `ru_maxrss`, in bytes: an upper bound only (see ``Termination/maximumResidentKilobytes``).
        package var peakResidentBytes: Int { termination.reportedMaximumResidentKilobytes * 1024 }
    }

    private struct State {
        var termination: Termination?
        var peakKilobytes = 0
    }

    /// The child's pid (also its process group's id when started with `newProcessGroup`).
    package let pid: pid_t
    /// The program and its arguments.
    package let arguments: [String]
    /// The file of its standard output, when it goes to one.
    package let standardOutputPath: String?
    /// The file of its standard error, when it goes to one.
    package let standardErrorPath: String?
    /// The read end of its standard output, with ``Destination/pipe``.
    package let standardOutput: FileHandle?
    private let started: ContinuousClock.Instant
    private let state = Mutex(State())

    /// The running executable (the benchmark or the harness), to start it again in a child role.
    package static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Starts `executable arguments…` in `directory` (default: the current one), with `environment` added to the
    /// spawner's, standard input from `inputPath` (default /dev/null), and standard output and error where given.
    /// With `newProcessGroup` the child leads a process group of its own (its pid is the group's id), which
    /// ``SpawnedProcesses/stopAll(grace:)`` kills whole.
    package init(executable: String, arguments: [String], directory: String? = nil,
                environment: [String: String] = [:], inputPath: String? = nil,
                output: Destination = .inherit, error: Destination = .inherit, newProcessGroup: Bool = false) throws {
        if case .pipe = error { throw Failure(description: "standard error cannot go to a pipe; use a file") }
        self.arguments = [executable] + arguments
        if case .file(let path) = output { standardOutputPath = path } else { standardOutputPath = nil }
        if case .file(let path) = error { standardErrorPath = path } else { standardErrorPath = nil }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath ?? "/dev/null", O_RDONLY, 0)
        var pipeEnds: [Int32] = [-1, -1]
        if case .pipe = output {
            guard pipe(&pipeEnds) == 0 else {
                throw Failure(description: "cannot create a pipe: \(String(cString: strerror(errno)))")
            }
            // Close-on-exec, so that no other child keeps the write end open (the reader would never see its end);
            // dup2 onto descriptor 1 clears the flag for this child's copy.
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        }
        for (descriptor, destination) in [(Int32(1), output), (Int32(2), error)] {
            switch destination {
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .discard:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .pipe, .inherit:
                break
            }
        }
        if let directory {
            guard let addChdir = Self.addChdir else {
                throw Failure(description: "this C library cannot set a child's working directory (posix_spawn_file_actions_addchdir_np)")
            }
            _ = addChdir(&actions, directory)
        }

        // Children start with default signal dispositions and an empty mask, whatever the spawner changed (an
        // interrupted harness ignores SIGINT and SIGTERM; Dispatch threads block signals).
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
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = self.arguments.map { strdup($0) } + [nil]
        var environmentValues: [String: String]? = nil
        if !environment.isEmpty {
            var values = ProcessInfo.processInfo.environment
            for (name, value) in environment { values[name] = value }
            environmentValues = values
        }
        let envp = environmentValues.map { values in values.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        started = .now
        do {
            pid = try SpawnedProcesses.start(wholeGroup: newProcessGroup) { () throws -> (pid_t, pid_t) in
                var pid: pid_t = 0
                let result = envp == nil
                    ? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
                    : posix_spawn(&pid, executable, &actions, &attributes, argv, envp!)
                guard result == 0 else {
                    throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
                }
                return (pid, pid)
            }
        } catch {
            if pipeEnds[0] >= 0 { close(pipeEnds[0]); close(pipeEnds[1]) }
            throw error
        }
        if pipeEnds[0] >= 0 {
            close(pipeEnds[1])
            standardOutput = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true)
        } else {
            standardOutput = nil
        }
    }

    /// Runs `executable arguments…` to its end, its standard output captured and its standard error where `error`
    /// says (default: inherited).
    package static func run(_ executable: String, _ arguments: [String], directory: String? = nil,
                           environment: [String: String] = [:], error: Destination = .inherit) throws -> Outcome {
        let child = try ChildProcess(executable: executable, arguments: arguments, directory: directory,
                                     environment: environment, output: .pipe, error: error)
        return child.outcome()
    }

    /// glibc 2.29's `posix_spawn_file_actions_addchdir_np`, which Swift's Glibc module does not import.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let addChdir: AddChdir? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    /// How the child ended, once it has been reaped (by ``poll()`` or a wait).
    package var termination: Termination? { state.withLock { $0.termination } }

    /// The highest resident set seen so far, in kilobytes.
    package var peakKilobytes: Int { state.withLock { $0.peakKilobytes } }

    /// Seconds since the child started.
    package var elapsed: Double { Self.seconds(ContinuousClock.now - started) }

    /// Reaps the child if it has ended, without waiting; samples its peak memory while it runs.
    @discardableResult
    package func poll() -> Termination? {
        if let termination { return termination }
        samplePeakMemory()
        return reap()
    }

    /// Waits for the child to end, polling (so that its peak memory is sampled). Past `timeout` seconds from its
    /// start it is killed with SIGKILL and reported as timed out.
    @discardableResult
    package func wait(timeout: Double = 600) -> Termination {
        let deadline = started + .milliseconds(Int(timeout * 1000))
        while true {
            if let termination = poll() { return termination }
            if ContinuousClock.now >= deadline {
                kill(SIGKILL)
                var ended = waitForExit()
                ended.timedOut = true
                state.withLock { $0.termination = ended }
                return ended
            }
            // Short naps while it is young (most children end quickly), longer ones after.
            usleep(elapsed < 0.2 ? 2_000 : 10_000)
        }
    }

    /// Blocks until the child ends (no time limit, no memory sampling: the wall time is exact), and reaps it.
    @discardableResult
    package func waitForExit() -> Termination {
        while true {
            if let termination { return termination }
            // Waits without reaping, so that the reaping happens under the registry's lock (see SpawnedProcesses).
            var information = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT)
            if result < 0 && errno == EINTR { continue }
            // waitid failing otherwise: reaped by SpawnedProcesses.stopAll meanwhile, or by someone else.
            if let ended = reap(gone: result < 0) { return ended }
        }
    }

    /// Reads the child's standard output pipe to its end, then waits for the child.
    package func outcome() -> Outcome {
        let data = standardOutput?.readDataToEndOfFile() ?? Data()
        return Outcome(termination: waitForExit(), standardOutput: data)
    }

    /// Sends `signal` to the child, while it has not been reaped.
    package func kill(_ signal: Int32) {
        guard termination == nil else { return }
        _ = Glibc.kill(pid, signal)
    }

    /// Sends `signal` to the child's whole process group (started with `newProcessGroup`).
    package func killGroup(_ signal: Int32) {
        guard termination == nil else { return }
        _ = Glibc.kill(-pid, signal)
    }

    /// What the child wrote to its standard output file so far.
    package var standardOutputText: String {
        standardOutputPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
    }

    /// What the child wrote to its standard error file so far.
    package var standardErrorText: String {
        standardErrorPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
    }

    /// Reads `VmHWM` (the peak resident set of the process's current image) from /proc.
    private func samplePeakMemory() {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            if let kilobytes = Int(line.dropFirst(6).split(whereSeparator: \.isWhitespace).first ?? "") {
                state.withLock { $0.peakKilobytes = max($0.peakKilobytes, kilobytes) }
            }
        }
    }

    /// Reaps the child without blocking, when it has ended, and records how. `gone`: it cannot be waited for any more
    /// (reaped elsewhere), so it is recorded as ended even when `wait4` finds nothing.
    private func reap(gone: Bool = false) -> Termination? {
        var status: Int32 = 0
        var usage = rusage()
        var result: pid_t = 0
        SpawnedProcesses.reap(pid) {
            result = wait4(pid, &status, WNOHANG, &usage)
            return result == pid
        }
        let seconds = Self.seconds(ContinuousClock.now - started)
        let lost = result < 0 && (gone || SpawnedProcesses.wasStopped(pid))
        return state.withLock { state -> Termination? in
            if let termination = state.termination { return termination }
            guard result == pid || lost else { return nil }
            var ended = Termination(exitStatus: nil, signal: nil, seconds: seconds, cpuSeconds: 0,
                                    maximumResidentKilobytes: state.peakKilobytes,
                                    reportedMaximumResidentKilobytes: 0)
            if result == pid {
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
                if status & 0x7F == 0 { ended.exitStatus = (status >> 8) & 0xFF } else { ended.signal = status & 0x7F }
                ended.cpuSeconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
                // Linux reports ru_maxrss in kilobytes.
                ended.reportedMaximumResidentKilobytes = Int(usage.ru_maxrss)
            } else {
                // Killed and reaped by SpawnedProcesses.stopAll, on an interruption (or reaped by someone else).
                ended.signal = SIGKILL
            }
            state.termination = ended
            return ended
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program as a child process: its output, exit status and `wait4`'s `ru_maxrss` (what `/usr/bin/time -v`
/// prints as "Maximum resident set size"). Spawned with `posix_spawn` and reaped with `wait4` on its own pid, so
/// the figure is this child's alone rather than the largest of every child (`getrusage(RUSAGE_CHILDREN)`); but see
/// ``ProcessResources``: on Linux it also carries the spawning process's high-water mark, so the suite's children
/// report their own peak (`VmHWM`) and this value is kept only as an upper bound.
struct ChildProcess {
    struct Outcome {
        var status: Int32
        var standardOutput: Data
        /// Peak resident set size in bytes.
        var peakResidentBytes: Int
        var seconds: Double
        /// User and system CPU time of the child (every thread), from `wait4`.
        var cpuSeconds: Double = 0
    }

    /// The running benchmark executable, to start it again in a child role.
    static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    let executable: String
    let arguments: [String]

    /// Starts the child with stdout on a pipe (stderr inherited) and returns it running.
    func start() throws -> Running {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchError("cannot create a pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = Stopwatch.nanoseconds()
        let result = (argv + [nil]).withUnsafeBufferPointer { buffer in
            posix_spawn(&pid, executable, &actions, nil, UnsafeMutablePointer(mutating: buffer.baseAddress!), environ)
        }
        close(fds[1])
        guard result == 0 else {
            close(fds[0])
            throw BenchError("cannot start \(executable): \(String(cString: strerror(result))); build it with `swift build -c release`")
        }
        return Running(pid: pid, output: FileHandle(fileDescriptor: fds[0], closeOnDealloc: true), started: started)
    }

    /// Runs the child to its end.
    func run() throws -> Outcome {
        let running = try start()
        let output = running.output.readDataToEndOfFile()
        return try running.wait(output: output)
    }

    /// A started child.
    struct Running: Sendable {
        let pid: pid_t
        /// The read end of the child's stdout.
        let output: FileHandle
        let started: UInt64

        /// Waits for the child to exit and collects its resource usage.
        func wait(output data: Data) throws -> Outcome {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) < 0 {
                guard errno == EINTR else { throw BenchError("waiting for child \(pid) failed: \(String(cString: strerror(errno)))") }
            }
            let seconds = Double(Stopwatch.nanoseconds() - started) / 1e9
            // WIFEXITED/WEXITSTATUS are macros Swift does not import.
            let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            // Linux reports ru_maxrss in kilobytes.
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            return Outcome(status: exitStatus, standardOutput: data, peakResidentBytes: Int(usage.ru_maxrss) * 1024,
                           seconds: seconds, cpuSeconds: cpu)
        }
    }
}

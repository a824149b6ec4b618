import Foundation
import SpotliteSearch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program of Xapian's tools (`xapian-replicate`, `xapian-replicate-server`), found on `PATH`.
struct ExternalTool: Sendable {
    let name: String
    let path: String

    /// Finds `name` on `PATH` (then in /usr/bin, where Debian installs xapian-tools).
    /// - Throws: `ReplicationError.toolMissing` when it is not installed.
    init(_ name: String) throws {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = searchPath.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        guard let found = folders.map({ $0 + "/" + name }).first(where: { access($0, X_OK) == 0 }) else {
            throw ReplicationError.toolMissing(name)
        }
        self.name = name
        self.path = found
    }

    struct Outcome {
        var status: Int32
        /// stdout and stderr together.
        var output: String
        var timedOut: Bool

        /// The last non-empty line of the output, for an error message.
        var lastLine: String {
            output.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
    }

    /// A started run; `finish()` waits for it.
    final class Run: @unchecked Sendable {
        let process: Process
        private let pipe: Pipe
        private let timer: DispatchWorkItem
        private let timedOut = TimeoutFlag()

        final class TimeoutFlag: Sendable {
            let raised = Atomic(false)
        }

        init(process: Process, pipe: Pipe, timeout: Double) {
            self.process = process
            self.pipe = pipe
            let timedOut = self.timedOut
            timer = DispatchWorkItem { [process] in
                guard process.isRunning else { return }
                timedOut.raised.store(true, ordering: .sequentiallyConsistent)
                kill(process.processIdentifier, SIGKILL)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        }

        /// Waits for the program to end (killed at its time limit) and returns its status and output.
        func finish() -> Outcome {
            // Read until EOF before waiting, so a chatty program never blocks on a full pipe.
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            timer.cancel()
            return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self),
                           timedOut: timedOut.raised.load(ordering: .sequentiallyConsistent))
        }
    }

    /// Starts the program with `arguments`, killed after `timeout` seconds.
    func start(_ arguments: [String], timeout: Double) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Run(process: process, pipe: pipe, timeout: timeout)
    }
}

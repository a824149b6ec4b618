import Dispatch
import Foundation
import SpotliteTooling
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the harness does on SIGINT or SIGTERM: it stops every process it started (the suites' children and the
/// shard servers' sessions, all listed in `SpawnedProcesses`), removes the scratch directory of the suite in progress
/// (or, with `--keep`, says where it is), says so in one line on stderr, and exits with 128 + the signal (130, 143).
///
/// The signals arrive through Dispatch on a queue of their own, not in a signal handler, so that the clean-up may
/// lock, wait and remove files; the suite's loop may still run meanwhile, but it can start nothing more, it stops at
/// the end of its suite (``holdIfInterrupted()``), and the harness ends with `_exit` once the clean-up is done.
enum Interruption {
    private struct State {
        var sources: [DispatchSourceSignal] = []
        var workspace: (root: String, keep: Bool)?
    }

    private static let state = Mutex(State())
    private static let signalled = Atomic<Bool>(false)

    /// Starts listening for SIGINT and SIGTERM (once; later calls do nothing).
    static func install() {
        state.withLock { state in
            guard state.sources.isEmpty else { return }
            let queue = DispatchQueue(label: "spotlite-reliability.interruption")
            for number in [SIGINT, SIGTERM] {
                // Ignored, so that Dispatch alone sees it; children start with default dispositions (ChildProcess).
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { interrupted(by: number) }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    /// The scratch directory of the suite now running.
    static func enter(workspace root: String, keep: Bool) {
        state.withLock { $0.workspace = (root, keep) }
    }

    /// The suite's scratch directory is gone (or kept and reported) already.
    static func leave() {
        state.withLock { $0.workspace = nil }
    }

    /// Whether a signal has arrived (the suite's output stops then: what fails afterwards was stopped on purpose).
    static var isInterrupted: Bool { signalled.load(ordering: .acquiring) }

    /// Parks the suite's thread for good once a signal has arrived, so that the harness ends by the clean-up's exit
    /// status and not by the suite's own (which would race the clean-up, or report as failures the processes it
    /// stopped).
    static func holdIfInterrupted() {
        guard isInterrupted else { return }
        while true { sleep(60) }
    }

    private static func interrupted(by number: Int32) -> Never {
        signalled.store(true, ordering: .releasing)
        let name = number == SIGINT ? "SIGINT" : "SIGTERM"
        let stopped = SpawnedProcesses.stopAll()
        var message = "spotlite-reliability: interrupted by \(name); stopped the \(stopped.count) process\(stopped.count == 1 ? "" : "es") it had started"
        if let workspace = state.withLock({ $0.workspace }) {
            if workspace.keep {
                message += "; its scratch directory is kept at \(workspace.root)"
            } else {
                // The suite's thread may still add a file or two: a few tries.
                var failure: (any Error)?
                for _ in 0..<3 {
                    do {
                        try FileManager.default.removeItem(atPath: workspace.root)
                        failure = nil
                        break
                    } catch {
                        failure = error
                    }
                }
                if let failure, FileManager.default.fileExists(atPath: workspace.root) {
                    message += "; its scratch directory \(workspace.root) could not be removed (\(failure.localizedDescription)): remove it by hand"
                } else {
                    message += "; removed its scratch directory \(workspace.root)"
                }
            }
        }
        // Summaries of suites already finished may sit in stdio's buffer (stdout to a file): _exit would drop them.
        fflush(nil)
        FileHandle.standardError.write(Data((message + "\n").utf8))
        _exit(128 + number)
    }
}

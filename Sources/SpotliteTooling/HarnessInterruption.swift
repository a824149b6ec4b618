import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a harness (`spotlite-reliability`, `spotlite-bench`) does on SIGINT or SIGTERM: it stops every process it
/// started (children and shard servers' sessions, all listed in ``SpawnedProcesses``), removes the scratch directory
/// of the work in progress (or, when asked to keep it, says where it is), says so in one line on stderr, and exits
/// with 128 + the signal (130, 143).
///
/// The signals arrive through Dispatch on a queue of their own, not in a signal handler, so that the clean-up may
/// lock, wait and remove files; the harness's work may still run meanwhile, but it can start nothing more, it parks
/// at its next ``holdIfInterrupted()``, and the harness ends with `_exit` once the clean-up is done.
package enum HarnessInterruption {
    private struct State {
        var program = "harness"
        var sources: [DispatchSourceSignal] = []
        var workspace: (root: String, keep: Bool, noun: String)?
    }

    private static let state = Mutex(State())
    private static let signalled = Atomic<Bool>(false)
    /// Threads of the harness's work parked by ``holdIfInterrupted()``: once the work is parked, it writes nothing
    /// more into the scratch directory.
    private static let parked = Atomic<Int>(0)
    /// How long the clean-up waits for the work to park before removing the scratch directory anyway.
    private static let parkingWait = Duration.seconds(2)

    /// Starts listening for SIGINT and SIGTERM (once; later calls do nothing); `program` begins the line printed.
    package static func install(program: String) {
        state.withLock { state in
            guard state.sources.isEmpty else { return }
            state.program = program
            let queue = DispatchQueue(label: "spotlite.harness-interruption")
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

    /// The scratch directory of the work now running: removed on a signal, or with `keep` named as kept; `noun`
    /// is what the line calls it.
    package static func enter(workspace root: String, keep: Bool, noun: String = "scratch directory") {
        state.withLock { $0.workspace = (root, keep, noun) }
    }

    /// The scratch directory is gone (or kept and reported) already.
    package static func leave() {
        state.withLock { $0.workspace = nil }
    }

    /// Whether a signal has arrived (the suite's output stops then: what fails afterwards was stopped on purpose).
    package static var isInterrupted: Bool { signalled.load(ordering: .acquiring) }

    /// Parks the calling thread for good once a signal has arrived, so that the harness ends by the clean-up's exit
    /// status and not by its work's own (which would race the clean-up, or report as failures the processes it
    /// stopped).
    package static func holdIfInterrupted() {
        guard isInterrupted else { return }
        parked.add(1, ordering: .releasing)
        while true { sleep(60) }
    }

    private static func interrupted(by number: Int32) -> Never {
        signalled.store(true, ordering: .releasing)
        let name = number == SIGINT ? "SIGINT" : "SIGTERM"
        let stopped = SpawnedProcesses.stopAll()
        let (program, workspace) = state.withLock { ($0.program, $0.workspace) }
        var message = "\(program): interrupted by \(name); stopped the \(stopped.count) process\(stopped.count == 1 ? "" : "es") it had started"
        if let workspace {
            if workspace.keep {
                message += "; its \(workspace.noun) is kept at \(workspace.root)"
            } else {
                // The work runs on until it parks (its processes are stopped, so it soon fails and does): a file it
                // wrote after the removal would bring the directory back. Removed once the work is parked, or after
                // `parkingWait`, and again while it reappears.
                let deadline = ContinuousClock.now + parkingWait
                while parked.load(ordering: .acquiring) == 0 && ContinuousClock.now < deadline { usleep(10_000) }
                var failure: (any Error)?
                for attempt in 0..<5 {
                    if attempt > 0 { usleep(50_000) }
                    do {
                        try FileManager.default.removeItem(atPath: workspace.root)
                        failure = nil
                    } catch {
                        failure = error
                    }
                    if !FileManager.default.fileExists(atPath: workspace.root) { break }
                }
                if FileManager.default.fileExists(atPath: workspace.root) {
                    let why = failure?.localizedDescription ?? "its work kept writing into it"
                    message += "; its \(workspace.noun) \(workspace.root) could not be removed (\(why)): remove it by hand"
                } else {
                    message += "; removed its \(workspace.noun) \(workspace.root)"
                }
            }
        }
        // Summaries of work already finished may sit in stdio's buffer (stdout to a file): _exit would drop them.
        fflush(nil)
        FileHandle.standardError.write(Data((message + "\n").utf8))
        _exit(128 + number)
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Every process the tooling started (``ChildProcess`` children, ``XapianTcpServer`` sessions) and has not reaped, so
/// that a harness interrupted by SIGINT or SIGTERM can stop them all before it exits (``stopAll()``).
///
/// Starting and reaping happen under one lock with the bookkeeping: a pid is in the list exactly while it names a
/// process of ours (started and not yet reaped), so ``stopAll()`` never signals a pid the kernel has handed to
/// someone else. Once ``stopAll()`` has run, nothing new starts: the harness is on its way out.
package enum SpawnedProcesses {
    /// Why a process was not started.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    private struct Entry {
        /// Signal the whole process group (or session) the pid leads, not only the pid.
        var wholeGroup: Bool
    }

    private struct State {
        var entries: [pid_t: Entry] = [:]
        var stopping = false
    }

    private static let state = Mutex(State())

    /// Runs `spawn` (which starts one process and returns it with its pid) and records the pid, under the lock.
    static func start<Started: Sendable>(wholeGroup: Bool, _ spawn: () throws -> (Started, pid_t)) throws -> Started {
        try state.withLock { state throws -> Started in
            guard !state.stopping else {
                throw Refusal(description: "not starting another process: the harness was interrupted and is stopping")
            }
            let (started, pid) = try spawn()
            state.entries[pid] = Entry(wholeGroup: wholeGroup)
            return started
        }
    }

    /// Runs `body`, which reaps `pid` (or kills and reaps it) and says whether it did, under the lock; a reaped pid
    /// leaves the list. When ``stopAll()`` has reaped it already, `body` does not run (the pid may name another
    /// process by now).
    @discardableResult
    static func reap(_ pid: pid_t, _ body: () -> Bool) -> Bool {
        state.withLock { state in
            if state.stopping && state.entries[pid] == nil { return true }
            let reaped = body()
            if reaped { state.entries[pid] = nil }
            return reaped
        }
    }

    /// Whether `pid` was reaped already by ``stopAll()`` (then its owner will not find it any more).
    static func wasStopped(_ pid: pid_t) -> Bool {
        state.withLock { $0.stopping && $0.entries[pid] == nil }
    }

    /// The pids started and not yet reaped.
    package static var running: [pid_t] {
        state.withLock { Array($0.entries.keys).sorted() }
    }

    /// Kills every process still running (SIGKILL, to its whole group or session where it leads one), waits up to
    /// `grace` for each to end and reaps it; from then on nothing new starts. Returns the pids it stopped. Safe to
    /// call from any thread (a signal handler's dispatch queue), while the owner of the processes still runs.
    @discardableResult
    package static func stopAll(grace: Duration = .seconds(5)) -> [pid_t] {
        state.withLock { state in
            state.stopping = true
            let pids = state.entries.keys.sorted()
            for pid in pids {
                if state.entries[pid]!.wholeGroup { _ = kill(-pid, SIGKILL) }
                _ = kill(pid, SIGKILL)
            }
            let deadline = ContinuousClock.now + grace
            for pid in pids {
                var status: Int32 = 0
                while waitpid(pid, &status, WNOHANG) == 0 && ContinuousClock.now < deadline { usleep(2_000) }
                state.entries[pid] = nil
            }
            return pids
        }
    }
}

import Foundation
import SpotliteTooling
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilityTests {
    /// `spotlite-reliability` interrupted while its shard servers run: it stops every server session and every child it
    /// started, exits with 128 + the signal, and removes its scratch directory (or keeps it with `--keep`, saying
    /// where). Checked on the real processes, by their pids, sessions and process group.
    @Suite("Reliability: an interrupted harness stops what it started", .serialized)
    struct InterruptTests {
        @Test("SIGTERM during the remote suite: no server session or child survives, exit 143, scratch directory removed")
        func terminated() throws {
            try interrupt(with: SIGTERM, keep: false)
        }

        @Test("SIGINT during the remote suite with --keep: no server session or child survives, exit 130, scratch directory kept and named")
        func interruptedKeepingTheScratchDirectory() throws {
            try interrupt(with: SIGINT, keep: true)
        }

        private func interrupt(with signal: Int32, keep: Bool) throws {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-interrupt-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let errorPath = scratch.appendingPathComponent("err").path
            // A process group of its own, so that every child it leaves in its group can be found afterwards.
            let harness = try ChildProcess(
                executable: ReliabilityRunner.binary,
                arguments: ["remote", "--seed", "1", "--trials", "1"] + (keep ? ["--keep"] : []),
                output: .file(scratch.appendingPathComponent("out").path), error: .file(errorPath), newProcessGroup: true)
            var sessions: Set<pid_t> = []
            defer {
                // Whatever the outcome, nothing of this test outlives it.
                harness.killGroup(SIGKILL)
                harness.waitForExit()
                for survivor in Self.survivors(sessions: sessions, group: harness.pid) { kill(survivor.pid, SIGKILL) }
            }

            // Until the harness says its servers run (bounded: a debug build on a loaded machine is slow).
            let deadline = ContinuousClock.now + .seconds(180)
            var announcement: Substring?
            while announcement == nil {
                announcement = harness.standardErrorText.split(separator: "\n").first { $0.contains("shard servers started: ") }
                if announcement != nil { break }
                try #require(harness.poll() == nil, "the harness ended before its servers started: \(harness.standardErrorText)")
                try #require(ContinuousClock.now < deadline, "no server announcement within 180 s: \(harness.standardErrorText)")
                usleep(20_000)
            }
            sessions = Set(Self.numbers(after: "session ", in: String(announcement!)))
            try #require(sessions.count == 3, "three server sessions in: \(announcement!)")
            #expect(Self.survivors(sessions: sessions, group: -1).count >= 3, "the servers run before the signal")
            let workspaceLine = try #require(harness.standardErrorText.split(separator: "\n").first { $0.contains(" mode, in ") })
            let workspace = String(workspaceLine[workspaceLine.range(of: " mode, in ")!.upperBound...])

            let stderr = Self.interrupt(harness, named: "spotlite-reliability", with: signal, sessions: sessions)
            if keep {
                #expect(stderr.contains("its scratch directory is kept at \(workspace)"), "\(stderr)")
                #expect(FileManager.default.fileExists(atPath: workspace + "/spotlite.toml"))
                try? FileManager.default.removeItem(atPath: workspace)
            } else {
                #expect(stderr.contains("removed its scratch directory \(workspace)"), "\(stderr)")
                #expect(!FileManager.default.fileExists(atPath: workspace))
            }
        }

        /// The integers following `prefix` in `text`.
        private static func numbers(after prefix: String, in text: String) -> [pid_t] {
            text.components(separatedBy: prefix).dropFirst().compactMap { pid_t($0.prefix { $0.isNumber }) }
        }

        /// Sends `signal` to `child` (the program `program`) and checks that it ended as an interrupted harness does:
        /// within 60 s, with 128 + the signal, saying so on stderr, and leaving no process of its group or of
        /// `sessions` running. Returns its stderr.
        static func interrupt(_ child: ChildProcess, named program: String, with signal: Int32, sessions: Set<pid_t>) -> String {
            child.kill(signal)
            let ended = child.wait(timeout: child.elapsed + 60)
            let stderr = child.standardErrorText
            #expect(!ended.timedOut, "\(program) did not exit within 60 s of the signal: \(stderr)")
            #expect(ended.exitStatus == 128 + signal, "exit status \(ended): \(stderr)")
            let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
            #expect(stderr.contains("\(program): interrupted by \(name); stopped the "), "\(stderr)")
            let survivors = Self.survivors(sessions: sessions, group: child.pid)
            #expect(survivors.isEmpty, "still running after \(program) exited: \(survivors.map { "\($0.pid) \($0.name)" })")
            return stderr
        }

        /// Live processes (zombies excepted) in one of `sessions` or in process group `group`, from /proc.
        static func survivors(sessions: Set<pid_t>, group: pid_t) -> [(pid: pid_t, name: String)] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { entry -> (pid: pid_t, name: String)? in
                guard let pid = pid_t(entry),
                      let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                      let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
                else { return nil }
                // After the name in parentheses: state, parent, process group, session, …
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 3, fields[0] != "Z", let processGroup = pid_t(fields[2]), let session = pid_t(fields[3])
                else { return nil }
                guard sessions.contains(session) || processGroup == group else { return nil }
                return (pid, String(stat[stat.index(after: open)..<close]))
            }
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Processor time and sleeps of a process (every thread), from `/proc`: counts that do not depend on how busy the
/// machine is, unlike the time a request takes.
struct ProcessActivity {
    /// User plus system processor time, in seconds (the kernel counts it in clock ticks, 10 ms here).
    var cpuSeconds: Double
    /// How often its threads went to sleep waiting for something (`voluntary_ctxt_switches`, summed over threads).
    var sleeps: Int

    /// `pid`'s activity so far; nil when `/proc` does not have it.
    static func of(_ pid: pid_t) -> ProcessActivity? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // The fields after the command name (which may hold spaces) start with the state, field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        var sleeps = 0
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                sleeps += Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
            }
        }
        return ProcessActivity(cpuSeconds: (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))), sleeps: sleeps)
    }

    /// The processor time of the calling thread so far, in seconds (nanosecond resolution).
    static func threadCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

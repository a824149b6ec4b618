import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What this process has used so far, read by child processes about themselves.
///
/// Peak memory comes from `VmHWM` in `/proc/self/status`, the high-water mark of this process image's own memory.
/// The parent's view (`wait4`/`getrusage` `ru_maxrss`, what `/usr/bin/time -v` prints) is not usable here: Linux
/// carries the spawning process's high-water mark into the child's `ru_maxrss` at `exec` (`exec_mmap` →
/// `setmax_mm_hiwater_rss`), so a child of the suite, which holds the corpus in memory, would report the suite's
/// peak, not its own.
enum ProcessResources {
    /// Peak resident set size of this process image, in bytes (0 when /proc is unavailable).
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").dropFirst().first { Int($0) != nil }
            return (digits.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    /// User plus system CPU time of this process (every thread), in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

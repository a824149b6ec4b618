#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time shared by every process on the machine (CLOCK_MONOTONIC), so that a child process can stamp a
/// commit and this process can compare the stamp with the moment the record became searchable.
enum Stopwatch {
    /// Nanoseconds since an arbitrary, machine-wide origin.
    static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Seconds `work` took.
    static func seconds(_ work: () throws -> Void) rethrows -> Double {
        let start = nanoseconds()
        try work()
        return Double(nanoseconds() - start) / 1e9
    }

    /// Seconds `work` took, with its result.
    static func measure<T>(_ work: () throws -> T) rethrows -> (seconds: Double, value: T) {
        let start = nanoseconds()
        let value = try work()
        return (Double(nanoseconds() - start) / 1e9, value)
    }

    /// Seconds `work` took, for async work.
    static func seconds(_ work: () async throws -> Void) async rethrows -> Double {
        let start = nanoseconds()
        try await work()
        return Double(nanoseconds() - start) / 1e9
    }
}

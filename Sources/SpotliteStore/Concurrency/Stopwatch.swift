/// The time elapsed on a clock since the stopwatch was made: lets a type take any `Clock<Duration>` (the
/// continuous clock in use, a clock a test advances) and still compare instants without being generic over it.
package struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        read = { start.duration(to: clock.now) }
    }

    /// The time elapsed since the stopwatch was made.
    package var elapsed: Duration { read() }
}

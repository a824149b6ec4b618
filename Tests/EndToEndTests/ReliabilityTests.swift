import SpotliteTestSupport
import Testing

/// The quick versions of the reliability suites (`spotlite-reliability`; the long versions run with `make stress`).
/// One at a time: each keeps both cores busy, and the crash and concurrency suites time their children.
@Suite("Reliability suites (quick)", .serialized, .blockingWork)
struct ReliabilityTests {}

import Foundation
import SpotliteTooling
import Testing

extension ReliabilityTests {
    @Suite("Reliability: full and read-only disks (quick)", .serialized)
    struct FullDiskTests {
        @Test("on a small tmpfs, full and read-only: no abort, every shard passes xapian-check, caught up once space returns")
        func quickSuitePasses() throws {
            let output = try ReliabilityRunner.run(["full-disk", "--seed", "1"])
            let summary = try #require(output.summary("full-disk"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(output.status == 0)
            if let reason = SmallFileSystem.unavailableReason {
                #expect(output.figure("full disk")?.contains(reason) == true, "the skip says why:\n\(output.stdout)")
            } else {
                #expect(summary.passed == 2)
                for figure in ["steps", "clean failures", "catch-up update"] {
                    #expect(output.figure(figure) != nil, "figure \(figure) in:\n\(output.stdout)")
                }
            }
        }
    }
}

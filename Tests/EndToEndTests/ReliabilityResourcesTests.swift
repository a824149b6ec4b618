import Foundation
import Testing

extension ReliabilityTests {
    @Suite("Reliability: resource bounds (quick)", .serialized)
    struct ResourcesTests {
        @Test("a huge text field, a batch transaction at two sizes, many distinct keywords: bounded and not superlinear")
        func quickSuitePasses() throws {
            let output = try ReliabilityRunner.run(["resources", "--seed", "1"])
            let summary = try #require(output.summary("resources"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(summary.passed == 3)
            #expect(output.status == 0)
            for figure in ["2 MB field", "batch of 20,000", "scaling: index inserts", "update memory per row", "10,000 keywords"] {
                #expect(output.figure(figure) != nil, "figure \(figure) in:\n\(output.stdout)")
            }
        }
    }
}

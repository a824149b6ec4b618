import Foundation
import Testing

extension ReliabilityTests {
    @Suite("Reliability: concurrency under load (quick)", .serialized)
    struct ConcurrencyTests {
        @Test("four writers, index watch, a cleaner loop and a slow consumer: nothing lost, no unretried lock error")
        func quickSuitePasses() throws {
            let output = try ReliabilityRunner.run(["concurrency", "--seed", "1"])
            let summary = try #require(output.summary("concurrency"), "no summary line in:\n\(output.stdout)\n\(output.stderr)")
            #expect(summary.failed == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(summary.passed >= 11)
            #expect(output.status == 0)
            #expect(output.numbers(in: "transactions committed").first == 600, "4 writers × 150 transactions")
            #expect(output.numbers(in: "slow consumer").last == 0, "no gap: \(output.figure("slow consumer") ?? "")")
            let cleaning = output.numbers(in: "history clean")
            #expect(cleaning.count >= 2 && cleaning[1] > 0, "the cleaner deleted history while the consumer read it")
            #expect(output.figure("busy retries") != nil)
            let rows = output.numbers(in: "rows = documents")
            #expect(rows.count == 2 && rows[0] == rows[1])
        }
    }
}

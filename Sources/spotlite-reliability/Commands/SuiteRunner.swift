import ArgumentParser
import Foundation
import SpotliteTooling

/// Runs one suite in its own workspace and prints its summary; failed cases make the exit status 1.
enum SuiteRunner {
    static func run(_ name: String, options: SuiteOptions,
                    _ body: (Workspace, SuiteReport) throws -> Void) throws -> SuiteReport {
        // SIGINT or SIGTERM stops every process the suites started and removes (or reports) the scratch directory.
        HarnessInterruption.install(program: "spotlite-reliability")
        let workspace = try Workspace(suite: name, seed: options.seed, spotlite: try Binaries.spotlite(override: options.spotlite),
                                      keep: options.keep)
        defer {
            HarnessInterruption.holdIfInterrupted()
            workspace.remove()
        }
        let report = SuiteReport(suite: name, verbose: options.verbose)
        report.log("seed \(options.seed), \(options.long ? "long" : "quick") mode, in \(workspace.root)")
        let started = ContinuousClock.now
        do {
            try body(workspace, report)
        } catch {
            report.record("the suite ran to the end", problems: ["\(error)"])
        }
        HarnessInterruption.holdIfInterrupted()
        report.figure("seed", "\(options.seed) (\(options.long ? "long" : "quick") mode), \(Format.seconds((ContinuousClock.now - started).seconds))")
        print(report.text)
        return report
    }

    static func exitStatus(_ reports: [SuiteReport]) throws {
        if reports.contains(where: { $0.failed > 0 }) { throw ExitCode.failure }
    }
}

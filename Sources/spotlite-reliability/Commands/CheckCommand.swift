import ArgumentParser
import Foundation
import Spotlite

/// Runs the invariant check on an existing store and index.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check that an index holds exactly its store's rows and that history and positions are consistent.")

    @Option(help: "The configuration file naming the store and the index.") var config: String
    @Flag(help: "Also replay the Item rev ledger (only valid for stores the suites wrote, before any cleanup).") var ledger = false
    @Flag(help: "Do not require the index to be at the store's current token.") var allowBehind = false

    func run() throws {
        let configuration = try SpotliteConfiguration(contentsOf: config)
        let outcome = try InvariantChecker(configuration: configuration)
            .check(InvariantChecker.Options(expectCaughtUp: !allowBehind, ledger: ledger))
        let report = SuiteReport(suite: "check", verbose: false)
        report.record("invariant", problems: outcome.problems)
        report.figure("rows", outcome.rows)
        report.figure("documents", outcome.documents)
        report.figure("history changes", outcome.changes)
        report.figure("tokens", "index \(outcome.indexToken.map { "\($0)" } ?? "none"), store \(outcome.storeToken.map { "\($0)" } ?? "none")")
        print(report.text)
        try SuiteRunner.exitStatus([report])
    }
}
